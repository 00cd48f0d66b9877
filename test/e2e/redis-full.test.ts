// Issue 31: what happens at Redis's limit. A daemon (all roles, paper venue) runs on a redis-server
// of this file's own with a small maxmemory and noeviction (never CONFIG SET on the shared Redis):
//  1. above redis.memoryReservePercent, snapshot jobs give way and a protective decrease still lands;
//  2. full (OOM), nothing is signed, and what Redis refuses is told once per kind of write (one log
//     line and one redis_write_refused notification each), not a stack trace per call;
//  3. once memory is freed, the decrease decided while full lands, once, with nothing half-written.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { keyPrefix } from '../../src/pipeline/queues.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { redisServerInstalled } from '../support/redis-server-binary.ts';
import { testDaemonOverrides } from '../support/test-daemon-config.ts';
import { fillTo, startThrowawayRedis, usedMemory, type ThrowawayRedis } from '../support/throwaway-redis.ts';
import { VenueControl } from '../support/venue-control.ts';

const MAX_BYTES = 24 * 1_048_576;
const REDIS_PREFIX = 'redis-full';
const PREFIX = keyPrefix(REDIS_PREFIX);
const installed = redisServerInstalled('the full-Redis test');
const captured = capturedLogger('info');
const webhook = new RecordingServer();
let server: ThrowawayRedis | undefined;
let daemon: Daemon | undefined;
let varDir: string;

interface LogLine {
  readonly msg: string;
  readonly level: number;
  readonly write?: string;
  readonly err?: { message?: string };
}
const lines = () => captured.lines.map((l) => JSON.parse(l) as LogLine);
const notified = () => webhook.requests.map((r) => JSON.parse(r.bodyText) as { kind: string; severity: string; key: string; title: string });

beforeAll(async () => {
  if (!installed) return;
  server = await startThrowawayRedis(['--maxmemory', String(MAX_BYTES), '--maxmemory-policy', 'noeviction']);
  const webhookUrl = await webhook.start();
  varDir = await mkdtemp(join(tmpdir(), 'stratd-redis-full-'));
  const { config } = loadConfig({
    env: {},
    overrides: {
      ...testDaemonOverrides({ redisUrl: server.url, redisPrefix: REDIS_PREFIX, paperKeyFile: join(varDir, 'paper-wallet.json') }),
      'log.level': 'info',
      'venue.seedWallet': false,
      'strategies.settings': { 'liquidation-guard': { distanceBps: 500, action: 'entire', cooldownMs: 0 } },
      'notify.targets': [{ type: 'webhook', name: 'ops', url: `${webhookUrl}/hook`, events: ['redis_write_refused', 'redis_memory', 'api_unreachable'], minSeverity: 'info' }],
    },
  });
  daemon = await startDaemon({ config, roles: ['pollers', 'strategies', 'executor'], logger: captured.logger, env: {}, varDir });
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
  await server?.stop();
  await webhook.stop?.();
  if (varDir) await rm(varDir, { recursive: true, force: true });
});

/** The action records of one position, by state. */
async function actionsOf(positionPubkey: string): Promise<string[]> {
  const store = new ActionStore(server!.redis, PREFIX);
  const ids = (await server!.redis.keys(`${PREFIX}action:*`)).map((k) => k.slice(`${PREFIX}action:`.length)).filter((id) => !id.includes(':'));
  const records = await Promise.all(ids.map((id) => store.load(id).catch(() => undefined)));
  return records.flatMap((s) => (s && 'positionPubkey' in s.record.intent && s.record.intent.positionPubkey === positionPubkey ? [s.record.state] : []));
}

