import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { DaemonFleet } from '../support/daemon-process.ts';
import { E2eDeployment } from './support/e2e-deployment.ts';
import { Slots } from './support/slots.ts';
import { actionHistories, landedExactlyOnceProblems } from './support/exactly-once.ts';
import { VenueControl } from '../support/venue-control.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * Acceptance: the daemon is SIGKILLed at each executor step in turn (STRATD_FAILPOINT,
 * src/daemon/failpoint.ts; `built` and `inspected` are written with `signed`, and a final state
 * is written settled) and restarted without the failpoint; every action ends landed
 * exactly once — checked against the venue's landed transactions and trade history — and
 * nothing is re-signed while ambiguous. The venue runs in this test process, so it outlives
 * the daemon processes. The steps run two at a time, each with its own wallet, Redis prefix and
 * processes, cleaned up when its test finishes.
 */

interface Case {
  readonly failpoint: string;
  /** Where the stored action must stand when the process died (undefined: never stored): proof the crash hit that step. */
  readonly diedAt: (record: ActionRecord | undefined, landedOnVenue: boolean) => boolean;
  readonly expected: string;
}

const CASES: readonly Case[] = [
  // Decided and claimed (the decision is in the ledger), not stored by the executor and no job:
  // the snapshot job, run again once the dead process's lock on it lapses, stores the action.
  { failpoint: 'decided', expected: 'decided, intent key claimed, nothing stored', diedAt: (r, landed) => r === undefined && !landed },
  // Built, inspected and signed in memory, nothing stored past `accepted`: the restart builds and
  // signs again, and the first signed bytes, never sent, can never land.
  { failpoint: 'signing', expected: 'signed in memory, nothing stored or sent', diedAt: (r, landed) => r?.state === 'accepted' && r.signature === undefined && !landed },
  { failpoint: 'after:signed', expected: 'signed, not sent', diedAt: (r, landed) => r?.state === 'signed' && r.signedTx !== undefined && !landed },
  { failpoint: 'sent', expected: 'sent (landed on the venue) but `submitted` not persisted', diedAt: (r, landed) => r?.state === 'signed' && landed },
  { failpoint: 'after:submitted', expected: 'submitted, landing not yet seen', diedAt: (r) => r?.state === 'submitted' && r.landedSlot === undefined },
  // The sight of the landing is kept in memory: the record is `submitted` as sent, its request on the chain.
  { failpoint: 'confirming', expected: 'submitted, landing seen, keeper pending', diedAt: (r, landed) => r?.state === 'submitted' && landed },
  // The outcome is booked (idempotent) before the one write that makes the action final, settled
  // and frees its intent key: recovery must book it again and write it.
  { failpoint: 'outcome-recorded', expected: 'keeper fill seen and booked, final write not made', diedAt: (r, landed) => r?.state === 'submitted' && landed && r.finalSettled === false },
];

describe('crash at each executor step, then restart', () => {
  const slots = new Slots(2);
  let venue: Venue;
  let control: VenueControl;

  beforeAll(async () => {
    venue = await startVenue({ seed: 41, clock: { speed: 1 } });
    control = new VenueControl(venue.apiUrl);
  });

  afterAll(async () => {
    await venue?.close();
  });

  it.concurrent.for(CASES)('SIGKILL at $failpoint: the restarted daemon lands the action exactly once', { timeout: 150_000 }, async ({ failpoint, diedAt, expected }, { expect, onTestFinished }) => {
    const release = await slots.acquire();
    const fleet = new DaemonFleet();
    const deployment = await E2eDeployment.create(`crash-${failpoint.replace(':', '-')}`);
    onTestFinished(async () => {
      await fleet.killAll();
      await deployment.close();
      release();
    });
    const position = await control.fundWithPositionNearLiquidation(deployment.walletAddress);
    const sets = deployment.sets(E2eDeployment.againstVenue(venue));

    const crashing = fleet.start({ name: `daemon with ${failpoint}`, sets, env: { STRATD_FAILPOINT: failpoint } });
    const death = await crashing.waitForExit(45_000);
    expect(death.signal, crashing.logTail()).toBe('SIGKILL');

    // The decision is in the ledger from the claim on, whatever was stored after it.
    const [actionId, ...others] = await deployment.decidedActionIds();
    expect(actionId, crashing.logTail()).toBeDefined();
    expect(others).toEqual([]);
    const atDeath = await deployment.record(actionId!);
    const landedAtDeath = atDeath?.signature !== undefined && (await control.landed()).some((l) => l.signature === atDeath.signature);
    expect(diedAt(atDeath, landedAtDeath), `expected the action ${expected}; it was ${JSON.stringify({ state: atDeath?.state, signature: atDeath?.signature, landedSlot: atDeath?.landedSlot, landedAtDeath })}`).toBe(true);

    const restarted = fleet.start({ name: `restart after ${failpoint}`, sets });
    await waitUntil(
      async () => {
        if (!restarted.running) throw new Error('the restarted daemon exited');
        const record = await deployment.record(actionId!);
        return record && ['landed', 'rejected', 'expired'].includes(record.state) && record.finalSettled === true ? record : undefined;
      },
      // 'decided': the snapshot job runs again only once the dead process's lock on it lapses (30 s).
      { what: `action ${actionId} is final and settled after the restart`, timeoutMs: 75_000, context: () => restarted.logTail() },
    );
    restarted.signal('SIGTERM');
    expect((await restarted.waitForExit(20_000)).code, restarted.logTail()).toBe(0);

    const ledger = await deployment.ledger();
    const histories = actionHistories(ledger);
    const [landed, trades] = await Promise.all([control.landed(), control.decreaseTrades(deployment.walletAddress)]);
    expect([...histories.keys()]).toEqual([actionId]);
    const problems = [];
    for (const history of histories.values()) {
      problems.push(...landedExactlyOnceProblems({ history, record: await deployment.record(history.actionId), landed, decreaseTrades: trades }));
    }
    expect(problems, restarted.logTail()).toEqual([]);
    expect(ledger.filter((e) => e.type === 'action_state' && e.state === 'signed')).toHaveLength(1);
    // Settled means out of the open set: no sweeper will look at it again.
    expect(await deployment.openActionIds()).not.toContain(actionId);

    // The position was decreased once, by the decided amount.
    const record = (await deployment.record(actionId!))!;
    expect(trades).toHaveLength(1);
    const delta = record.intent.type === 'decrease' && record.intent.sizeUsdDelta !== undefined ? BigInt(record.intent.sizeUsdDelta) : position.sizeUsd;
    expect(await control.positionSize(position.positionPubkey)).toBe(position.sizeUsd - delta);
  });
});
