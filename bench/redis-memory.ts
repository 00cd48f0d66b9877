// `npm run bench -- --scenario redis-memory [--minutes 10] [--short] [--warmup-seconds 60]
// [--sample-seconds 5] [--load-per-tick 150] [--seed 7] [--bounds scaled|defaults]` (issue 31): does Redis stay flat under one
// daemon at saturation? One `stratd venue` process, one `stratd run` process whose only strategy
// (bench/load-strategy.mjs) decides `--load-per-tick` small decreases of one large position per
// positions snapshot, every second, and a redis-server of this run's own (no persistence; the
// shipped compose file's maxmemory 512mb and noeviction), so its used_memory is this daemon's and
// nothing else's. used_memory is sampled every few seconds; the report gives memory after the
// warm-up, at the end, the growth between them (goal: within +10 %), the peak, and the action rate.
// `--short` runs 2.5 minutes (1 of warm-up) to see that it works; the figure of record is the
// default 10 minutes after a 1-minute warm-up. Writes bench/results/redis-memory.json.
// `--bounds scaled` (the default) runs the daemon with every count bound of Redis a small fraction
// of its default (BOUNDS below), so the steady state — every bounded structure at its bound — is
// reached within the warm-up and the measured window shows whether anything grows beyond its
// bound; at the defaults the same steady state is reached only after about an hour at this rate
// (docs/operations.md gives its size). `--bounds defaults` runs with the defaults.
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Keypair } from '@solana/web3.js';
import { writeKeyFile } from '../src/chain/signer.ts';
import { connectRedis } from '../src/kernel/redis.ts';
import { readRedisMemory } from '../src/kernel/redis-memory.ts';
import { freePort, startDaemonProcess, type DaemonProcess } from './daemon-process.ts';
import { fundWallet, startVenueProcess, type BenchVenue } from './daemon-venue.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    short: { type: 'boolean', default: false },
    'warmup-seconds': { type: 'string' },
    'sample-seconds': { type: 'string', default: '5' },
    'load-per-tick': { type: 'string', default: '150' },
    seed: { type: 'string', default: '7' },
    bounds: { type: 'string', default: 'scaled' },
    out: { type: 'string', default: 'bench/results/redis-memory.json' },
  },
});
function bounded(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < min || n > max) throw new RangeError(`--${name} must be a number from ${min} to ${max}`);
  return n;
}
const MEASURED_SECONDS = values.short ? 90 : bounded('minutes', values.minutes, 1, 240) * 60;
// Scaled, settled records stay 2 minutes at least (archive.minAgeMs's floor): the warm-up outlasts that.
const WARMUP_SECONDS = bounded('warmup-seconds', values['warmup-seconds'] ?? (values.bounds === 'scaled' ? '150' : '60'), 10, 1_800);
const SAMPLE_MS = bounded('sample-seconds', values['sample-seconds'], 1, 60) * 1000;
const PER_TICK = bounded('load-per-tick', values['load-per-tick'], 1, 2_000);
const SEED = bounded('seed', values.seed, 0, 1_000_000);
if (values.bounds !== 'scaled' && values.bounds !== 'defaults') throw new RangeError('--bounds must be scaled or defaults');
/**
 * The scaled bounds: open actions, settled records, finished jobs and the ledger each a small
 * fraction of its default, and settled records kept 2 minutes at least (the floor of
 * archive.minAgeMs) instead of 3, so the warm-up (150 s by default) reaches every bound.
 */
const BOUNDS: Readonly<Record<string, number>> =
  values.bounds === 'scaled'
    ? { 'execution.maxOpenActions': 500, 'execution.maxSettledRecords': 500, 'execution.retainedJobs': 500, 'ledger.maxLen': 5_000, 'archive.minAgeMs': 120_000 }
    : {};
const LOAD_STRATEGY = fileURLToPath(new URL('./load-strategy.mjs', import.meta.url));
/** As deploy's compose file runs Redis. */
const MAXMEMORY = '512mb';

interface Sample {
  readonly atMs: number;
  readonly usedBytes: number;
}

