// `npm run bench` (through bench/index.ts) or `node bin/run-ts.js bench/daemon.ts [--seconds 30]
// [--wallets 3] [--floor-samples 60] [--seed 7]`: one bounded run against the venue on loopback.
// Prints the tick-to-submit latency of the daemon and of the same path without queues (the floor),
// throughput and peak RSS. How to read the figures: docs/operations.md, "Benchmark".
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Keypair } from '@solana/web3.js';
import { pino } from 'pino';
import { ApiClient } from '../src/api/client.ts';
import { writeKeyFile } from '../src/chain/signer.ts';
import { loadConfig } from '../src/config/index.ts';
import { createLogger } from '../src/ops/logger.ts';
import { keyPrefix, openQueue, QUEUES } from '../src/pipeline/queues.ts';
import { connectRedis } from '../src/pipeline/redis.ts';
import { SNAPSHOT_KINDS } from '../src/pipeline/snapshot.ts';
import { loadStrategiesOrThrow } from '../src/strategy/loader.ts';
import { actionTimings, fixed, queueTimings, STAGES, stageP50, table, tickToSubmit, type ActionTiming, type QueueTimings } from './action-timings.ts';
import { runFloor } from './daemon-floor.ts';
import { startDaemonProcess, type DaemonCounters, type DaemonProcess } from './daemon-process.ts';
import { ALL_POSITIONS, fundWallet, keepPositionsOpen, startVenueProcess, type BenchVenue } from './daemon-venue.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    wallets: { type: 'string', default: '3' },
    'floor-samples': { type: 'string', default: '60' },
    seed: { type: 'string', default: '7' },
  },
});
function bounded(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new RangeError(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}
const SECONDS = bounded('seconds', values.seconds, 5, 120);
const WALLETS = bounded('wallets', values.wallets, 1, 8);
const FLOOR_SAMPLES = bounded('floor-samples', values['floor-samples'], 6, 600);
const SEED = bounded('seed', values.seed, 0, 1_000_000);
const WARMUP_MS = 5_000;
const VENUE = { seed: SEED, slotMs: 100, keeperDelayMs: 250 };
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN = `stratd-bench-${process.pid}-${Date.now()}`;

const logger = createLogger({ level: 'error', destination: pino.destination(2) });
const redis = connectRedis(REDIS_URL);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Processes this run started, so a run that overstays its deadline can still end them. */
const children = new Set<number>();

/**
 * The daemon's settings for the run: the defaults, except what makes load (every poller source
 * every second, the guard closing whole positions with no cooldown, faster confirmation polls)
 * and what keeps the risk gate from stopping the load.
 */
function benchSettings(venue: BenchVenue, redisPrefix: string, keyFile: string): Record<string, string | number | boolean | object> {
  const unlimitedUsd = '1000000000000000';
  return {
    mode: 'paper',
    'api.baseUrl': venue.apiUrl,
    'rpc.url': venue.rpcUrl,
    'api.requestsPerSecond': 500,
    'redis.prefix': redisPrefix,
    'wallet.paperKeyFile': keyFile,
    'venue.seedWallet': false,
    'log.level': 'warn',
    ...Object.fromEntries(SNAPSHOT_KINDS.map((kind) => [`pollers.${kind}.cron`, '* * * * * *'])),
    'strategies.settings': { 'liquidation-guard': { distanceBps: 500, action: 'entire', cooldownMs: 0 } },
    'execution.confirmPollMs': 200,
    'risk.maxActionsPerStrategyPerHour': 1_000_000,
    'risk.maxNotionalPerActionUsd': unlimitedUsd,
    'risk.maxNotionalPerHourUsd': unlimitedUsd,
    'risk.dailyLossStopUsd': unlimitedUsd,
  };
}

async function newWallet(dir: string, name: string, apiUrl: string): Promise<{ keyFile: string; address: string }> {
  const keypair = Keypair.generate();
  const keyFile = join(dir, `${name}.json`);
  await writeKeyFile(keyFile, keypair);
  await fundWallet(apiUrl, keypair.publicKey.toBase58(), ALL_POSITIONS, true);
  return { keyFile, address: keypair.publicKey.toBase58() };
}

const summed = (all: readonly DaemonCounters[], pick: (c: DaemonCounters) => number) => all.reduce((sum, c) => sum + pick(c), 0);

async function deletePrefix(prefix: string): Promise<void> {
  const pattern = `${prefix.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`)}*`;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const dir = await mkdtemp(join(tmpdir(), 'stratd-bench-'));
  const prefixes: string[] = [];
  const daemons: DaemonProcess[] = [];
  const venue = await startVenueProcess(VENUE);
  children.add(venue.pid);
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 1 });
  try {
    const wallets = [];
    for (let i = 0; i < WALLETS; i++) wallets.push(await newWallet(dir, `daemon-${i}`, venue.apiUrl));
    const floorWallet = await newWallet(dir, 'floor', venue.apiUrl);

    // ------------------------------------------------------------ the daemons, one process per wallet
    const started = await Promise.all(
      wallets.map((wallet, i) => {
        const redisPrefix = `${RUN}-w${i}`;
        prefixes.push(keyPrefix(redisPrefix));
        return startDaemonProcess(benchSettings(venue, redisPrefix, wallet.keyFile), REDIS_URL);
      }),
    );
    daemons.push(...started);
    for (const daemon of started) children.add(daemon.pid);
    const keeper = keepPositionsOpen(client, venue.apiUrl, wallets.map((w) => w.address), 250, (err) => logger.error({ err }, 'reopening positions failed'));
    await sleep(WARMUP_MS);
    const startAt = Date.now();
    const before = await Promise.all(daemons.map((d) => d.counters()));
    await sleep(SECONDS * 1000);
    const endAt = Date.now();
    const after = await Promise.all(daemons.map((d) => d.counters()));
    const peakRss = await Promise.all(daemons.map((d) => d.peakRss()));
    await keeper.stop();
    await Promise.all(daemons.splice(0).map((d) => d.stop()));
    const daemonTimings: ActionTiming[] = [];
    const marketQueue: Array<{ all: QueueTimings; positions: QueueTimings }> = [];
    for (const prefix of prefixes) {
      daemonTimings.push(...(await actionTimings(redis, prefix)).filter((t) => t.submittedAtMs >= startAt && t.submittedAtMs <= endAt));
      const market = openQueue(QUEUES.market, { connection: redis, prefix });
      marketQueue.push({ all: await queueTimings(market, startAt, endAt), positions: await queueTimings(market, startAt, endAt, 'positions') });
      await market.close();
    }

    // ------------------------------------------------------------ the floor: the same path in one function, no queues
    const floorPrefix = keyPrefix(`${RUN}-floor`);
    prefixes.push(floorPrefix);
    const { config: floorConfig } = loadConfig({ env: {}, overrides: { ...benchSettings(venue, `${RUN}-floor`, floorWallet.keyFile), 'redis.url': REDIS_URL } });
    const floor = await runFloor({
      config: floorConfig,
      redis,
      prefix: floorPrefix,
      apiUrl: venue.apiUrl,
      rpcUrl: venue.rpcUrl,
      keyFile: floorWallet.keyFile,
      strategies: await loadStrategiesOrThrow({ dir: floorConfig.strategies.dir, enabled: floorConfig.strategies.enabled, settings: floorConfig.strategies.settings }),
      samples: FLOOR_SAMPLES,
      warmupRounds: 1,
      deadlineMs: Date.now() + 60_000,
      logger,
      reopen: (wallet, positions) => fundWallet(venue.apiUrl, wallet, positions, false),
    });
    const floorTimings = (await actionTimings(redis, floorPrefix)).filter((t) => t.receivedAtMs >= floor.measuredFromMs);

    // ------------------------------------------------------------ report
    const seconds = (endAt - startAt) / 1000;
    const d = tickToSubmit(daemonTimings);
    const f = tickToSubmit(floorTimings);
    const delta = (pick: (c: DaemonCounters) => number) => summed(after, pick) - summed(before, pick);
    const row = (label: string, n: number) => [label, String(n), fixed(n / seconds)];
    const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : fixed(bytes / 1_048_576, 0));
    const knownPeaks = peakRss.filter((b): b is number => b !== undefined);

    console.log(`stratd daemon benchmark: ${WALLETS} daemon process(es) (stratd run, all roles, one wallet each) and stratd venue (pid ${venue.pid}) on loopback; seed ${SEED}, slot ${VENUE.slotMs} ms, keeper delay ${VENUE.keeperDelayMs} ms`);
    console.log(`machine: ${availableParallelism()} CPUs, load average ${fixed(loadBefore, 2)} before the run and ${fixed(loadavg()[0]!, 2)} after (other work on the machine skews every figure)`);
    console.log(`load: 6 positions per wallet 2 % from liquidation, reopened once closed; every poller source every second; window ${fixed(seconds)} s after ${WARMUP_MS / 1000} s warm-up\n`);
    console.log('tick-to-submit: poll response in → signed transaction accepted by the venue (the executor\'s submitted transition)');
    console.log(
      table([
        ['path', 'actions', 'p50 ms', 'p99 ms', 'max ms'],
        ['daemon: pollers → market queue → strategy worker → actions queue → executor', String(d.count), fixed(d.p50), fixed(d.p99), fixed(d.max)],
        ['floor: read → guard → the executor\'s classes, one function, no queues', String(f.count), fixed(f.p50), fixed(f.p99), fixed(f.max)],
        ['ratio daemon / floor', '', fixed(d.p50 / f.p50, 2), fixed(d.p99 / f.p99, 2), ''],
      ]),
    );
    console.log('\nwhere the time goes (p50 of each stage, ms; stage p50s need not add up)');
    console.log(table([['stage', 'daemon', 'floor'], ...STAGES.map((stage) => [stage[0], fixed(stageP50(daemonTimings, stage)), fixed(stageP50(floorTimings, stage))])]));
    const worst = (pick: (q: QueueTimings) => number, kind: 'all' | 'positions') => fixed(Math.max(...marketQueue.map((q) => pick(q[kind]))));
    console.log('\nmarket queue, worst daemon (ms): how long snapshot jobs waited, and how long the strategy worker took per job');
    console.log(
      table([
        ['jobs', 'wait p50', 'wait p99', 'run p50', 'run p99'],
        ...(['all', 'positions'] as const).map((kind) => [kind === 'all' ? 'every snapshot job' : 'positions snapshots (the guard acts on these)', worst((q) => q.waitP50, kind), worst((q) => q.waitP99, kind), worst((q) => q.runP50, kind), worst((q) => q.runP99, kind)]),
      ]),
    );
    console.log(`\nthroughput over the window, all daemons together (${fixed(seconds)} s)`);
    console.log(
      table([
        ['measure', 'count', 'per second'],
        row('snapshot jobs enqueued by pollers', delta((c) => c.snapshotsEnqueued)),
        row('snapshot jobs processed by strategy workers', delta((c) => c.snapshotsProcessed)),
        row('actions submitted', delta((c) => c.submitted)),
        row('actions landed', delta((c) => c.landed)),
      ]),
    );
    console.log('\nper daemon process');
    console.log(
      table([
        ['measure', 'max', 'mean'],
        ['peak RSS, MB (VmHWM)', mb(knownPeaks.length ? Math.max(...knownPeaks) : undefined), mb(knownPeaks.length ? knownPeaks.reduce((a, b) => a + b, 0) / knownPeaks.length : undefined)],
        ['RSS at the end of the window, MB', mb(Math.max(...after.map((c) => c.rssBytes))), mb(summed(after, (c) => c.rssBytes) / after.length)],
        ['event-loop lag p99 at the end, ms', fixed(Math.max(...after.map((c) => c.eventLoopLagP99)) * 1000), fixed((summed(after, (c) => c.eventLoopLagP99) / after.length) * 1000)],
      ]),
    );
  } catch (error) {
    for (const daemon of daemons) console.error(`--- stratd run pid ${daemon.pid} (last output)\n${daemon.output()}`);
    throw error;
  } finally {
    await Promise.all(daemons.map((d) => d.stop()));
    await client.close();
    await venue.close();
    for (const prefix of prefixes) await deletePrefix(prefix);
    await rm(dir, { recursive: true, force: true });
  }
}

// Bounded in time whatever happens: a hung run must not hold `npm run bench` forever.
const deadline = setTimeout(() => {
  console.error(`bench/daemon.ts: still running after ${SECONDS + 150} s; giving up`);
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  process.exit(1);
}, (SECONDS + 150) * 1000);
try {
  await main();
} catch (error) {
  console.error('bench/daemon.ts failed:', error);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await redis.quit();
}
