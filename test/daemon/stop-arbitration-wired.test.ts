import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { loadConfig } from '../../src/config/index.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { readTpslBook } from '../../src/risk/tpsl-book.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { waitUntil } from '../support/wait-until.ts';
import { redisScope } from '../support/redis-scope.ts';
import { testDaemonOverrides } from '../support/test-daemon-config.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * Issue 25 (stop arbitration, wired): the daemon's own assembly (startDaemon, every role in this
 * process, as `stratd run` composes them) runs two strategies on one long, configured as an
 * operator configures them. stop-setter places a stop-loss 5 % below the mark; stop-loosener
 * wants it 20 % below and moves it down. The daemon's executor refuses the move
 * (`risk:stop_arbitration`, with its ledger entry) and the venue's stop keeps the tighter trigger:
 * first while the create has landed on the venue but the executor has not yet seen it (held at
 * `submitted` through the daemon's transition hook, so nothing is booked), then once it is booked.
 * Without stop arbitration in the daemon's executor the move lands, and this test fails.
 */

const USD = 1_000_000n;
const STRATEGIES_DIR = fileURLToPath(new URL('./fixtures/stop-arbitration/', import.meta.url));
const scope = redisScope(`stop-arbitration-wired-${process.pid}`);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let venue: Venue;
let api: ApiClient;
let varDir: string;
let daemon: Daemon | undefined;
// stop-setter's create waits at `submitted` until the test lets it go: on the venue, not yet booked.
let letCreateGo!: () => void;
const createHeld = new Promise<void>((resolve) => (letCreateGo = resolve));

beforeAll(async () => {
  await scope.clean();
  // No random walk: the mark stays where the test puts it, so both strategies' targets are known.
  venue = await startVenue({ seed: 25, clock: { speed: 1 }, volatility: 0, slotMs: 50 });
  api = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  varDir = await mkdtemp(join(tmpdir(), 'stratd-stop-arbitration-'));
  const { config } = loadConfig({
    env: {},
    overrides: {
      ...testDaemonOverrides({ redisUrl, redisPrefix: scope.redisPrefix, paperKeyFile: join(varDir, 'paper-wallet.json') }),
      'api.baseUrl': venue.apiUrl,
      'rpc.url': venue.rpcUrl,
      'execution.confirmPollMs': 100,
      'strategies.dir': STRATEGIES_DIR,
      'strategies.enabled': ['stop-setter', 'stop-loosener'],
      'strategies.settings': { 'stop-setter': { stopBps: 500 }, 'stop-loosener': { stopBps: 2_000 } },
    },
  });
  const onTransition = async (record: ActionRecord) => {
    if (record.strategy === 'stop-setter' && record.state === 'submitted') await createHeld;
  };
  daemon = await startDaemon({ config, roles: ['pollers', 'strategies', 'executor'], logger: silentLogger, env: { REDIS_URL: redisUrl }, varDir, onTransition });
});

afterAll(async () => {
  letCreateGo();
  await daemon?.stop();
  await api?.close();
  await venue?.close();
  await scope.clean();
  await scope.close();
  if (varDir) await rm(varDir, { recursive: true, force: true });
});

describe('stop arbitration in the daemon', () => {
  it("refuses one strategy's loosening of the stop-loss another strategy set; the venue keeps the tighter trigger", { timeout: 60_000 }, async () => {
    const wallet = daemon!.wallet;
    const control = new VenueControl(venue.apiUrl);
    const priced = await fetch(`${venue.apiUrl}/__venue/price`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ market: 'SOL', priceUsd: (150n * USD).toString() }) });
    expect(priced.status).toBe(200);
    const funded = await control.fund({ wallet, sol: '10000000000', usdc: '5000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '100000000', leverage: '3' }] });
    const positionPubkey = funded.positions[0]!.positionPubkey;
    const stops = async () => {
      const items = (await api.call('perps.positions', { walletAddress: wallet })).dataList;
      return items.map(positionView).find((p) => p?.positionPubkey === positionPubkey)?.tpslRequests.filter((r) => r.requestType === 'sl') ?? [];
    };

    // stop-setter's stop, 5 % below $150.
    const [stop] = await waitUntil(async () => ((await stops()).length > 0 ? stops() : undefined), { what: "stop-setter's stop-loss on the venue", timeoutMs: 30_000 });
    expect(stop!.triggerPriceUsd).toBe(14_250n * (USD / 100n));

    // stop-loosener's moves to $120 end one way or the other: refused, or (without arbitration) landed.
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 100_000 });
    const store = new ActionStore(scope.redis, scope.prefix);
    /** The first of stop-loosener's moves that ended, of those whose arbitration (if any) was asked after `afterMs`. */
    const looseningEnded = (afterMs = 0) =>
      waitUntil(
        async () => {
          const entries = await ledger.read({ limit: 10_000, reverse: false });
          const askedBefore = new Set(entries.filter((e) => e.type === 'risk' && e.at <= afterMs).map((e) => e.actionId));
          const move = entries.find((e) => e.type === 'action_state' && e.strategy === 'stop-loosener' && (e.state === 'rejected' || e.state === 'landed') && e.at > afterMs && !askedBefore.has(e.actionId));
          return move ? { move, entries } : undefined;
        },
        { what: `a move of stop-loosener's to end after ${afterMs}`, timeoutMs: 30_000 },
      );
    const expectRefused = async ({ move, entries }: Awaited<ReturnType<typeof looseningEnded>>) => {
      expect((await store.load(move.actionId!))?.record).toMatchObject({ state: 'rejected', reason: 'risk:stop_arbitration', intent: { type: 'tpsl-update', tpslPubkey: stop!.pubkey, triggerPrice: (120n * USD).toString() } });
      expect(entries.find((e) => e.type === 'risk' && e.actionId === move.actionId)).toMatchObject({
        strategy: 'stop-loosener',
        detail: { event: 'stop_arbitration', stage: 'accept', tpslPubkey: stop!.pubkey, owner: 'stop-setter', setBy: 'stop-setter', setTriggerPrice: stop!.triggerPriceUsd.toString(), requested: (120n * USD).toString() },
      });
      expect((await stops()).map((s) => [s.pubkey, s.triggerPriceUsd])).toEqual([[stop!.pubkey, stop!.triggerPriceUsd]]);
    };

    // The create is on the venue, but its landing is not seen yet: the book does not know the stop.
    await expectRefused(await looseningEnded());
    expect((await readTpslBook(scope.redis, scope.prefix)).entries.has(stop!.pubkey)).toBe(false);

    // Its landing seen and booked: refused again, now by the book.
    letCreateGo();
    const entry = await waitUntil(async () => (await readTpslBook(scope.redis, scope.prefix)).entries.get(stop!.pubkey), { what: "stop-setter's stop booked", timeoutMs: 30_000 });
    expect(entry).toMatchObject({ owner: 'stop-setter', setBy: 'stop-setter', triggerPrice: stop!.triggerPriceUsd.toString() });
    await expectRefused(await looseningEnded(entry.atMs));
  });
});