/** The run's own redis-server on a free port, no persistence; resolves once it answers. */
async function startRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory', MAXMEMORY, '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.once('exit', () => child.kill('SIGKILL'));
  const url = `redis://127.0.0.1:${port}`;
  const probe = connectRedis(url, { retryStrategy: () => 50 });
  probe.on('error', () => undefined);
  const deadline = Date.now() + 10_000;
  while ((await probe.ping().catch(() => 'down')) !== 'PONG') {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('redis-server did not start (is it installed?)');
    await sleep(50);
  }
  probe.disconnect();
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const mb = (bytes: number) => bytes / 1_048_576;

/** MEMORY USAGE of every key of the run's Redis, summed by family ("{p}:action:…" → action), largest first, MB. */
async function memoryByFamily(redis: ReturnType<typeof connectRedis>): Promise<Record<string, number>> {
  const totals = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory('USAGE', key);
    const sizes = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      const family = /^\{[^}]*\}:([^:]+)/.exec(key)?.[1] ?? key.split(':')[0]!;
      totals.set(family, (totals.get(family) ?? 0) + Number(sizes[i]?.[1] ?? 0));
    });
  } while (cursor !== '0');
  return Object.fromEntries([...totals].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Number(mb(v).toFixed(2))]));
}

/** The daemon's actions by outcome so far, those still open, and the decisions it shed, from its /metrics. */
async function actionOutcomes(opsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const [, outcome, value] of text.matchAll(/^stratd_actions_total\{[^}]*outcome="([^"]+)"[^}]*\} (\S+)$/gm)) out[outcome!] = (out[outcome!] ?? 0) + Number(value);
  for (const [, value] of text.matchAll(/^stratd_open_actions\{[^}]*\} (\S+)$/gm)) out.open = (out.open ?? 0) + Number(value);
  out.shed = 0;
  for (const [, value] of text.matchAll(/^stratd_decisions_shed_total\{[^}]*\} (\S+)$/gm)) out.shed += Number(value);
  return out;
}
/**
 * Why rejected actions of the ledger were rejected, by reason, among its oldest or its newest 5,000
 * entries still in Redis: what a low landed rate is made of.
 */
