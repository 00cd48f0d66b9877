import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { loadConfig } from '../../src/config/index.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { readPollerHeartbeats } from '../../src/ops/ops-status.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { waitUntil } from '../support/wait-until.ts';
import { redisScope } from '../support/redis-scope.ts';
import { testDaemonOverrides } from '../support/test-daemon-config.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * Issue 29, wired: the daemon's own assembly (startDaemon with the pollers role, as `stratd run`
 * composes it) records a liquidation the venue's keeper makes — no action of stratd — as one
 * `fill` ledger entry with cause liquidation. Without the fill watcher in the daemon, nothing is
 * written and this test fails.
 */

const USD = 1_000_000n;
const scope = redisScope(`fill-watcher-wired-${process.pid}`);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let venue: Venue;
let api: ApiClient;
let varDir: string;
let daemon: Daemon | undefined;

beforeAll(async () => {
  await scope.clean();
  venue = await startVenue({ seed: 29, clock: { speed: 1 }, volatility: 0, slotMs: 50 });
  api = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  varDir = await mkdtemp(join(tmpdir(), 'stratd-fill-watcher-'));
  const { config } = loadConfig({
    env: {},
    overrides: {
      ...testDaemonOverrides({ redisUrl, redisPrefix: scope.redisPrefix, paperKeyFile: join(varDir, 'paper-wallet.json') }),
      'api.baseUrl': venue.apiUrl,
      'rpc.url': venue.rpcUrl,
      'pollers.trades.enabled': true,
      'pollers.trades.cron': '* * * * * *',
    },
  });
  daemon = await startDaemon({ config, roles: ['pollers'], logger: silentLogger, env: { REDIS_URL: redisUrl }, varDir });
});

afterAll(async () => {
  await daemon?.stop();
  await api?.close();
  await venue?.close();
  await scope.clean();
  await scope.close();
  if (varDir) await rm(varDir, { recursive: true, force: true });
});

describe('the fill watcher in the daemon', () => {
  it('a liquidation by the venue is one fill ledger entry with cause liquidation', { timeout: 60_000 }, async () => {
    const wallet = daemon!.wallet;
    const control = new VenueControl(venue.apiUrl);
    const setPrice = (priceUsd: bigint) => fetch(`${venue.apiUrl}/__venue/price`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ market: 'SOL', priceUsd: priceUsd.toString() }) });
    expect((await setPrice(150n * USD)).status).toBe(200);
    const funded = await control.fund({ wallet, sol: '10000000000', usdc: '5000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '100000000', leverage: '3' }] });
    const positionPubkey = funded.positions[0]!.positionPubkey;
    const position = (await api.call('perps.positions', { walletAddress: wallet })).dataList.map(positionView).find((p) => p?.positionPubkey === positionPubkey)!;
    // The watch has begun once a trades snapshot was read (its baseline).
    await waitUntil(async () => ((await scope.redis.exists(`${scope.prefix}fills:baseline:${wallet}`)) ? true : undefined), { what: 'the first trades snapshot', timeoutMs: 20_000 });

    expect((await setPrice(position.liquidationPriceUsd - USD)).status).toBe(200);
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 100_000 });
    const liquidations = async () => (await ledger.read({ limit: 10_000, reverse: false, types: ['fill'] })).filter((e) => e.detail['cause'] === 'liquidation');
    const [entry] = await waitUntil(async () => ((await liquidations()).length > 0 ? liquidations() : undefined), { what: 'the liquidation in the ledger', timeoutMs: 20_000 });
    expect(entry).toMatchObject({ type: 'fill', detail: { cause: 'liquidation', side: 'long', action: 'Decrease', orderType: 'Liquidation' } });
    // Ticks go on reading the same history: still one entry.
    const lastTradesTick = async () => {
      const beat = (await readPollerHeartbeats(scope.redis, scope.prefix))['trades'];
      return beat && 'tickMs' in beat ? beat.tickMs : 0;
    };
    const tickThen = await lastTradesTick();
    await waitUntil(async () => ((await lastTradesTick()) >= tickThen + 2_000 ? true : undefined), { what: 'two more trades ticks', timeoutMs: 10_000 });
    expect(await liquidations()).toHaveLength(1);
  });
});
