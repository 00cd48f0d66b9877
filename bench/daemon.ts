// `npm run bench` (through bench/index.ts) or `node bin/run-ts.js bench/daemon.ts [--latency-seconds 60]
// [--seconds 30] [--daemons 3] [--floor-samples 30] [--seed 7] [--executor-concurrency 128,256]`: one bounded run against ONE `stratd venue`
// process on loopback, in three parts measured the same way:
//   1. the floor: the minimal path (bench/floor.ts), no queues, none of the executor's classes;
//   2. latency: one `stratd run` process, one wallet, the default poll cadence, one position near liquidation;
//   3. throughput: N `stratd run` processes (one wallet each: the daemon holds one hot wallet), six positions
//      per wallet, every poller source every second.
//   3b. busy: one `stratd run` process, one wallet, six positions near liquidation, every poller source
//      every second, the shipped guard closing them (issue 30): tick-to-submit under a realistic load.
//   4. idle: the throughput deployment again with every position far from liquidation (what polling costs
//      without actions), so that the CPU of an action itself can be told from the polling around it.
//   5. the strategy worker's rate, in this process;
//   6. the executor alone at saturation, in this process (bench/executor-rate.ts): what an action costs when
//      actions are not limited by how often positions are polled.
//   7. one daemon at saturation: one `stratd run` process whose only strategy (bench/load-strategy.mjs)
//      decides `--load-per-tick` small decreases of one large position per positions snapshot, every
//      second: the whole daemon's capacity (landed/s) and CPU per landed action, one run per number.
// Prints a table and writes bench/results/latest.json. How to read it: docs/operations.md, "Benchmark".
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Keypair } from '@solana/web3.js';
import { pino } from 'pino';
import { ApiClient } from '../src/api/client.ts';
import { writeKeyFile } from '../src/chain/signer.ts';
import { loadConfig } from '../src/config/index.ts';
import { createLogger } from '../src/kernel/logger.ts';
import { keyPrefix } from '../src/pipeline/queues.ts';
import { connectRedis } from '../src/kernel/redis.ts';
import { SNAPSHOT_KINDS } from '../src/sdk/snapshot.ts';
import { loadStrategiesOrThrow } from '../src/pipeline/strategy-runtime/loader.ts';
import { actionSamples, actionTimings, STAGES, stageP50, tickToSubmit, type ActionTiming, type LatencySummary } from './action-timings.ts';
import { startDaemonProcess, type DaemonCounters, type DaemonProcess } from './daemon-process.ts';
import { ALL_POSITIONS, fundWallet, keepPositionsOpen, startVenueProcess, type BenchVenue, type SeedPosition } from './daemon-venue.ts';
import { runFloor } from './floor.ts';
import { cpuMs, ioSyscalls, memory, type Memory } from './proc-stats.ts';
import { printBusy, printReport, type DeploymentFigures, type Report } from './report.ts';
import { executorRate } from './executor-rate.ts';
import { hostSpeed, timeWorkload } from './host-speed.ts';
import { strategyRate } from './strategy-rate.ts';
import { simulationCost } from './simulation-cost.ts';

