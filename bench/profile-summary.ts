// `node bin/run-ts.js bench/profile-summary.ts <file.cpuprofile> [--top 40] [--skip-ms 8000]
// [--phase-ms 120-170] [--phase-busy]`: where a V8 CPU profile (bench/daemon.ts --cpu-prof <dir>)
// spent its time: self time by function and by file (package or src/ path), most first, so a run's
// hot spots read without a profiler UI.
//
// The busy part's load comes once a second (every source polls every second, the positions read
// first), so its latency is made in the same few tens of milliseconds of every second: `--phase-busy`
// prints how busy the process was in each 2 ms of the second (the profile's monotonic clock, which
// every process of the host shares, so a daemon's and the venue's profiles line up), and
// `--phase-ms from-to` keeps only the samples of that part of every second: what the process did
// between a tick and its submits, rather than over the whole run.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const callFrame = z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() });
const profileSchema = z.object({
  nodes: z.array(z.object({ id: z.number(), callFrame, children: z.array(z.number()).optional() })),
  startTime: z.number(),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' }, 'skip-ms': { type: 'string', default: '0' }, 'phase-ms': { type: 'string' }, 'phase-busy': { type: 'boolean', default: false } },
});
const file = positionals[0];
if (!file) {
  console.error('usage: bench/profile-summary.ts <file.cpuprofile> [--top 40]');
  process.exit(2);
}
const top = Number(values.top);
/** Samples of the first `skip-ms` of the profile are left out (a daemon's start-up: module loading, config). */
const skipUs = Number(values['skip-ms']) * 1000;
const phase = values['phase-ms'] === undefined ? undefined : phaseWindow(values['phase-ms']);
const profile = profileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
/** Time with the function anywhere on the stack (counted once per sample). */
const inclusive = new Map<string, number>();
let totalUs = 0;
let atUs = 0;
/** Per 2 ms of the second: samples, and samples that were not idle. */
const PHASE_BIN_US = 2000;
const phaseBins = Array.from({ length: 1_000_000 / PHASE_BIN_US }, () => ({ all: 0, busy: 0 }));
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i] ?? 0;
  atUs += us;
  if (atUs < skipUs) return;
  const f = frames.get(id);
  if (!f) return;
  const inSecondUs = (profile.startTime + atUs) % 1_000_000;
  const bin = phaseBins[Math.floor(inSecondUs / PHASE_BIN_US)]!;
  bin.all++;
  if (f.functionName !== '(idle)') bin.busy++;
  if (phase && (inSecondUs < phase.fromUs || inSecondUs >= phase.toUs || f.functionName === '(idle)')) return;
  totalUs += us;
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = frames.get(at);
    if (!frame || frame.functionName === '(root)') continue;
    const name = `${frame.functionName || '(anonymous)'} ${fileOf(frame.url)}:${frame.lineNumber + 1}`;
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  }
  const where = fileOf(f.url);
  const name = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  byFile.set(where, (byFile.get(where) ?? 0) + us);
});

function phaseWindow(text: string): { fromUs: number; toUs: number } {
  const m = /^(\d+)-(\d+)$/.exec(text);
  if (!m || Number(m[1]) >= Number(m[2]) || Number(m[2]) > 1000) throw new RangeError('--phase-ms must be from-to in ms within the second, e.g. 120-170');
  return { fromUs: Number(m[1]) * 1000, toUs: Number(m[2]) * 1000 };
}

/** A package name, a path under src/, or V8's own label ((garbage collector), (idle), …). */
function fileOf(url: string): string {
  if (url === '') return '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const src = /\/((?:src|dist|bench)\/.*)$/.exec(url);
  return src ? src[1]! : url.replace(/^file:\/\//, '');
}

const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (of ${(totalUs / 1000).toFixed(0)} ms sampled)`);
  for (const [name, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / totalUs).toFixed(1).padStart(5)} %  ${name}`);
};
if (values['phase-busy']) {
  console.log('\nbusy share by 2 ms of the second (where any sampled 15 % or more)');
  phaseBins.forEach((b, i) => {
    if (b.all > 0 && b.busy / b.all >= 0.15) console.log(`${String(i * 2).padStart(5)} ms ${((100 * b.busy) / b.all).toFixed(0).padStart(4)} %`);
  });
}
if (phase) console.log(`\nonly ${phase.fromUs / 1000}–${phase.toUs / 1000} ms of every second, idle left out`);
print('self time by file', byFile);
print('self time by function', byFunction);
print('inclusive time by function (the function anywhere on the stack)', inclusive);