async function rejectionReasons(redis: ReturnType<typeof connectRedis>, end: 'oldest' | 'newest'): Promise<Record<string, number>> {
  const key = '{bench-redis-memory}:ledger';
  const entries = end === 'oldest' ? await redis.xrange(key, '-', '+', 'COUNT', 5_000) : await redis.xrevrange(key, '+', '-', 'COUNT', 5_000);
  const out: Record<string, number> = {};
  for (const [, fields] of entries) {
    const entry = JSON.parse(fields[1] ?? '{}') as { state?: string; detail?: { reason?: unknown } };
    if (entry.state !== 'rejected' && entry.state !== 'expired') continue;
    const reason = `${entry.state}:${typeof entry.detail?.reason === 'string' ? entry.detail.reason : '?'}`;
    out[reason] = (out[reason] ?? 0) + 1;
  }
  return out;
}
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  const build = spawnSync(process.execPath, ['bin/build.js', '--if-stale'], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`bin/build.js failed:\n${build.stdout}${build.stderr}`);
  const dir = await mkdtemp(join(tmpdir(), 'stratd-bench-redis-memory-'));
  const server = await startRedis();
  const redis = connectRedis(server.url);
  let venue: BenchVenue | undefined;
  let daemon: DaemonProcess | undefined;
  try {
    venue = await startVenueProcess({ seed: SEED, slotMs: 100, keeperDelayMs: 250 });
    const keypair = Keypair.generate();
    const keyFile = join(dir, 'wallet.json');
    await writeKeyFile(keyFile, keypair);
    // One SOL long with $100,000 of collateral, 30 % from liquidation: the load's $1 decreases last the run.
    await fundWallet(venue.apiUrl, keypair.publicKey.toBase58(), [{ market: 'SOL', side: 'long', collateralUsd: '100000000000' }], true, '30');
    const unlimitedUsd = '1000000000000000';
    daemon = await startDaemonProcess(
      {
        mode: 'paper',
        'api.baseUrl': venue.apiUrl,
        'rpc.url': venue.rpcUrl,
        'api.requestsPerSecond': 1000,
        'redis.prefix': 'bench-redis-memory',
        'wallet.paperKeyFile': keyFile,
        'venue.seedWallet': false,
        'log.level': 'warn',
        'pollers.positions.cron': '* * * * * *',
        'strategies.modules': [LOAD_STRATEGY],
        'strategies.enabled': ['bench-load'],
        'strategies.settings': { 'bench-load': { perTick: PER_TICK } },
        'risk.maxActionsPerStrategyPerHour': 1_000_000,
        'risk.maxNotionalPerActionUsd': unlimitedUsd,
        'risk.maxNotionalPerHourUsd': unlimitedUsd,
        'risk.dailyLossStopUsd': unlimitedUsd,
        // A memory benchmark, not a breaker test: concurrent decreases of one wallet can be refused by the
        // balance-delta check (its balance moves between the pre-state read and the simulation), and five
        // in a row would trip the load strategy's breaker and turn the run into refusals (docs/operations.md).
        'risk.circuitBreakerRejections': 1_000_000,
        // The venue's node simulates every decrease before it is signed; on a loaded host that takes
        // longer than the 300 ms a protective action waits in production, and each simulation_unavailable
        // is a policy rejection that soon trips the load strategy's circuit breaker (every later
        // decision refused at accept: the run would measure refusals, not actions).
        'policy.simulation.protectiveTimeoutMs': 5_000,
        // The archive goes to this run's folder, removed at the end, not under the repository's var/.
        'archive.dir': join(dir, 'archive'),
        ...BOUNDS,
      },
      server.url,
    );
    const startedAt = Date.now();
    const warmEndsAt = startedAt + WARMUP_SECONDS * 1000;
    const endsAt = warmEndsAt + MEASURED_SECONDS * 1000;
    const samples: Sample[] = [];
    console.log(`redis-memory: ${WARMUP_SECONDS} s warm-up, then ${MEASURED_SECONDS} s measured, a sample every ${SAMPLE_MS / 1000} s (load ${PER_TICK} decisions a second)`);
    // Memory on its own clock (this run's Redis answers at once); the daemon's counters, which a
    // saturated daemon serves slowly, only where the action rate is measured: warm-up's end and the end.
    let landedAtWarmEnd: Promise<{ atMs: number; landed: number; shed: number }> | undefined;
    let nextPrintMs = startedAt;
    for (;;) {
      const memory = await readRedisMemory(redis);
      const atMs = Date.now();
      samples.push({ atMs, usedBytes: memory.usedBytes });
      if (atMs >= warmEndsAt) landedAtWarmEnd ??= Promise.all([daemon.counters(), actionOutcomes(daemon.opsUrl)]).then(([c, o]) => ({ atMs: Date.now(), landed: c.landed, shed: o.shed ?? 0 }));
      if (atMs >= nextPrintMs) {
        console.log(`  +${Math.round((atMs - startedAt) / 1000)} s  used_memory ${mb(memory.usedBytes).toFixed(1)} MB`);
        nextPrintMs += 30_000;
      }
      if (atMs >= endsAt) break;
      await sleep(Math.min(SAMPLE_MS, Math.max(0, endsAt - Date.now())));
    }
    const [byFamily, outcomes, rejections] = await Promise.all([memoryByFamily(redis), actionOutcomes(daemon.opsUrl), Promise.all([rejectionReasons(redis, 'oldest'), rejectionReasons(redis, 'newest')]).then(([oldest, newest]) => ({ oldest, newest }))]);
    const rateFrom = await landedAtWarmEnd!;
    const rateTo = { landed: (await daemon.counters()).landed, shed: outcomes.shed ?? 0, atMs: Date.now() };
    const measured = samples.filter((s) => s.atMs >= warmEndsAt);
    if (measured.length < 4) throw new Error('too few samples after the warm-up');
    // Three samples each end, so one sample taken mid-burst does not decide the figure.
    const afterWarmup = mean(measured.slice(0, 3).map((s) => s.usedBytes));
    const atEnd = mean(measured.slice(-3).map((s) => s.usedBytes));
    const windowSeconds = (measured.at(-1)!.atMs - measured[0]!.atMs) / 1000;
    const landedPerSecond = (rateTo.landed - rateFrom.landed) / ((rateTo.atMs - rateFrom.atMs) / 1000);
    const shedPerSecond = (rateTo.shed - rateFrom.shed) / ((rateTo.atMs - rateFrom.atMs) / 1000);
    const report = {
      takenAt: new Date().toISOString(),
      command: `npm run bench -- --scenario redis-memory ${values.short ? '--short' : `--minutes ${MEASURED_SECONDS / 60}`} --warmup-seconds ${WARMUP_SECONDS} --sample-seconds ${SAMPLE_MS / 1000} --load-per-tick ${PER_TICK} --seed ${SEED} --bounds ${values.bounds}`,
      /** The bounds the daemon ran with beyond its defaults (--bounds scaled). */
      bounds: BOUNDS,
      machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version },
      maxmemory: MAXMEMORY,
      warmupSeconds: WARMUP_SECONDS,
      measuredSeconds: windowSeconds,
      samples: samples.length,
      afterWarmupMb: mb(afterWarmup),
      atEndMb: mb(atEnd),
      growthPct: ((atEnd - afterWarmup) / afterWarmup) * 100,
      peakMb: mb(Math.max(...samples.map((s) => s.usedBytes))),
      landedPerSecond,
      landedPerMinute: landedPerSecond * 60,
      shedPerSecond,
      growthMbPerMinute: mb(atEnd - afterWarmup) / (windowSeconds / 60),
      flat: ((atEnd - afterWarmup) / afterWarmup) * 100 <= 10,
      /** What holds the memory at the end: MEMORY USAGE summed by the key's first segment after the prefix. */
      byFamilyMb: byFamily,
      /** stratd_actions_total by outcome and stratd_open_actions at the end: decided is not landed. */
      actions: outcomes,
      /** Rejections and expiries among the oldest and the newest entries the ledger still holds, by reason. */
      rejections,
    };
    console.log(`
Redis memory, one daemon at saturation (${report.command})
  after warm-up      ${report.afterWarmupMb.toFixed(1)} MB
  at the end         ${report.atEndMb.toFixed(1)} MB   (${windowSeconds.toFixed(0)} s later)
  growth             ${report.growthPct >= 0 ? '+' : ''}${report.growthPct.toFixed(1)} %  (${report.growthMbPerMinute.toFixed(2)} MB a minute)  goal: within +10 %: ${report.flat ? 'MET' : 'NOT MET'}
  peak               ${report.peakMb.toFixed(1)} MB  (maxmemory ${MAXMEMORY})
  bounds             ${Object.entries(BOUNDS).map(([k, v]) => `${k} ${v}`).join(', ') || 'the defaults'}
  actions landed     ${report.landedPerSecond.toFixed(1)}/s  (${report.landedPerMinute.toFixed(0)} a minute)
  decisions shed     ${report.shedPerSecond.toFixed(1)}/s  (execution.maxOpenActions reached)
  actions by outcome ${Object.entries(outcomes).map(([k, v]) => `${k} ${v}`).join(', ')}
  rejections         oldest in Redis: ${Object.entries(rejections.oldest).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}; newest: ${Object.entries(rejections.newest).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}
  held at the end    ${Object.entries(byFamily).slice(0, 8).map(([k, v]) => `${k} ${v.toFixed(1)} MB`).join(', ')}`);
    await mkdir(join(values.out, '..'), { recursive: true });
    await writeFile(values.out, `${JSON.stringify({ ...report, series: samples.map((s) => ({ s: Math.round((s.atMs - startedAt) / 1000), mb: Number(mb(s.usedBytes).toFixed(2)) })) }, null, 2)}\n`);
    console.log(`written: ${values.out}`);
  } finally {
    await daemon?.stop();
    await venue?.close();
    redis.disconnect();
    // The run's own server goes, and its keys with it: nothing is left in any other Redis.
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

// Bounded in time whatever happens: a hung run must not hold `npm run bench` forever.
const deadline = setTimeout(
  () => {
    console.error('bench/redis-memory.ts: overran its time; giving up');
    process.exit(1);
  },
  (WARMUP_SECONDS + MEASURED_SECONDS + 180) * 1000,
);
deadline.unref();
try {
  await main();
} catch (error) {
  console.error('bench/redis-memory.ts failed:', error);
  process.exitCode = 1;
}