const { values } = parseArgs({
  options: {
    'latency-seconds': { type: 'string', default: '60' },
    seconds: { type: 'string', default: '30' },
    daemons: { type: 'string', default: '3' },
    'floor-samples': { type: 'string', default: '30' },
    seed: { type: 'string', default: '7' },
    out: { type: 'string', default: 'bench/results/latest.json' },
    /** Write a V8 CPU profile of every daemon into this directory (node --cpu-prof), to see where the CPU goes. */
    'cpu-prof': { type: 'string' },
    /**
     * What the throughput and idle deployments poll every second: `all` sources (the default: the
     * cost of polling shows), or only `positions` (the others at their default cadence: what an
     * action costs in a deployment tuned to react fast).
     */
    'throughput-polls': { type: 'string', default: 'all' },
    /**
     * Actions the executor-alone part keeps in flight, one run per number (comma-separated). Each
     * action takes most of a second (the keeper fills after 250 ms, the next confirmation poll sees
     * it), so a run's rate is its number over that second until the process's CPU is the limit:
     * 128 → 138–171/s, 192 → 179–189/s, 256 → 205/s on a 2-core Intel Xeon; 128 → 129/s, 192 →
     * 174/s, 256 → 179/s on a 2-core AMD EPYC. 128 is below saturation on both: the rate it
     * reaches is the number in flight, not what the CPU allows. The run with the most landed/s is
     * the executor's capacity.
     */
    'executor-concurrency': { type: 'string', default: '128,256' },
    /**
     * Decisions per second of the saturation deployment, one run per number (comma-separated): the
     * load strategy's decreases per positions snapshot, polled every second. Above what the daemon
     * carries the excess waits its turn (execution.maxPreparingActions) and costs its accept; the
     * run with the most landed/s is the daemon's capacity.
     */
    'load-per-tick': { type: 'string', default: '150,250' },
    /**
     * Only the cost of the signing policy's simulation check: the latency deployment twice on one
     * venue (policy.simulation.enabled off, then on) and the check alone in this process
     * (bench/simulation-cost.ts); writes bench/results/simulation.json. Nothing else runs.
     */
    'simulation-only': { type: 'boolean', default: false },
    /** The busy part's measured window, seconds (one daemon, six positions, every source every second). */
    'busy-seconds': { type: 'string', default: '30' },
    /**
     * Only the floor and the busy part (a quick look at issue 30's figures while working on them);
     * nothing else runs and no report file is written.
     */
    'busy-only': { type: 'boolean', default: false },
    /** Write every measured action's stage times of each deployment to `<this>-<part>.json` (which step the actions of one tick waited on). */
    'timings-out': { type: 'string' },
    /** Extra settings of every daemon, `key=value` (JSON values allowed), e.g. --daemon-set execution.maxPreparingActions=4. */
    'daemon-set': { type: 'string', multiple: true, default: [] },
    /**
     * Every API operation and RPC method of the venue answers this many ms late (its latency
     * fault): a service across a network, where a round trip costs more than the work behind it.
     * The floor gets the same delay. 0 (default): the venue on this host answers at once.
     */
    'network-ms': { type: 'string', default: '0' },
    /** Extra node flags for the daemons (space-separated), e.g. "--max-semi-space-size=2". */
    'daemon-node-args': { type: 'string', default: '' },
  },
});
function bounded(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new RangeError(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}
const LATENCY_SECONDS = bounded('latency-seconds', values['latency-seconds'], 10, 300);
const SECONDS = bounded('seconds', values.seconds, 5, 120);
const DAEMONS = bounded('daemons', values.daemons, 1, 8);
const BUSY_SECONDS = bounded('busy-seconds', values['busy-seconds'], 5, 120);
const FLOOR_SAMPLES = bounded('floor-samples', values['floor-samples'], 5, 500);
const SEED = bounded('seed', values.seed, 0, 1_000_000);
const NETWORK_MS = bounded('network-ms', values['network-ms'], 0, 1_000);
const EXECUTOR_CONCURRENCY = values['executor-concurrency'].split(',').map((n) => bounded('executor-concurrency', n.trim(), 1, 1024));
const LOAD_PER_TICK = values['load-per-tick'].split(',').map((n) => bounded('load-per-tick', n.trim(), 1, 2000));
const pollsArg = values['throughput-polls'];
if (pollsArg !== 'all' && pollsArg !== 'positions') throw new RangeError('--throughput-polls must be all or positions');
const THROUGHPUT_POLLS: 'all' | 'positions' = pollsArg;
const WARMUP_MS = 5_000;
const VENUE = { seed: SEED, slotMs: 100, keeperDelayMs: 250 };
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN = `stratd-bench-${process.pid}-${Date.now()}`;
const SOL_LONG: readonly SeedPosition[] = [{ market: 'SOL', side: 'long' }];

const logger = createLogger({ level: 'error', destination: pino.destination(2) });
const redis = connectRedis(REDIS_URL);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Processes this run started, so a run that overstays its deadline can still end them. */
const children = new Set<number>();
const prefixes: string[] = [];

/**
 * The daemon's settings: the defaults, except the venue's URLs, a request budget the venue can
 * take, the guard acting on every near position with no cooldown (so the load keeps going) and a
 * risk gate that does not stop the load. `everySecond` polls every source every second (throughput).
 */
function daemonSettings(venue: BenchVenue, redisPrefix: string, keyFile: string, everySecond: boolean, load?: Load, simulation = true): Record<string, string | number | boolean | object> {
  const unlimitedUsd = '1000000000000000';
  const settings: Record<string, string | number | boolean | object> = {
    mode: 'paper',
    'policy.simulation.enabled': simulation,
    'api.baseUrl': venue.apiUrl,
    'rpc.url': venue.rpcUrl,
    'api.requestsPerSecond': 500,
    'redis.prefix': redisPrefix,
    'wallet.paperKeyFile': keyFile,
    // What leaves Redis goes to the run's own folder (removed with it), not to the working directory's var/.
    'archive.dir': join(dirname(keyFile), 'archive'),
    'venue.seedWallet': false,
    'log.level': 'warn',
    ...(everySecond ? Object.fromEntries(SNAPSHOT_KINDS.filter((kind) => THROUGHPUT_POLLS === 'all' || kind === 'positions').map((kind) => [`pollers.${kind}.cron`, '* * * * * *'])) : {}),
    'strategies.settings': { 'liquidation-guard': { distanceBps: 500, action: 'entire', cooldownMs: 0 } },
    'risk.maxActionsPerStrategyPerHour': 1_000_000,
    'risk.maxNotionalPerActionUsd': unlimitedUsd,
    'risk.maxNotionalPerHourUsd': unlimitedUsd,
    'risk.dailyLossStopUsd': unlimitedUsd,
  };
  for (const set of values['daemon-set']) {
    const at = set.indexOf('=');
    if (at <= 0) throw new RangeError(`--daemon-set must be key=value: ${set}`);
    settings[set.slice(0, at)] = set.slice(at + 1);
  }
  if (!load) return settings;
  // The saturation deployment: the load strategy alone, positions read every second (the other
  // sources at their defaults), and a request budget that does not limit ~2 requests per action.
  for (const kind of SNAPSHOT_KINDS) delete settings[`pollers.${kind}.cron`];
  return {
    ...settings,
    'pollers.positions.cron': '* * * * * *',
    'api.requestsPerSecond': 1000,
    'strategies.modules': [LOAD_STRATEGY],
    'strategies.enabled': ['bench-load'],
    'strategies.settings': { 'bench-load': { perTick: load.perTick } },
  };
}

/** The saturation deployment's load: decisions per positions snapshot (one a second). */
interface Load {
  readonly perTick: number;
}
const LOAD_STRATEGY = fileURLToPath(new URL('./load-strategy.mjs', import.meta.url));
/** One SOL long, $100,000 of collateral (opened 30 % from liquidation): hundreds of thousands of $1 decreases fit in it. */
const LOAD_POSITIONS: readonly SeedPosition[] = [{ market: 'SOL', side: 'long', collateralUsd: '100000000000' }];

async function newWallet(dir: string, name: string, apiUrl: string, positions: readonly SeedPosition[], distancePct?: string): Promise<{ keypair: Keypair; keyFile: string; address: string }> {
  const keypair = Keypair.generate();
  const keyFile = join(dir, `${name}.json`);
  await writeKeyFile(keyFile, keypair);
  await fundWallet(apiUrl, keypair.publicKey.toBase58(), positions, true, distancePct);
  return { keypair, keyFile, address: keypair.publicKey.toBase58() };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * Runs `count` daemons (one wallet each, `positions` kept open) for a warm-up and a measured window;
 * everything is read over the window only, CPU time and memory from /proc.
 */
async function deployment(label: string, venue: BenchVenue, client: ApiClient, dir: string, count: number, positions: readonly SeedPosition[], everySecond: boolean, seconds: number, distancePct?: string, load?: Load, simulation = true): Promise<DeploymentFigures> {
  const wallets = [];
  for (let i = 0; i < count; i++) wallets.push(await newWallet(dir, `${label}-${i}`, venue.apiUrl, positions, distancePct));
  const runPrefixes = wallets.map((_, i) => `${RUN}-${label}-${i}`);
  prefixes.push(...runPrefixes.map(keyPrefix));
  const daemons: DaemonProcess[] = [];
  try {
    // One after the other: each start-up time is the process's own, not a fight for the CPU.
    for (const [i, wallet] of wallets.entries()) {
      const profile = [...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []), ...values['daemon-node-args'].split(' ').filter(Boolean)];
      const daemon = await startDaemonProcess(daemonSettings(venue, runPrefixes[i]!, wallet.keyFile, everySecond, load, simulation), REDIS_URL, profile);
      children.add(daemon.pid);
      daemons.push(daemon);
    }
    // The load's one large position outlasts the run; the guard's positions are opened again as their decreases land.
    const keeper = load ? undefined : keepPositionsOpen(client, venue.apiUrl, wallets.map((w) => w.address), positions, 100, (err) => logger.error({ err }, 'reopening positions failed'));
    await sleep(WARMUP_MS);
    const cpu = async () => ({ daemons: await Promise.all(daemons.map((d) => cpuMs(d.pid))), venue: await cpuMs(venue.pid), syscalls: await Promise.all(daemons.map((d) => ioSyscalls(d.pid))) });
    const startAt = Date.now();
    const [before, cpuBefore] = [await Promise.all(daemons.map((d) => d.counters())), await cpu()];
    await sleep(seconds * 1000);
    const [after, cpuAfter] = [await Promise.all(daemons.map((d) => d.counters())), await cpu()];
    const endAt = Date.now();
    // With --timings-out, each daemon's /metrics too: its API and RPC calls by operation and method
    // (round trips per action: counts over the whole run, divide by the submitted actions).
    if (values['timings-out']) for (const [i, d] of daemons.entries()) await writeFile(`${values['timings-out']}-${label}-${i}.metrics.txt`, await (await fetch(`${d.opsUrl}/metrics`)).text());
    const mem = (await Promise.all(daemons.map((d) => memory(d.pid)))).filter((m): m is Memory => m !== undefined);
    await keeper?.stop();
    await Promise.all(daemons.map((d) => d.stop()));
    const timings: ActionTiming[] = [];
    for (const prefix of runPrefixes.map(keyPrefix)) timings.push(...(await actionTimings(redis, prefix)).filter((t) => t.submittedAtMs >= startAt && t.submittedAtMs <= endAt));
    if (values['timings-out']) await writeFile(`${values['timings-out']}-${label}.json`, JSON.stringify(timings));
    const window = (endAt - startAt) / 1000;
    const delta = (pick: (c: DaemonCounters) => number) => sum(after.map(pick)) - sum(before.map(pick));
    const landed = delta((c) => c.landed);
    const daemonCpu = sum(cpuAfter.daemons.map((v, i) => (v ?? Number.NaN) - (cpuBefore.daemons[i] ?? Number.NaN)));
    const venueCpu = (cpuAfter.venue ?? Number.NaN) - (cpuBefore.venue ?? Number.NaN);
    const daemonSyscalls = sum(cpuAfter.syscalls.map((v, i) => (v ?? Number.NaN) - (cpuBefore.syscalls[i] ?? Number.NaN)));
    return {
      daemons: count,
      wallets: count,
      positionsPerWallet: positions.length,
      windowSeconds: window,
      tickToSubmit: tickToSubmit(timings),
      stageP50Ms: Object.fromEntries(STAGES.map((stage) => [stage[0], stageP50(timings, stage)])),
      // Every action of a small run, in the order they were submitted, with its stages: a p99 of a
      // dozen actions is their slowest one, and this says where its time went.
      ...(timings.length <= 100 ? { actions: actionSamples(timings) } : {}),
      ...(load ? { decisionsPerSecond: load.perTick } : {}),
      submitted: delta((c) => c.submitted),
      landed,
      landedPerSecond: landed / window,
      snapshotJobsPerSecondPerProcess: after.map((c, i) => (c.snapshotsProcessed - before[i]!.snapshotsProcessed) / window),
      daemonCpuMsPerLanded: daemonCpu / landed,
      venueCpuMsPerLanded: venueCpu / landed,
      daemonCpuPercent: (daemonCpu / (window * 1000)) * 100,
      daemonSyscallsPerSecond: daemonSyscalls / window,
      venueCpuPercent: (venueCpu / (window * 1000)) * 100,
      peakRssMb: mem.map((m) => m.peakRssBytes / 1_048_576),
      rssAfterMb: mem.map((m) => m.rssBytes / 1_048_576),
      readyMs: daemons.map((d) => d.readyMs),
    };
  } catch (error) {
    for (const daemon of daemons) console.error(`--- stratd run pid ${daemon.pid} (last output)\n${daemon.output()}`);
    throw error;
  } finally {
    await Promise.all(daemons.map((d) => d.stop()));
  }
}

async function deletePrefix(prefix: string): Promise<void> {
  const pattern = `${prefix.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`)}*`;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

/** The venue's latency fault on every API operation and RPC method (--network-ms). */
async function delayEveryCall(apiUrl: string, ms: number): Promise<void> {
  const patch = { operations: { '*': { latencyMs: ms } }, rpc: { methods: { '*': { latencyMs: ms } } } };
  const res = await fetch(`${apiUrl}/__venue/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(patch) });
  if (!res.ok) throw new Error(`the venue refused the --network-ms fault: ${String(res.status)} ${await res.text()}`);
}

