import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair } from '@solana/web3.js';
import { Redis } from 'ioredis';
import { writeKeyFile } from '../src/chain/signer.ts';
import { configKeys } from '../src/config/schema.ts';
import { keyPrefix } from '../src/pipeline/queues.ts';
import { Prng } from '../src/venue/market/prng.ts';
import { audit, type Incident } from './audit.ts';
import { DaemonFleet } from './daemon-fleet.ts';
import { backgroundFaults, describeEvent, faultSchedule, outagePatch, type FaultEvent } from './fault-schedule.ts';
import { Killer } from './killer.ts';
import { LedgerTail } from './ledger-tail.ts';
import type { ChaosOptions } from './options.ts';
import { PositionSeeder } from './position-seeder.ts';
import { ProcessRegistry } from './process-registry.ts';
import { ChaosRedis } from './redis-server.ts';
import { RedisMemory } from './redis-memory.ts';
import { buildReport, type ChaosReport } from './report.ts';
import { SettlementWatch } from './settlement-watch.ts';
import { ChaosVenue } from './venue.ts';
import { abortableSleep } from '../src/kernel/abortable-sleep.ts';

/** The run was interrupted (Ctrl-C); everything it started has been stopped. */
export class ChaosAborted extends Error {
  override readonly name = 'ChaosAborted';
  readonly kind = 'chaos_aborted';
}

const REDIS_PREFIX = 'chaos';
/** The chaos run's own strategy (opens, swaps, recurring orders), an absolute path as strategies.modules takes it. */
const TRADER_MODULE = fileURLToPath(new URL('./trader-strategy.ts', import.meta.url));
/** The venue's keeper delay outside a keeper stall (its default). */
const KEEPER_DELAY_MS = 1_000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** BullMQ's own keys of a queue (anything else under a queue name is one job's hash or logs). */
const BULL_KEYS = new Set(['wait', 'active', 'completed', 'failed', 'delayed', 'paused', 'prioritized', 'events', 'meta', 'id', 'marker', 'stalled', 'stalled-check', 'limiter', 'repeat', 'pc', 'de']);

/** Keys under the deployment's prefix at the end, counted by their first segment (action, ledger, queue names...). */
async function keysByKind(redis: Redis, prefix: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`)}*`, 'COUNT', 1_000);
    cursor = next;
    for (const key of keys) {
      const rest = key.slice(prefix.length).split(':');
      const kind = rest[0] === 'action' ? (rest.length > 2 ? `action:*:${rest[2]}` : 'action:*')
        : rest[0] === 'strategy' ? `strategy:*:${rest[2] ?? ''}`
        : rest[0] === 'risk' ? `risk:${rest[1] ?? ''}`
        : rest.length >= 2 && !BULL_KEYS.has(rest[1] ?? '') ? `${rest[0]}:<job>` : rest.slice(0, 2).join(':');
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
  } while (cursor !== '0');
  return counts;
}

/**
 * The daemons' settings: paper mode against the run's venue (paper + rpc.url = an external
 * venue), one prefix and one wallet for all of them, positions read every second, the guard
 * closing whole positions, and the risk limits lifted so the load is not stopped by them (the
 * circuit breaker keeps its default: tripping it under noise is one of the defects looked for).
 */
function daemonSettings(venue: ChaosVenue, redisUrl: string, keyFile: string): Record<string, string | number | boolean | object> {
  const unlimitedUsd = '1000000000000000';
  return {
    mode: 'paper',
    'api.baseUrl': venue.apiUrl,
    'rpc.url': venue.rpcUrl,
    'api.requestsPerSecond': 50,
    'redis.url': redisUrl,
    'redis.prefix': REDIS_PREFIX,
    'wallet.paperKeyFile': keyFile,
    'venue.seedWallet': false,
    'ops.port': 0,
    'log.level': 'warn',
    'pollers.positions.cron': '* * * * * *',
    'pollers.poolInfo.cron': '*/2 * * * * *',
    'pollers.collateralLimits.cron': '*/2 * * * * *',
    // The risk-adding load (issue 27): opens, swaps and recurring orders decided by chaos/trader-strategy.ts on each market price.
    'pollers.marketStats.cron': '* * * * * *',
    'strategies.modules': [TRADER_MODULE],
    'strategies.enabled': ['liquidation-guard', 'tpsl-coverage', 'chaos-trader'],
    'strategies.settings': { 'liquidation-guard': { distanceBps: 500, action: 'entire', cooldownMs: 5_000 } },
    'execution.confirmPollMs': 250,
    'risk.maxActionsPerStrategyPerHour': 1_000_000,
    'risk.maxNotionalPerActionUsd': unlimitedUsd,
    'risk.maxNotionalPerHourUsd': unlimitedUsd,
    'risk.dailyLossStopUsd': unlimitedUsd,
    'risk.maxNotionalPerMarketUsd': unlimitedUsd,
    'risk.maxNotionalPerWalletUsd': unlimitedUsd,
    'risk.maxSpendPerHourUsd': unlimitedUsd,
    'risk.maxOpenPositions': 1_000,
    // Bounded Redis at steady state within a 10-minute run: a short ledger (the orchestrator keeps
    // its own copy) and, where this version has them, short retention of finished actions and jobs.
    'ledger.maxLen': 1_000,
    ...Object.fromEntries(Object.entries(RETENTION).filter(([path]) => hasConfigKey(path))),
    // Where this version archives what leaves Redis: the run's own folder, never the working directory's var/.
    ...(hasConfigKey('archive.dir') ? { 'archive.dir': join(dirname(keyFile), 'archive') } : {}),
  };
}