describe.skipIf(!installed)('a daemon at the limit of Redis memory', () => {
  it('keeps the protective path above the reserve, signs nothing while full, tells each refused write once, and lands the decrease once memory is back', { timeout: 120_000 }, async () => {
    const venue = new VenueControl(daemon!.venue!.apiUrl);
    const redis = server!.redis;
    const marketJobs = async () => Number(await redis.get(`${PREFIX}market:id`).catch(() => 0)) || (await redis.keys(`${PREFIX}market:*`)).length;

    // ------------------------------------------------------------ 1. above the reserve (92 %), below full
    await fillTo(redis, MAX_BYTES, 0.95);
    await expect.poll(() => lines().some((l) => l.msg.startsWith('redis memory above the reserve')), { timeout: 20_000, interval: 100 }).toBe(true);
    const jobsAtReserve = await marketJobs();
    const first = await venue.fundWithPositionNearLiquidation(daemon!.wallet);
    await expect.poll(() => actionsOf(first.positionPubkey), { timeout: 30_000, interval: 200 }).toEqual(['landed']);
    // Snapshots were read and decided on, but no job was added for them.
    expect(await marketJobs()).toBe(jobsAtReserve);

    // ------------------------------------------------------------ 2. full
    // The limit is lowered 2 MB under what Redis holds (this file's own server): what the daemon
    // trims meanwhile cannot bring it back under, as topping it up to the last byte could not.
    await redis.config('SET', 'maxmemory', String((await usedMemory(redis)) - 2 * 1_048_576));
    expect(await redis.set('probe', 'x').catch((error: unknown) => String(error))).toMatch(/OOM/);
    const second = await venue.fund({ wallet: daemon!.wallet, positions: [{ market: 'ETH', side: 'short', collateralUsd: '200000000', liquidationDistancePct: '2.5' }] });
    const secondPubkey = second.positions[0]!.positionPubkey;
    // Several positions ticks pass while Redis is full (the loop beats after each, reads failed or not).
    const beats = new Set<number>();
    const positionsBeat = () => daemon!.watchdog.report().find((l) => l.name === 'poller:positions')?.lastBeatMs;
    const beatAtFull = positionsBeat();
    await expect.poll(() => {
      const beat = positionsBeat();
      if (beat !== undefined && beat !== beatAtFull) beats.add(beat);
      return beats.size;
    }, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(4);
    // Nothing recorded, nothing signed for the near position.
    expect(await actionsOf(secondPubkey)).toEqual([]);
    expect((await venue.landed()).length).toBe(1);
    const refusedLines = lines().filter((l) => l.msg.startsWith('redis is full (OOM'));
    const kinds = refusedLines.map((l) => l.write);
    console.log(`refused while full, told once each: ${kinds.join(', ')}`);
    // Once per kind of write, however many ticks and retries: the decision is among them.
    expect(new Set(kinds).size).toBe(kinds.length);
    // What fails first: the API request budget (a counter in Redis), so no read is made and nothing is decided.
    expect(kinds).toEqual(expect.arrayContaining(['API request budget']));
    // No other line carries an OOM error (no stack trace per call).
    expect(lines().filter((l) => !l.msg.startsWith('redis is full (OOM') && /OOM/.test(JSON.stringify(l))).map((l) => l.msg)).toEqual([]);
    await expect.poll(() => notified().filter((e) => e.kind === 'redis_write_refused').map((e) => e.key.split(':')[1]).sort(), { timeout: 10_000 }).toEqual([...kinds].sort());

    // The reads the full Redis stopped are not the API's failure.
    expect(notified().filter((e) => e.kind === 'api_unreachable')).toEqual([]);

    // ------------------------------------------------------------ 3. memory freed
    // The filler goes (as an operator deletes what filled Redis): the daemon's own keys stay.
    const filler = await redis.keys('filler:*');
    await redis.del(...filler);
    await expect.poll(() => actionsOf(secondPubkey), { timeout: 40_000, interval: 200 }).toEqual(['landed']);
    // The next health check (every 5 s) reads memory below the limit: the episode is over, said once.
    await expect.poll(() => lines().filter((l) => l.msg === 'redis accepts writes again (memory below maxmemory)').length, { timeout: 15_000, interval: 100 }).toBe(1);
    await expect.poll(() => notified().filter((e) => e.kind === 'redis_write_refused' && e.title === 'Redis accepts writes again').length, { timeout: 10_000, interval: 100 }).toBe(1);
    // Landed once: the venue has the two decreases and no third; nothing is left open.
    expect((await venue.landed()).length).toBe(2);
    expect(await new ActionStore(redis, PREFIX).openActionIds()).toEqual([]);
  });
});
