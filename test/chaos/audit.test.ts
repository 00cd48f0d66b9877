import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, type AuditInput } from '../../chaos/audit.ts';
import { LedgerTail } from '../../chaos/ledger-tail.ts';
import { SettlementWatch } from '../../chaos/settlement-watch.ts';
import type { LandedTx, RequestOutcome, VenueTrade } from '../../chaos/venue.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { intentLockKey } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { redisScope } from '../support/redis-scope.ts';

/**
 * The chaos audit finds each kind of problem it reports, from a ledger written to the real Redis
 * (read back through the same tail the orchestrator uses) and venue facts: an audit that found
 * nothing because it could not see would make the chaos suite's zeros worthless.
 */

const scope = redisScope('chaos-audit');
const WALLET = 'Wa11et1111111111111111111111111111111111111';
const POSITION = 'Pos1tion11111111111111111111111111111111111';
const T0 = 1_800_000_000_000;

beforeAll(async () => {
  await scope.clean();
});
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

type Step = [state: string, atMs: number, signature?: string, reason?: string];

async function write(ledger: Ledger, actionId: string, steps: Step[], intentKey = `decrease:${POSITION}`, intent = 'decrease'): Promise<void> {
  await ledger.append({ at: T0, type: 'decision', actionId, strategy: 'liquidation-guard', detail: { intentKey } });
  for (const [state, at, signature, reason] of steps) {
    const detail = { ...(state === 'accepted' ? { intent } : {}), ...(signature ? { signature } : {}), ...(reason ? { reason } : {}) };
    await ledger.append({ at, type: 'action_state', actionId, strategy: 'liquidation-guard', state, detail });
  }
}

const landedTx = (signature: string): LandedTx => ({ signature, landedAtMs: T0, err: null, request: { requestId: signature, operationId: 'perps.decrease', wallet: WALLET } });
const fill = (txHash: string, orderType = 'Market', createdMs = T0): VenueTrade => ({ seq: 1, createdMs, action: 'Decrease', orderType, owner: WALLET, positionPubkey: POSITION, size: '1', txHash });
const outcome = (signature: string, status: 'executed' | 'rejected', reason: string | null = null): RequestOutcome => ({ requestPubkey: `req-${signature}`, kind: 'decrease', signature, status, reason, atMs: T0 });

