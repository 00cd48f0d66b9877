import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { readLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { VenueControl } from '../support/venue-control.ts';
import { DaemonFleet } from '../support/daemon-process.ts';
import { E2eDeployment } from './support/e2e-deployment.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * Acceptance (paper mode, the daemon as its own process, the venue in this one): a fresh
 * position gets its stop-loss from tpsl-coverage within two position ticks; the trailing stop
 * moves it up as the price rises and never down when it falls; after a restart nothing is
 * duplicated — one stop-loss per position, read from the venue.
 */

const USD = 1_000_000n;
const TICK_MS = 1_000; // pollers.positions.cron below: every second

describe('tpsl-coverage and trailing-stop on the venue', () => {
  let venue: Venue;
  let control: VenueControl;
  let api: ApiClient;
  const fleet = new DaemonFleet();
  let deployment: E2eDeployment;

  beforeAll(async () => {
    // No random walk: the price moves only when the test moves it.
    venue = await startVenue({ seed: 7, clock: { speed: 1 }, volatility: 0 });
    control = new VenueControl(venue.apiUrl);
    api = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
    deployment = await E2eDeployment.create('tpsl-coverage');
  });
  afterAll(async () => {
    await fleet.killAll();
    await deployment?.close();
    await api?.close();
    await venue?.close();
  });

  const stopsOf = async (positionPubkey: string) => {
    const items = (await api.call('perps.positions', { walletAddress: deployment.walletAddress })).dataList;
    return items.map(positionView).find((p) => p?.positionPubkey === positionPubkey)?.tpslRequests.filter((r) => r.requestType === 'sl') ?? [];
  };
  const setPrice = async (priceUsd: bigint) => {
    const res = await fetch(`${venue.apiUrl}/__venue/price`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ market: 'SOL', priceUsd: priceUsd.toString() }) });
    expect(res.status).toBe(200);
  };
  /** Waits until the strategies have seen `ticks` positions snapshots read after `sinceMs` (the store keeps the newest). */
  const ticksAfter = (sinceMs: number, ticks: number, daemon: { logTail(): string }) =>
    waitUntil(async () => {
      const latest = await readLatestSnapshot(deployment.redis, deployment.prefix, 'positions', deployment.walletAddress);
      return latest && latest.tickMs >= sinceMs + ticks * TICK_MS ? latest : undefined;
    }, { what: `${ticks} positions ticks after ${sinceMs}`, timeoutMs: 30_000, context: () => daemon.logTail() });

  it('covers, trails, never loosens and never duplicates across a restart', { timeout: 180_000 }, async () => {
    await control.fund({ wallet: deployment.walletAddress, sol: '10000000000', usdc: '5000000000' });
    const sets = deployment.sets({
      ...E2eDeployment.againstVenue(venue),
      'strategies.enabled': 'liquidation-guard,tpsl-coverage,trailing-stop',
      // Coverage places the stop 10 % below the mark; the trailing stop keeps it 10 % behind.
      'strategies.settings.tpsl-coverage': { stopLossBps: 1_000, driftBps: 5_000 },
      'strategies.settings.trailing-stop': { trailBps: 1_000, minStepBps: 50 },
    });
    const first = fleet.start({ name: 'daemon', sets });
    // The daemon polls positions before the position exists.
    await waitUntil(async () => readLatestSnapshot(deployment.redis, deployment.prefix, 'positions', deployment.walletAddress), { what: 'the first positions snapshot', timeoutMs: 60_000, context: () => first.logTail() });

    await setPrice(150n * USD);
    const funded = await control.fund({ wallet: deployment.walletAddress, positions: [{ market: 'SOL', side: 'long', collateralUsd: '100000000', leverage: '3' }] });
    const fundedAtMs = Date.now();
    const positionPubkey = funded.positions[0]!.positionPubkey;

    const [stop] = await waitUntil(async () => ((await stopsOf(positionPubkey)).length > 0 ? stopsOf(positionPubkey) : undefined), { what: 'a stop-loss on the venue', timeoutMs: 30_000, context: () => first.logTail() });
    expect(stop!.triggerPriceUsd).toBe(135n * USD);
    // Decided on one of the first two positions ticks after the position appeared.
    const creates = (await deployment.ledger()).filter((e) => e.type === 'decision' && e.strategy === 'tpsl-coverage' && (e.detail as { intentType?: string }).intentType === 'tpsl-create');
    expect(creates).toHaveLength(1);
    const trigger = (creates[0]!.detail as { trigger: { kind: string; tickMs: number } }).trigger;
    expect(trigger.kind).toBe('positions');
    expect(trigger.tickMs).toBeLessThanOrEqual(fundedAtMs + 2 * TICK_MS);

    // The price rises: the stop follows, 10 % behind.
    await setPrice(170n * USD);
    await waitUntil(async () => ((await stopsOf(positionPubkey))[0]?.triggerPriceUsd === 153n * USD ? true : undefined), { what: 'the stop trailed to $153', timeoutMs: 30_000, context: () => first.logTail() });
    // The price falls back: after several ticks the stop is where it was.
    await setPrice(160n * USD);
    await ticksAfter(Date.now(), 3, first);
    expect((await stopsOf(positionPubkey)).map((s) => s.triggerPriceUsd)).toEqual([153n * USD]);

    // Restart: the same Redis, state and venue. Nothing is created again.
    first.signal('SIGTERM');
    await first.exited;
    const restartedAtMs = Date.now();
    const second = fleet.start({ name: 'restarted daemon', sets });
    await ticksAfter(restartedAtMs, 4, second);
    expect((await stopsOf(positionPubkey)).map((s) => s.triggerPriceUsd)).toEqual([153n * USD]);
    const createsAfter = (await deployment.ledger()).filter((e) => e.type === 'decision' && e.strategy === 'tpsl-coverage' && (e.detail as { intentType?: string }).intentType === 'tpsl-create');
    expect(createsAfter).toHaveLength(1);
  });
});