/**
 * Retention of finished actions for a run that must reach a steady state in minutes, not days: the
 * least the configuration check accepts with the default keeper window and grace (120 s to land +
 * 45 s + 20 s; config/schema.ts), so a signature's claim still outlives its action.
 */
const RETENTION: Record<string, number> = { 'execution.retentionMs': 185_000, 'execution.retainedJobs': 500 };

function hasConfigKey(path: string): boolean {
  let node: unknown = configKeys;
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return true;
}

/**
 * One chaos run: its own redis-server and `stratd venue`, N `stratd run` daemons on them, a
 * fault phase (background faults on every API operation and RPC call, outages, Redis restarts,
 * SIGKILLs and failpoints, positions seeded near liquidation), a fault-free drain, the audit.
 * Everything it started is stopped before it returns or throws.
 */
export async function runChaos(opts: ChaosOptions, command: string, signal?: AbortSignal, log: (line: string) => void = () => undefined): Promise<ChaosReport> {
  const startedAtMs = Date.now();
  const registry = new ProcessRegistry();
  const rng = new Prng(opts.seed, 'chaos');
  const dir = await mkdtemp(join(tmpdir(), 'stratd-chaos-'));
  const logsDir = resolve(opts.resultsDir, 'logs', new Date(startedAtMs).toISOString().replace(/[:.]/g, '-'));
  await mkdir(join(dir, 'redis'), { recursive: true });
  await mkdir(logsDir, { recursive: true });
  const redis = new ChaosRedis(await freePort(), join(dir, 'redis'), registry);
  let monitor: Redis | undefined;
  let fleet: DaemonFleet | undefined;
  let venue: ChaosVenue | undefined;
  let seeder: PositionSeeder | undefined;
  let killer: Killer | undefined;
  const timers: NodeJS.Timeout[] = [];
  try {
    await redis.start();
    let redisUpSinceMs = Date.now();
    let redisRestarts = 0;
    venue = await ChaosVenue.start({ seed: opts.seed, volatilityPct: opts.volatilityPct }, registry);
    const wallet = Keypair.generate();
    const keyFile = join(dir, 'wallet.json');
    await writeKeyFile(keyFile, wallet);
    const walletAddress = wallet.publicKey.toBase58();
    await venue.fund(walletAddress, { sol: '100000000000', usdc: '100000000000' });
    log(`redis-server ${redis.url} (dir ${dir}), venue ${venue.apiUrl} / ${venue.rpcUrl}, wallet ${walletAddress}; logs in ${logsDir}`);

    const prefix = keyPrefix(REDIS_PREFIX);
    monitor = new Redis(redis.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => 250 });
    monitor.on('error', () => undefined);
    const tail = new LedgerTail(monitor, `${prefix}ledger`);
    const watch = new SettlementWatch(monitor, prefix, tail, opts.settleGraceMs, () => redisUpSinceMs);
    const memory = new RedisMemory(monitor);
    let ticks = 0;
    let monitoring = Promise.resolve();
    const monitorTimer = setInterval(() => {
      ticks++;
      monitoring = monitoring.then(async () => {
        await tail.poll();
        if (ticks % 5 === 0) {
          await watch.check();
          await memory.sample();
        }
      });
    }, 1_000);
    timers.push(monitorTimer);

    fleet = new DaemonFleet(opts.daemons, daemonSettings(venue, redis.url, keyFile), { REDIS_URL: redis.url }, logsDir, registry, new Prng(opts.seed, 'fleet'), opts.failpointShare);
    fleet.startAll();
    const started = () => tail.others.filter((e) => e.type === 'system' && e.detail.event === 'start').length;
    const readyBy = Date.now() + 90_000;
    while (started() < opts.daemons && Date.now() < readyBy && !signal?.aborted) await abortableSleep(250, signal);
    if (signal?.aborted) throw new ChaosAborted('interrupted');
    log(`${started()} of ${opts.daemons} daemons started`);

    seeder = new PositionSeeder(venue, walletAddress, new Prng(opts.seed, 'positions'), 3_000);
    seeder.start(2_000);
    const positions = seeder;

    // ------------------------------------------------------------ the fault phase
    const faultStartMs = Date.now();
    const background = backgroundFaults(opts.faultShare);
    await venue.faults({ operations: { '*': background.api }, rpc: { methods: { '*': background.rpc } }, dropRate: background.dropRate });
    killer = new Killer(fleet, new Prng(opts.seed, 'killer'), opts.killEveryMs);
    killer.start();
    const incidents: Incident[] = [];
    const running = new Set<Promise<void>>();
    const v = venue;
    const perform = async (event: FaultEvent): Promise<void> => {
      const fromMs = Date.now();
      log(`+${Math.round((fromMs - faultStartMs) / 1000)} s ${describeEvent(event)}`);
      switch (event.kind) {
        case 'api-outage':
        case 'rpc-outage':
          await v.faults(outagePatch(event.kind, event.mode, event.forMs, true, opts.faultShare));
          await abortableSleep(event.forMs);
          await v.faults(outagePatch(event.kind, event.mode, event.forMs, false, opts.faultShare));
          break;
        case 'keeper-stall':
          await v.faults({ keeperDelayMs: 50_000 });
          await abortableSleep(event.forMs);
          await v.faults({ keeperDelayMs: KEEPER_DELAY_MS });
          break;
        case 'redis-outage':
          await redis.stop();
          await abortableSleep(event.forMs);
          await redis.start();
          redisUpSinceMs = Date.now();
          redisRestarts++;
          break;
        case 'redis-restart':
          await (event.how === 'crash' ? redis.crash() : redis.stop());
          await redis.start();
          redisUpSinceMs = Date.now();
          redisRestarts++;
          break;
      }
      incidents.push({ what: describeEvent(event), fromMs, toMs: Date.now() });
    };
    for (const event of faultSchedule(opts, rng)) {
      timers.push(setTimeout(() => {
        const p = perform(event).catch((error: unknown) => log(`fault event failed: ${(error as Error).message}`));
        running.add(p);
        void p.finally(() => running.delete(p));
      }, event.atMs));
    }
    const progressTimer = setInterval(() => {
      const accepted = [...tail.actions.values()].filter((t) => t.acceptedAtMs !== undefined).length;
      const landed = [...tail.actions.values()].filter((t) => t.finalState === 'landed').length;
      const c = fleet!.counts();
      log(`+${Math.round((Date.now() - faultStartMs) / 1000)} s: ${accepted} accepted, ${landed} landed, ${c.kills} kills + ${c.failpointExits} failpoint exits, ${fleet!.running()}/${opts.daemons} daemons up, ${positions.opened} positions opened, used_memory ${((memory.samples.at(-1)?.usedBytes ?? 0) / 1_048_576).toFixed(1)} MB`);
    }, 30_000);
    timers.push(progressTimer);
    await abortableSleep(opts.durationMs, signal);
    const faultEndMs = Date.now();
    killer.stop();
    for (const timer of timers.splice(0)) if (timer !== monitorTimer) clearTimeout(timer);
    clearInterval(progressTimer);
    timers.push(monitorTimer);
    await Promise.all([...running]);
    if (!redis.running) await redis.start();
    if (signal?.aborted) throw new ChaosAborted('interrupted');

    // ------------------------------------------------------------ the drain: no faults, no kills
    await venue.clearFaults();
    await venue.faults({ keeperDelayMs: KEEPER_DELAY_MS });
    await seeder.stop();
    log(`fault phase over; draining (at most ${opts.drainMs / 1000} s)`);
    const drainStart = Date.now();
    let emptyPolls = 0;
    while (Date.now() - drainStart < opts.drainMs && !signal?.aborted) {
      await abortableSleep(1_000, signal);
      const open = await monitor.zcard(`${prefix}actions:open`).catch(() => -1);
      emptyPolls = open === 0 ? emptyPolls + 1 : 0;
      if (emptyPolls >= 3 && Date.now() - drainStart > opts.settleGraceMs + 6_000) break;
    }
    if (signal?.aborted) throw new ChaosAborted('interrupted');
    await fleet.stop(20_000);
    clearInterval(monitorTimer);
    await monitoring;
    await tail.poll();
    await watch.check();

    // ------------------------------------------------------------ the audit
    const openSet = new Set(await monitor.zrange(`${prefix}actions:open`, '0', '-1'));
    for (const id of openSet) await watch.readRecord(id);
    for (const trail of tail.actions.values()) if (trail.finalState === undefined) await watch.readRecord(trail.actionId);
    const [landed, trades, outcomes] = await Promise.all([venue.landed(), venue.trades(), venue.requestOutcomes()]);
    const redisKeys = await keysByKind(monitor, prefix);
    const result = audit({
      wallet: walletAddress, tail, watch, landed, trades, outcomes, openSet, auditAtMs: Date.now(), stuckAfterMs: opts.stuckAfterMs,
      incidents: incidents.sort((a, b) => a.fromMs - b.fromMs), fleet: fleet.counts(), memory: memory.growth(faultStartMs, faultEndMs), redisRestarts, positionsOpened: seeder.opened, preventableAfterMs: opts.preventableAfterMs, redisKeys,
    });
    return buildReport(result, opts, command, startedAtMs, [...fleet.unexpectedTails.slice(0, 5), ...redis.startFailures.map((why) => `redis-server start retried: ${why}`)]);
  } finally {
    killer?.stop();
    for (const timer of timers) clearTimeout(timer);
    await seeder?.stop();
    await fleet?.stop(5_000).catch(() => undefined);
    monitor?.disconnect();
    redis.close();
    await registry.stopAll(10_000);
    registry.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}
