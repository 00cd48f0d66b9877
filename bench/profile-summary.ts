// `node bin/run-ts.js bench/profile-summary.ts <file.cpuprofile> [--top 40]`: where a V8 CPU profile
// (bench/daemon.ts --cpu-prof <dir>) spent its time: self time by function and by file (package or
// src/ path), most first, so a run's hot spots read without a profiler UI.
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

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '40' }, 'skip-ms': { type: 'string', default: '0' } } });
const file = positionals[0];
if (!file) {
  console.error('usage: bench/profile-summary.ts <file.cpuprofile> [--top 40]');
  process.exit(2);
}
const top = Number(values.top);
/** Samples of the first `skip-ms` of the profile are left out (a daemon's start-up: module loading, config). */
const skipUs = Number(values['skip-ms']) * 1000;
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
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i] ?? 0;
  atUs += us;
  if (atUs < skipUs) return;
  totalUs += us;
  const f = frames.get(id);
  if (!f) return;
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
print('self time by file', byFile);
print('self time by function', byFunction);
print('inclusive time by function (the function anywhere on the stack)', inclusive);
