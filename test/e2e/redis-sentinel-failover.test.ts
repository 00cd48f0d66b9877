import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { redisServerInstalled } from '../support/redis-server-binary.ts';
import { SentinelCluster } from './support/sentinel-cluster.ts';
import { VenueControl } from '../support/venue-control.ts';
import { DaemonFleet } from '../support/daemon-process.ts';
import { E2eDeployment } from './support/e2e-deployment.ts';
import { actionHistories, landedExactlyOnceProblems } from './support/exactly-once.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * Acceptance (issue 29, "Redis that fails over"): a paper daemon trading against a Redis
 * Sentinel deployment (a primary, a replica, three sentinels, each a real process) keeps its
 * promises when the primary is SIGKILLed mid-trading: the sentinels promote the replica, the
 * daemon follows it without a restart, and the audit finds every position decreased exactly once
 * — none landed twice, none lost, none stuck — and trading resumed. The time from the kill to the
 * next landed action is measured and printed (docs/operations.md quotes it); the bound asserted is
 * generous, a hang detector rather than a speed check.
 */

const RESUME_BOUND_MS = 60_000;
const installed = redisServerInstalled('Redis Sentinel failover test');

describe.skipIf(!installed)('Redis Sentinel failover under a trading daemon', () => {
  let cluster: SentinelCluster;
  let venue: Venue;
  let control: VenueControl;
  let deployment: E2eDeployment;
  const fleet = new DaemonFleet();

  beforeAll(async () => {
    [cluster, venue] = await Promise.all([SentinelCluster.start(), startVenue({ seed: 29, clock: { speed: 1 } })]);
    control = new VenueControl(venue.apiUrl);
    // The deployment's reader (ledger, records, cleanup) reaches Redis the way the daemon does: through the sentinels.
    const shared = process.env.REDIS_URL;
    process.env.REDIS_URL = cluster.url;
    try {
      deployment = await E2eDeployment.create('sentinel');
      deployment.redis.on('error', () => {
        // Refused while the primary is down: the reads retry, and the waits below time out with context if it lasts.
      });
    } finally {
      if (shared === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = shared;
    }
  }, 60_000);

  afterAll(async () => {
    await fleet.killAll();
    // The cluster is this test's own and is deleted whole; only its temp files remain to remove.
    if (deployment) deployment.redis.disconnect();
    await Promise.all([cluster?.close(), venue?.close()]);
  });

  it('the replica is promoted, the daemon follows it, and every action lands exactly once', { timeout: 180_000 }, async () => {
    const daemon = fleet.start({ name: 'daemon on sentinels', sets: deployment.sets(E2eDeployment.againstVenue(venue)), env: { REDIS_URL: cluster.url } });
    const context = () => `${daemon.logTail()}\n${cluster.logTail()}`;
    const landedIds = async (): Promise<string[]> => {
      const landed: string[] = [];
      for (const id of await deployment.decidedActionIds()) {
        const record = await deployment.record(id);
        if (record?.state === 'landed' && record.finalSettled === true) landed.push(id);
      }
      return landed;
    };

    // One position per market: a position is per wallet, market and side, and the guard acts once per position.
    const known = new Set<string>();
    const openNearLiquidation = async (market: 'SOL' | 'ETH' | 'BTC') => {
      const funded = await control.fund({ wallet: deployment.walletAddress, sol: '10000000000', usdc: '5000000000', positions: [{ market, side: 'long', collateralUsd: '200000000', liquidationDistancePct: '2.5' }] });
      const position = funded.positions.find((p) => !known.has(p.positionPubkey));
      if (!position) throw new Error(`the venue opened no new ${market} position`);
      known.add(position.positionPubkey);
      return { positionPubkey: position.positionPubkey, sizeUsd: BigInt(position.sizeUsd) };
    };
    const positions = [await openNearLiquidation('SOL')];
    await waitUntil(async () => ((await landedIds()).length === 1 ? true : undefined), { what: 'the first action lands through the primary', timeoutMs: 60_000, context });

    // A second position: the daemon is deciding or executing it when the primary dies.
    positions.push(await openNearLiquidation('ETH'));
    const landedBefore = new Set(await landedIds());
    const killedAt = Date.now();
    await cluster.killPrimary();
    await cluster.waitForPromotion(60_000);
    const promotedMs = Date.now() - killedAt;
    // A third, decided only after the promotion: new work is taken up too.
    positions.push(await openNearLiquidation('BTC'));

    let resumedMs: number | undefined;
    await waitUntil(
      async () => {
        if (!daemon.running) throw new Error('the daemon exited');
        const landed = await landedIds();
        if (resumedMs === undefined && landed.some((id) => !landedBefore.has(id))) resumedMs = Date.now() - killedAt;
        return landed.length === positions.length ? true : undefined;
      },
      { what: `all ${positions.length} actions land and settle after the failover`, timeoutMs: 120_000, context },
    );
    console.log(`sentinel failover: replica promoted ${promotedMs} ms after the primary was killed; next action landed ${resumedMs} ms after the kill`);
    expect(resumedMs).toBeDefined();
    expect(resumedMs!).toBeLessThan(RESUME_BOUND_MS);
    expect(await cluster.currentPrimaryPort()).toBe(cluster.replicaPort);

    daemon.signal('SIGTERM');
    expect((await daemon.waitForExit(30_000)).code, context()).toBe(0);

    // The audit, from what the promoted replica holds and what the venue landed.
    const ledger = await deployment.ledger();
    const histories = actionHistories(ledger);
    const decided = await deployment.decidedActionIds();
    const [landed, trades] = await Promise.all([control.landed(), control.decreaseTrades(deployment.walletAddress)]);
    const problems: string[] = [];
    for (const history of histories.values()) {
      problems.push(...landedExactlyOnceProblems({ history, record: await deployment.record(history.actionId), landed, decreaseTrades: trades }));
    }
    expect(problems, context()).toEqual([]); // 0 landed twice
    expect(decided, 'every decided action was accepted and driven (0 lost)').toEqual([...histories.keys()]);
    expect(decided).toHaveLength(positions.length);
    expect(await deployment.openActionIds(), '0 stuck').toEqual([]);
    // Each position decreased once: one Decrease trade per position, none twice.
    expect(trades).toHaveLength(positions.length);
    for (const position of positions) expect(await control.positionSize(position.positionPubkey)).toBeLessThan(position.sizeUsd);
  });
});