async function main(): Promise<void> {
  // The daemons run dist/ as npm start does: compile it first if stale, so no start-up time includes a build.
  const build = spawnSync(process.execPath, ['bin/build.js', '--if-stale'], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`bin/build.js failed:\n${build.stdout}${build.stderr}`);
  const loadBefore = loadavg();
  // Before anything else runs here: the host's speed, timed again after the run.
  const workloadMsBefore = timeWorkload();
  const dir = await mkdtemp(join(tmpdir(), 'stratd-bench-'));
  // With --cpu-prof the venue is profiled too: a busy daemon's actions wait on its answers.
  const venue = await startVenueProcess(VENUE, values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []);
  children.add(venue.pid);
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 1 });
  try {
    if (NETWORK_MS > 0) await delayEveryCall(venue.apiUrl, NETWORK_MS);
    if (values['simulation-only']) {
      const off = await deployment('latency-simulation-off', venue, client, dir, 1, SOL_LONG, false, LATENCY_SECONDS, undefined, undefined, false);
      const on = await deployment('latency-simulation-on', venue, client, dir, 1, SOL_LONG, false, LATENCY_SECONDS, undefined, undefined, true);
      const cost = await simulationCost(venue.apiUrl, venue.rpcUrl, 300);
      const figures = {
        takenAt: new Date().toISOString(),
        command: `node bin/run-ts.js bench/daemon.ts --simulation-only --latency-seconds ${LATENCY_SECONDS} --seed ${SEED}${NETWORK_MS > 0 ? ` --network-ms ${NETWORK_MS}` : ''}`,
        networkMs: NETWORK_MS,
        machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverageBefore: loadBefore, loadAverageAfter: loadavg() },
        tickToSubmitMs: { simulationOff: off.tickToSubmit, simulationOn: on.tickToSubmit, p50Ratio: on.tickToSubmit.p50 / off.tickToSubmit.p50 },
        inspectAndSignP50Ms: { simulationOff: off.stageP50Ms['built → inspected → signed'], simulationOn: on.stageP50Ms['built → inspected → signed'] },
        simulationCheckMs: cost.checks,
        simulationOutcomes: cost.outcomes,
      };
      console.log(JSON.stringify(figures, null, 2));
      const out = join(values.out, '..', 'simulation.json');
      await mkdir(join(out, '..'), { recursive: true });
      await writeFile(out, `${JSON.stringify(figures, null, 2)}\n`);
      console.log(`\nwritten: ${out}`);
      return;
    }
    // ---------------------------------------------------------------- 1. the floor
    const floorWallet = await newWallet(dir, 'floor', venue.apiUrl, SOL_LONG);
    const floorPrefix = keyPrefix(`${RUN}-floor`);
    prefixes.push(floorPrefix);
    const floor: LatencySummary = await runFloor({
      apiUrl: venue.apiUrl,
      rpcUrl: venue.rpcUrl,
      redis,
      prefix: floorPrefix,
      keypair: floorWallet.keypair,
      samples: FLOOR_SAMPLES,
      warmup: 3,
      deadlineMs: Date.now() + 90_000,
      reopen: () => fundWallet(venue.apiUrl, floorWallet.address, SOL_LONG, false),
    });

    // The same minimal path for the busy part's load: six decreases from one reply, all at once.
    // A reference (what any client of this venue on this host gets), not the goal's divisor.
    const floorSixWallet = await newWallet(dir, 'floor-six', venue.apiUrl, ALL_POSITIONS);
    const floorSix: LatencySummary = await runFloor({
      apiUrl: venue.apiUrl,
      rpcUrl: venue.rpcUrl,
      redis,
      prefix: floorPrefix,
      keypair: floorSixWallet.keypair,
      samples: Math.max(3, Math.ceil(FLOOR_SAMPLES / 6)),
      warmup: 1,
      deadlineMs: Date.now() + 90_000,
      concurrent: true,
      reopen: () => fundWallet(venue.apiUrl, floorSixWallet.address, ALL_POSITIONS, false),
    });

    if (values['busy-only']) {
      const busy = await deployment('busy', venue, client, dir, 1, ALL_POSITIONS, true, BUSY_SECONDS);
      await venue.close();
      const speed = hostSpeed(workloadMsBefore, timeWorkload());
      printBusy(floor, floorSix, busy, speed);
      if (NETWORK_MS > 0) console.log(`every API and RPC call answered ${String(NETWORK_MS)} ms late (--network-ms), the floor's too`);
      return;
    }

    // ---------------------------------------------------------------- 2. latency, 3. throughput
    const latency = await deployment('latency', venue, client, dir, 1, SOL_LONG, false, LATENCY_SECONDS);
    // One daemon under the throughput run's load per wallet: six positions, every source every second.
    const busy = await deployment('busy', venue, client, dir, 1, ALL_POSITIONS, true, BUSY_SECONDS);
    const throughput = await deployment('throughput', venue, client, dir, DAEMONS, ALL_POSITIONS, true, SECONDS);
    // The same deployment with every position far from liquidation: what polling every source every
    // second costs without any action, so that the cost of an action itself can be told apart.
    const idle = await deployment('idle', venue, client, dir, DAEMONS, ALL_POSITIONS, true, Math.min(SECONDS, 15), '30');

    // ---------------------------------------------------------------- 4. the strategy worker's rate
    const rateWallet = await newWallet(dir, 'rate', venue.apiUrl, ALL_POSITIONS, '30');
    const ratePrefix = `${RUN}-rate`;
    prefixes.push(keyPrefix(ratePrefix));
    const { config } = loadConfig({ env: {}, overrides: { ...daemonSettings(venue, ratePrefix, rateWallet.keyFile, false), 'redis.url': REDIS_URL } });
    const strategies = await loadStrategiesOrThrow({ dir: config.strategies.dir, enabled: config.strategies.enabled, settings: config.strategies.settings });
    const positions = (await client.call('perps.positions', { walletAddress: rateWallet.address })).dataList;
    const rate = await strategyRate({ config, redis, prefix: keyPrefix(ratePrefix), strategies, logger, wallet: rateWallet.address, positions, seconds: 3 });

    // ---------------------------------------------------------------- 6. the executor alone at saturation
    const executorPrefix = `${RUN}-executor`;
    const executorAloneRuns = [];
    for (const [i, concurrency] of EXECUTOR_CONCURRENCY.entries()) {
      // Each run its own wallet, key file and keys (listed for deletion before the run, so a failed run leaves none).
      prefixes.push(keyPrefix(`${executorPrefix}-${i}`));
      const runDir = await mkdtemp(join(dir, `executor-${i}-`));
      executorAloneRuns.push(await executorRate({ venue, redis, redisUrl: REDIS_URL, redisPrefix: `${executorPrefix}-${i}`, dir: runDir, logger, seconds: Math.min(SECONDS, 10), concurrency, warmupMs: 3_000 }));
    }
    // The capacity: the run that landed the most per second (fewer in flight can cap the rate below what the CPU allows).
    const executorAlone = executorAloneRuns.reduce((best, run) => (run.landedPerSecond > best.landedPerSecond ? run : best));

    // ---------------------------------------------------------------- 7. one daemon at saturation
    const saturationRuns: DeploymentFigures[] = [];
    for (const perTick of LOAD_PER_TICK) saturationRuns.push(await deployment(`saturation-${perTick}`, venue, client, dir, 1, LOAD_POSITIONS, true, Math.min(SECONDS, 20), '30', { perTick }));
    const saturation = saturationRuns.reduce((best, run) => (run.landedPerSecond > best.landedPerSecond ? run : best));
    await venue.close(); // idle while the host is timed again
    const speed = hostSpeed(workloadMsBefore, timeWorkload());

    const report: Report = {
      takenAt: new Date().toISOString(),
      command: `node bin/run-ts.js bench/daemon.ts --latency-seconds ${LATENCY_SECONDS} --busy-seconds ${BUSY_SECONDS} --seconds ${SECONDS} --daemons ${DAEMONS} --floor-samples ${FLOOR_SAMPLES} --seed ${SEED} --executor-concurrency ${EXECUTOR_CONCURRENCY.join(',')} --load-per-tick ${LOAD_PER_TICK.join(',')}`,
      machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverageBefore: loadBefore, loadAverageAfter: loadavg() },
      hostSpeed: speed,
      venue: { pid: venue.pid, ...VENUE },
      floor,
      floorSix,
      latency,
      busy,
      throughput,
      idle: { daemons: idle.daemons, windowSeconds: idle.windowSeconds, landed: idle.landed, daemonCpuPercent: idle.daemonCpuPercent, daemonSyscallsPerSecond: idle.daemonSyscallsPerSecond, venueCpuPercent: idle.venueCpuPercent, peakRssMb: idle.peakRssMb },
      strategyWorker: { positionsPerSnapshot: positions.length, ...rate },
      executorAlone,
      executorAloneRuns,
      saturation,
      saturationRuns,
      throughputPolls: THROUGHPUT_POLLS,
    };
    printReport(report);
    await mkdir(join(values.out, '..'), { recursive: true });
    await writeFile(values.out, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nwritten: ${values.out}`);
  } finally {
    await client.close();
    await venue.close();
    for (const prefix of prefixes) await deletePrefix(prefix);
    await rm(dir, { recursive: true, force: true });
  }
}

// Bounded in time whatever happens: a hung run must not hold `npm run bench` forever.
const limitSeconds = LATENCY_SECONDS + BUSY_SECONDS + SECONDS + 300 + LOAD_PER_TICK.length * 60;
const deadline = setTimeout(() => {
  console.error(`bench/daemon.ts: still running after ${limitSeconds} s; giving up`);
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  process.exit(1);
}, limitSeconds * 1000);
try {
  await main();
} catch (error) {
  console.error('bench/daemon.ts failed:', error);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await redis.quit();
}
