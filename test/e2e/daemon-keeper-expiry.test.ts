import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { DaemonFleet } from '../support/daemon-process.ts';
import { E2eDeployment } from './support/e2e-deployment.ts';
import { VenueControl } from '../support/venue-control.ts';
import { observe, waitUntil } from '../support/wait-until.ts';

/**
 * Acceptance: with the venue's keeper delayed beyond maxRequestExecutionSec, a decrease whose
 * request landed is never applied; the executor ends the action `expired` and sends nothing
 * after that, and the position is unchanged (the keeper refuses the stale request).
 */

const MAX_REQUEST_EXECUTION_SEC = 3;
const KEEPER_DELAY_MS = 10_000;
/** Not the executor's own fallback (5 s): the expiry's timing shows the configured grace reached it. */
const KEEPER_FILL_GRACE_MS = 6_000;

describe('keeper delayed beyond maxRequestExecutionSec', () => {
  const fleet = new DaemonFleet();
  let venue: Venue;
  let control: VenueControl;
  let deployment: E2eDeployment;

  beforeAll(async () => {
    venue = await startVenue({ seed: 47, clock: { speed: 1 } });
    control = new VenueControl(venue.apiUrl);
    deployment = await E2eDeployment.create('keeper');
  });

  afterEach(async () => {
    await fleet.killAll();
  });

  afterAll(async () => {
    await deployment?.close();
    await venue?.close();
  });

  it('expires the action, sends nothing after, and leaves the position unchanged', async () => {
    const position = await control.fundWithPositionNearLiquidation(deployment.walletAddress);
    await control.faults({ maxRequestExecutionSec: MAX_REQUEST_EXECUTION_SEC, keeperDelayMs: KEEPER_DELAY_MS });
    const daemon = fleet.start({ name: 'daemon (keeper delayed)', sets: deployment.sets({ ...E2eDeployment.againstVenue(venue), 'execution.rebroadcastMs': 250, 'execution.keeperFillGraceMs': KEEPER_FILL_GRACE_MS }) });
    const context = () => daemon.logTail();

    const actionId = await waitUntil(async () => (await deployment.actionIds())[0], { what: 'the guard decided a decrease', timeoutMs: 30_000, context });
    const expired = await waitUntil(async () => {
      const r = await deployment.record(actionId);
      return r && ['landed', 'rejected', 'expired'].includes(r.state) ? r : undefined;
    }, { what: 'the action is final', timeoutMs: 30_000, context });
    expect(expired.state, JSON.stringify({ reason: expired.reason, detail: expired.detail })).toBe('expired');
    expect(expired.reason).toBe('keeper_timeout');
    // The validity came from the venue's pool info (the poller), not a fallback.
    expect(expired.maxRequestExecutionSec).toBe(MAX_REQUEST_EXECUTION_SEC);
    expect(expired.awaitsKeeper).toBe(true);
    // The request itself landed (once); it is the keeper that never applied it in time.
    expect(expired.landedSlot).toBeDefined();
    expect((await control.landed()).filter((l) => l.signature === expired.signature)).toHaveLength(1);
    expect(expired.updatedAtMs - expired.builtAtMs!).toBeGreaterThan(MAX_REQUEST_EXECUTION_SEC * 1000);
    // The trades API was given execution.keeperFillGraceMs beyond the request's validity to show a fill.
    expect(expired.updatedAtMs - expired.landingSeenAtMs!).toBeGreaterThan(MAX_REQUEST_EXECUTION_SEC * 1000 + KEEPER_FILL_GRACE_MS);

    // No send after expiry: the send count and the ledger stay as they were.
    const entries = (await deployment.ledger()).filter((e) => e.type === 'action_state' && e.actionId === actionId);
    expect(entries.at(-1)?.state).toBe('expired');
    expect(entries.filter((e) => e.state === 'signed')).toHaveLength(1);
    const seen = await observe(async (): Promise<Pick<ActionRecord, 'state' | 'sendCount'> | undefined> => {
      const r = await deployment.record(actionId);
      return r && { state: r.state, sendCount: r.sendCount };
    }, 2_000);
    expect(seen).toEqual([{ state: 'expired', sendCount: expired.sendCount }]);
    expect((await deployment.ledger()).filter((e) => e.type === 'action_state' && e.actionId === actionId)).toHaveLength(entries.length);

    // The keeper gets to the request after its delay and refuses it as stale: no trade, and
    // the position keeps its size.
    const outcome = await waitUntil(async () => (await control.state()).requestOutcomes.find((o) => o.signature === expired.signature), {
      what: "the keeper's outcome for the expired request",
      timeoutMs: KEEPER_DELAY_MS + 10_000,
      context,
    });
    expect(outcome.status).toBe('rejected');
    expect(outcome.reason).toMatch(/^stale_request/);
    expect((await control.decreaseTrades(deployment.walletAddress)).filter((t) => t.txHash === expired.signature)).toEqual([]);
    expect(await control.positionSize(position.positionPubkey)).toBe(position.sizeUsd);
    expect((await control.landed()).filter((l) => l.signature === expired.signature)).toHaveLength(1);
    expect((await deployment.record(actionId))?.sendCount).toBe(expired.sendCount);
  }, 90_000);
});