describe('chaos audit', () => {
  it('reports landed twice, multi-signature, lost, stuck, unsettled, landed without own fill, contradicted finals and preventable liquidations', async () => {
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 10_000 });
    const ok: Step[] = [['accepted', T0], ['signed', T0 + 1, 'sigOk'], ['submitted', T0 + 2, 'sigOk'], ['landed', T0 + 3, 'sigOk']];
    await write(ledger, 'act-ok', ok, 'decrease:other');
    await write(ledger, 'act-twice', [['accepted', T0], ['signed', T0 + 1, 'sigA'], ['submitted', T0 + 2, 'sigA'], ['signed', T0 + 3, 'sigB'], ['landed', T0 + 4, 'sigB']], 'decrease:twice');
    await write(ledger, 'act-nofill', [['accepted', T0], ['signed', T0 + 1, 'sigRefused'], ['landed', T0 + 3, 'sigRefused']], 'decrease:nofill');
    // A TP/SL create lands with its own transaction: no keeper fill is owed.
    await write(ledger, 'act-tpsl', [['accepted', T0], ['signed', T0 + 1, 'sigTpsl'], ['landed', T0 + 3, 'sigTpsl']], 'tpsl:create', 'tpsl-create');
    // A TP/SL create the ledger calls expired although its own transaction landed: contradicted.
    await write(ledger, 'act-tpsl-expired', [['accepted', T0], ['signed', T0 + 1, 'sigTpslLost'], ['expired', T0 + 70_000, undefined, 'blockhash_expired']], 'tpsl:lost', 'tpsl-create');
    await write(ledger, 'act-lost', [['accepted', T0], ['built', T0 + 1]], 'decrease:lost');
    await write(ledger, 'act-stuck', [['accepted', T0], ['signed', T0 + 1, 'sigStuck'], ['submitted', T0 + 2, 'sigStuck']], 'decrease:stuck');
    // Pending on POSITION for 8 s when it was liquidated.
    await write(ledger, 'act-liq', [['accepted', T0], ['built', T0 + 100], ['rejected', T0 + 20_000, undefined, 'keeper refused']]);
    // Final, but its intent lock is still held.
    await write(ledger, 'act-unsettled', [['accepted', T0], ['rejected', T0 + 1, undefined, 'policy']], 'decrease:unsettled');
    await scope.redis.set(intentLockKey(scope.prefix, 'liquidation-guard', 'decrease:unsettled'), 'act-unsettled');
    await scope.redis.zadd(`${scope.prefix}actions:open`, T0, 'act-stuck');

    const tail = new LedgerTail(scope.redis, `${scope.prefix}ledger`);
    await tail.poll();
    expect(tail.entries).toBe(9 + 28);
    const watch = new SettlementWatch(scope.redis, scope.prefix, tail, 1_000, () => 0);
    await watch.check(T0 + 60_000);

    const input: AuditInput = {
      wallet: WALLET, tail, watch,
      landed: [landedTx('sigOk'), landedTx('sigA'), landedTx('sigB'), landedTx('sigRefused'), landedTx('sigTpslLost')],
      trades: [fill('sigOk'), fill('sigA'), fill('sigB'), fill('liquidation', 'Liquidation', T0 + 8_000)],
      outcomes: [outcome('sigOk', 'executed'), outcome('sigRefused', 'rejected', 'invalid_position')],
      openSet: new Set(['act-stuck']), auditAtMs: T0 + 600_000, stuckAfterMs: 120_000, incidents: [],
      fleet: { kills: 0, failpointExits: 0, startRefusals: 0, unexpectedExits: 0, starts: 0, byFailpoint: {} },
      memory: { samples: 0, firstBytes: undefined, midBytes: undefined, endBytes: undefined, lastHalfGrowthPct: undefined, lastHalfSlopeMbPerMin: undefined },
      redisRestarts: 0, positionsOpened: 0, preventableAfterMs: 5_000, redisKeys: {},
    };
    const result = audit(input);
    const ids = (xs: ReadonlyArray<{ actionId: string }>) => xs.map((x) => x.actionId);
    expect(ids(result.landedTwice)).toEqual(['act-twice']);
    expect(ids(result.multiSignature)).toEqual(['act-twice']);
    expect(ids(result.landedWithoutOwnFill)).toEqual(['act-nofill']);
    expect(result.landedWithoutOwnFill[0]?.why).toContain('invalid_position');
    expect(ids(result.lost)).toEqual(['act-lost']);
    expect(ids(result.stuck)).toEqual(['act-stuck']);
    expect(ids(result.unsettled)).toEqual(['act-unsettled']);
    expect(ids(result.preventableLiquidations)).toEqual(['act-liq']);
    expect(ids(result.contradicted)).toEqual(['act-tpsl-expired']);
    expect(result.actions.byFinalState).toEqual({ landed: 4, rejected: 2, expired: 1, open: 2 });

    // The same liquidation during an outage is not stratd's to prevent; a short wait is not either.
    expect(audit({ ...input, incidents: [{ what: 'API outage (hang) 30 s', fromMs: T0 + 1_000, toMs: T0 + 31_000 }] }).preventableLiquidations).toEqual([]);
    expect(audit({ ...input, preventableAfterMs: 10_000 }).preventableLiquidations).toEqual([]);
  });

  it('a doubled open is found by the venue: an executed increase of the wallet that no opening action signed is landed twice', async () => {
    const ledger = new Ledger(scope.redis, { prefix: `${scope.prefix}opens:`, maxLen: 10_000 });
    await write(ledger, 'act-open', [['accepted', T0], ['signed', T0 + 1, 'sigOpen'], ['submitted', T0 + 2, 'sigOpen'], ['landed', T0 + 3, 'sigOpen']], 'chaos-open:SOL:long:1', 'open');
    await write(ledger, 'act-swap', [['accepted', T0], ['signed', T0 + 1, 'sigSwap'], ['landed', T0 + 3, 'sigSwap']], 'chaos-swap:2', 'swap');
    const tail = new LedgerTail(scope.redis, `${scope.prefix}opens:ledger`);
    await tail.poll();
    const watch = new SettlementWatch(scope.redis, `${scope.prefix}opens:`, tail, 1_000, () => 0);
    const increase = (signature: string): RequestOutcome => ({ ...outcome(signature, 'executed'), kind: 'perps.increase' });
    const input: AuditInput = {
      wallet: WALLET, tail, watch,
      landed: [landedTx('sigOpen'), landedTx('sigSwap')],
      trades: [], outcomes: [increase('sigOpen')],
      openSet: new Set(), auditAtMs: T0 + 600_000, stuckAfterMs: 120_000, incidents: [],
      fleet: { kills: 0, failpointExits: 0, startRefusals: 0, unexpectedExits: 0, starts: 0, byFailpoint: {} },
      memory: { samples: 0, firstBytes: undefined, midBytes: undefined, endBytes: undefined, lastHalfGrowthPct: undefined, lastHalfSlopeMbPerMin: undefined },
      redisRestarts: 0, positionsOpened: 0, preventableAfterMs: 5_000, redisKeys: {},
    };
    const once = audit(input);
    expect(once.landedTwice).toEqual([]);
    expect(once.landedWithoutOwnFill).toEqual([]);
    expect(once.opens).toEqual({ decided: 1, landed: 1, executedOnVenue: 1 });
    expect(once.actions.landedByType).toEqual({ open: 1, swap: 1 });
    // A second signing of the same open landed and was executed: our records know one transaction, the venue two.
    const twice = audit({ ...input, landed: [...input.landed, landedTx('sigRogue')], outcomes: [increase('sigOpen'), increase('sigRogue')] });
    expect(twice.landedTwice).toEqual([expect.objectContaining({ actionId: expect.stringMatching(/^venue:req-sigRog/), why: expect.stringContaining('no opening action of the ledger signed') })]);
    expect(twice.opens).toEqual({ decided: 1, landed: 1, executedOnVenue: 2 });
    // An open the ledger calls landed whose request the keeper never executed is "landed" without its own fill.
    expect(audit({ ...input, outcomes: [] }).landedWithoutOwnFill.map((f) => f.actionId)).toEqual(['act-open']);
  });
});
