import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { DaemonFleet } from '../support/daemon-process.ts';
import { E2eDeployment } from './support/e2e-deployment.ts';
import { VenueControl } from '../support/venue-control.ts';
import { observe, waitUntil } from '../support/wait-until.ts';

/**
 * Acceptance: with the venue dropping every sent transaction, the executor rebroadcasts the
 * same signed bytes and gives up (`expired`) only once the block height has passed the
 * transaction's lastValidBlockHeight — not at it — and after that it sends nothing more.
 *
 * The venue's clock is frozen (speed 0): block height moves only when the test advances it,
 * so "still valid at lastValidBlockHeight" and "expired one block later" are exact. The
 * request validity is long (600 s) so only the blockhash can end the action.
 */

const SLOT_MS = 400;
const REBROADCAST_MS = 250;

describe('dropped sends: rebroadcast the same bytes until the blockhash expires', () => {
  const fleet = new DaemonFleet();
  let venue: Venue;
  let control: VenueControl;
  let deployment: E2eDeployment;

  beforeAll(async () => {
    venue = await startVenue({ seed: 43, clock: { speed: 0 }, slotMs: SLOT_MS, maxRequestExecutionSec: 600 });
    control = new VenueControl(venue.apiUrl);
    deployment = await E2eDeployment.create('dropped');
  });

  afterEach(async () => {
    await fleet.killAll();
  });

  afterAll(async () => {
    await deployment?.close();
    await venue?.close();
  });

  // The venue's clock is frozen, so a deadline here never decides an outcome: they are generous (a
  // loaded two-core CI host once took over 20 s from the decision to a third send, which takes
  // ~1 s alone) and the test's timeout is above their sum.
  it('rebroadcasts one signature, expires only past lastValidBlockHeight, then never sends again', async () => {
    await control.fundWithPositionNearLiquidation(deployment.walletAddress);
    await control.faults({ dropAll: true });
    const daemon = fleet.start({
      name: 'daemon (sends dropped)',
      sets: deployment.sets({
        ...E2eDeployment.againstVenue(venue),
        'execution.rebroadcastMs': REBROADCAST_MS,
        'execution.maxRequestExecutionSecFallback': 600,
      }),
    });
    const context = () => daemon.logTail();

    // Sent and rebroadcast several times: one action, one signature, the same bytes.
    const actionId = await waitUntil(async () => (await deployment.actionIds())[0], { what: 'the guard decided a decrease', timeoutMs: 30_000, context });
    const first = await waitUntil(async () => {
      const r = await deployment.record(actionId);
      return r?.state === 'submitted' && r.sendCount >= 3 ? r : undefined;
    }, { what: 'the action was sent three times', timeoutMs: 45_000, context });
    expect(first.lastValidBlockHeight).toBeDefined();
    const lastValid = first.lastValidBlockHeight!;
    expect((await control.landed()).some((l) => l.signature === first.signature)).toBe(false);

    // Block height at lastValidBlockHeight: the transaction could still land, so the executor
    // keeps rebroadcasting the same bytes.
    const now = await control.state();
    expect(now.blockHeight).toBeLessThanOrEqual(lastValid);
    expect((await control.advance((lastValid - now.blockHeight) * SLOT_MS)).blockHeight).toBe(lastValid);
    const atLimit = await deployment.record(actionId);
    const stillSending = await waitUntil(async () => {
      const r = await deployment.record(actionId);
      return r && r.sendCount >= atLimit!.sendCount + 3 ? r : undefined;
    }, { what: 'rebroadcasts continue at lastValidBlockHeight', timeoutMs: 30_000, context });
    expect(stillSending.state).toBe('submitted');
    expect(stillSending.signature).toBe(first.signature);
    expect(stillSending.signedTx).toBe(first.signedTx);

    // One block later the blockhash is provably expired: the action ends.
    expect((await control.advance(SLOT_MS)).blockHeight).toBe(lastValid + 1);
    const expired = await waitUntil(async () => {
      const r = await deployment.record(actionId);
      return r?.state === 'expired' ? r : undefined;
    }, { what: 'the action expired', timeoutMs: 30_000, context });
    expect(expired.reason).toBe('blockhash_expired');
    expect(expired.signature).toBe(first.signature);
    expect(expired.signedTx).toBe(first.signedTx);
    expect(expired.sendCount).toBeGreaterThanOrEqual(stillSending.sendCount);
    expect((await control.state()).blockHeight).toBeGreaterThan(lastValid);

    // The ledger: one signed entry, one signature throughout, and the expiry's send count.
    const entries = (await deployment.ledger()).filter((e) => e.type === 'action_state' && e.actionId === actionId);
    expect(entries.filter((e) => e.state === 'signed')).toHaveLength(1);
    expect(new Set(entries.map((e) => e.detail.signature).filter((s) => s !== undefined))).toEqual(new Set([first.signature]));
    expect(entries.at(-1)?.state).toBe('expired');
    expect(entries.at(-1)?.detail.sendCount).toBe(expired.sendCount);

    // After expiry nothing is sent for this action, even with the chain healthy again, and
    // its bytes never land.
    await control.clearFaults();
    const seen = await observe(async (): Promise<Pick<ActionRecord, 'state' | 'sendCount'> | undefined> => {
      const r = await deployment.record(actionId);
      return r && { state: r.state, sendCount: r.sendCount };
    }, REBROADCAST_MS * 8);
    expect(seen).toEqual([{ state: 'expired', sendCount: expired.sendCount }]);
    expect((await control.landed()).some((l) => l.signature === first.signature)).toBe(false);
    const later = (await deployment.ledger()).filter((e) => e.type === 'action_state' && e.actionId === actionId);
    expect(later).toHaveLength(entries.length);
    expect(daemon.running).toBe(true);
  }, 180_000);
});
