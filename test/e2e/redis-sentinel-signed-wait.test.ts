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
 * Issue 29, "Redis that fails over": a signed action is sent only once a replica holds its signed
 * record. Replication is asynchronous, so a primary that dies after acknowledging the `signed`
 * write but before its replica got it would leave the promoted replica with the action still
 * `accepted`, and it would be signed again while the first transaction is on its way. With the
 * replica SIGSTOPped (connected, acknowledging nothing) a daemon on sentinels signs the action but
 * the venue sees no transaction; SIGCONT, and it is sent and lands once.
 */

/** stratd_sends_held_for_replication_total from the daemon's /metrics (its ops URL from the "ops server listening" line). */
async function heldSends(output: readonly string[]): Promise<number | undefined> {
  const line = output.find((l) => l.includes('"ops server listening"'));
  if (!line) return undefined;
  const opsUrl = (JSON.parse(line.slice(line.indexOf('{'))) as { url: string }).url;
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const sample = /^stratd_sends_held_for_replication_total (\d+)/m.exec(text);
  return sample ? Number(sample[1]) : undefined;
}

const installed = redisServerInstalled('Redis Sentinel signed-record replication test');
const PAST_SIGNED = new Set(['submitted', 'landed', 'rejected', 'expired']);

describe.skipIf(!installed)('a signed action waits for a replica to hold it', () => {
  let cluster: SentinelCluster;
  let venue: Venue;
  let control: VenueControl;
  let deployment: E2eDeployment;
  const fleet = new DaemonFleet();

  beforeAll(async () => {
    [cluster, venue] = await Promise.all([SentinelCluster.start(), startVenue({ seed: 31, clock: { speed: 1 } })]);
    control = new VenueControl(venue.apiUrl);
    const shared = process.env.REDIS_URL;
    process.env.REDIS_URL = cluster.url;
    try {
      deployment = await E2eDeployment.create('sentinel-wait');
      deployment.redis.on('error', () => {
        // Not expected here (the primary stays up); the waits below time out with context if it happens.
      });
    } finally {
      if (shared === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = shared;
    }
  }, 60_000);

  afterAll(async () => {
    await fleet.killAll();
    if (deployment) deployment.redis.disconnect();
    await Promise.all([cluster?.close(), venue?.close()]);
  });

  it('is not sent while no replica acknowledges, and lands once when one does', { timeout: 120_000 }, async () => {
    const daemon = fleet.start({ name: 'daemon on sentinels', sets: deployment.sets(E2eDeployment.againstVenue(venue)), env: { REDIS_URL: cluster.url } });
    const context = () => `${daemon.logTail()}\n${cluster.logTail()}`;
    const heldLogged = () => daemon.output().some((line) => line.includes('no Redis replica acknowledged its signed record'));

    cluster.signalReplica('SIGSTOP');
    const funded = await control.fund({ wallet: deployment.walletAddress, sol: '10000000000', usdc: '5000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '2.5' }] });
    const position = funded.positions[0]!;

    // The action is signed, and then either held (the daemon says so) or sent (today's behaviour).
    const actionId = await waitUntil(
      async () => {
        if (!daemon.running) throw new Error('the daemon exited');
        for (const id of await deployment.decidedActionIds()) {
          const record = await deployment.record(id);
          if (record && (PAST_SIGNED.has(record.state) || (record.state === 'signed' && heldLogged()))) return id;
        }
        return undefined;
      },
      { what: 'the action is signed and held, or sent', timeoutMs: 60_000, context },
    );
    expect((await deployment.record(actionId))?.state, context()).toBe('signed');
    expect(await control.landed(), 'the venue saw no transaction while the replica was stopped').toEqual([]);

    // The holds are retried, never turned into a send: after several more timed-out WAITs nothing moved.
    const heldLines = () => daemon.output().filter((line) => line.includes('no Redis replica acknowledged its signed record')).length;
    // Held three times (three timed-out WAITs) and still not sent: a hold is retried, never turned into a send.
    await waitUntil(async () => (((await heldSends(daemon.output())) ?? 0) >= 3 ? true : undefined), { what: 'three held sends on /metrics', timeoutMs: 30_000, context });
    expect((await deployment.record(actionId))?.state).toBe('signed');
    expect(await control.landed()).toEqual([]);
    expect(heldLines(), 'the hold is logged once, not on every retry').toBe(1);

    cluster.signalReplica('SIGCONT');
    await waitUntil(
      async () => {
        const record = await deployment.record(actionId);
        return record?.state === 'landed' && record.finalSettled ? true : undefined;
      },
      { what: 'the action lands once the replica acknowledges', timeoutMs: 60_000, context },
    );

    daemon.signal('SIGTERM');
    expect((await daemon.waitForExit(30_000)).code, context()).toBe(0);
    const [landed, trades] = await Promise.all([control.landed(), control.decreaseTrades(deployment.walletAddress)]);
    const problems: string[] = [];
    for (const history of actionHistories(await deployment.ledger()).values()) {
      problems.push(...landedExactlyOnceProblems({ history, record: await deployment.record(history.actionId), landed, decreaseTrades: trades }));
    }
    expect(problems, context()).toEqual([]);
    expect(trades).toHaveLength(1);
    expect(await control.positionSize(position.positionPubkey)).toBeLessThan(BigInt(position.sizeUsd));
  });
});
