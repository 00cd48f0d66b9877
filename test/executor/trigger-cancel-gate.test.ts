// The attack of issue 25, item 1, end to end: the API answers a trigger-cancel with the bytes of
// a trigger order's creation (9,000 of the wallet's 10,000 USDC for 1 lamport of SOL). A live-mode
// executor (trigger orders refused unchecked) used to sign it, because the policy refused a
// creation only under the label trigger.createOrder, and trading reduced to decreases and cancels
// (`stratd pause --reducing`) let the cancel through. The instruction gate judges the bytes: the
// action ends rejected, nothing is signed or sent, and the venue's balances do not move.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { RedisRiskGate } from '../../src/risk/risk-gate.ts';
import { sign } from '../venue/venue-fixture.ts';
import { TRIGGER_EXECUTE_PATH, VenueExecutorHarness } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const prefix = `stratd-test:{trigger-cancel-gate-${process.pid}}:`;
let h: VenueExecutorHarness;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, prefix, { blockhashValidBlocks: 750 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

describe('a trigger-cancel answered with a createOrder transaction', () => {
  it.each(['active', 'reducing'] as const)('is refused by the live-mode executor unsigned (trading %s), and the wallet keeps its USDC', async (trading) => {
    const w = await h.fundedWallet();
    // The order the strategy wants cancelled: a real open order (100 USDC escrowed).
    const open = await h.direct.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: w.address, payer: w.address, params: { makingAmount: '100000000', takingAmount: '1000000000' } });
    await h.direct.call('trigger.execute', { requestId: open.requestId!, signedTransaction: sign(open.transaction, w.keypair) });

    // The hostile API: the cancel's answer is a creation built for the same wallet.
    h.relay.answerInstead('/trigger/v1/cancelOrder', async (body) => {
      const { maker } = body as { maker: string };
      const create = await h.direct.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker, payer: maker, params: { makingAmount: '9000000000', takingAmount: '1' } });
      return { requestId: create.requestId, transaction: create.transaction };
    });
    const usdcBefore = h.venue.chain.getTokenBalance(w.address, MINTS.USDC);
    const lamportsBefore = h.venue.chain.getBalance(w.address);
    const activeBefore = (await h.direct.call('trigger.getTriggerOrders', { user: w.address, orderStatus: 'active' })).orders;
    expect(activeBefore.map((o) => o.orderKey)).toEqual([open.order]);

    const inspector = new PolicyInspector({ wallet: w.signer.publicKey, priorityFeeCapLamports: 5_000_000n, slippageBps: 100 });
    const risk = new RedisRiskGate({ redis, prefix, limits: { maxNotionalPerActionUsd: 10n ** 12n, maxActionsPerStrategyPerHour: 100, maxNotionalPerHourUsd: 10n ** 12n, dailyLossStopUsd: 10n ** 12n, circuitBreakerRejections: 100 } });
    await risk.tradingState.set(trading, 'test', 'test');
    const ex = h.executor(w, { inspector, risk });
    const cancel = h.job({ type: 'trigger-cancel', key: `trigger:cancel:${w.address}`, reason: 'no longer wanted', notionalUsd: '0', order: open.order! });
    await ex.accept(cancel);
    const final = await ex.drive(cancel.actionId, h.signal);

    // The gate let the cancel through (reducing: a cancel lowers exposure); the policy refused it.
    expect(h.relay.to('/trigger/v1/cancelOrder').filter((r) => (r.body as { maker?: string }).maker === w.address)).toHaveLength(1);
    expect(final).toMatchObject({ state: 'rejected', reason: 'policy:product_instruction', operationId: 'trigger.cancelOrder' });
    expect(final?.detail).toContain('trigger.cancelOrder carries initialize_order of the limit-order program; allowed: cancel_order');
    expect(final?.signature).toBeUndefined();
    expect(final?.signedTx).toBeUndefined();
    expect(w.signatures()).toBe(0);
    expect(h.relay.to(TRIGGER_EXECUTE_PATH)).toEqual([]);
    expect(await h.statesOf(cancel.actionId)).not.toContain('signed');

    // Nothing moved: the wallet's USDC and SOL, and its one open order.
    expect(h.venue.chain.getTokenBalance(w.address, MINTS.USDC)).toBe(usdcBefore);
    expect(h.venue.chain.getBalance(w.address)).toBe(lamportsBefore);
    expect((await h.direct.call('trigger.getTriggerOrders', { user: w.address, orderStatus: 'active' })).orders).toEqual(activeBefore);
  });
});
