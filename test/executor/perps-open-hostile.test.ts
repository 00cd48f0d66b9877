// Hostile open builds that once passed the signing policy (an adversarial review's proofs): an
// attached stop paying out in another mint than the position's collateral, less collateral paid
// for the same size (a higher leverage than the one judged), and a reply that names the
// take-profit as the stop (the TP/SL book, and stop arbitration, go by the reply's names). Each is
// now refused before signing, and nothing is opened.
import { TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { decodeTransaction } from '../../src/chain/decode.ts';
import { encodePerpsInstructionData } from '../../src/chain/programs/perps/codec.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { VenueExecutorHarness, type TestWallet } from '../executor/venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const PREFIX = `stratd-test:{perps-open-hostile-${process.pid}}:`;
const INCREASE_PATH = '/perps/v1/positions/increase';
let h: VenueExecutorHarness;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, PREFIX, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 0, keeperDelayMs: 200 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

type Body = Record<string, unknown>;
const solMark = () => h.venue.market.price(MINTS.SOL);

function openShort(key: string, overrides: Partial<Extract<Intent, { type: 'open' }>> = {}): Extract<Intent, { type: 'open' }> {
  const mark = solMark();
  return {
    type: 'open', key, reason: 'test entry', notionalUsd: '300000000',
    marketMint: MINTS.SOL, side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000', leverage: '3',
    stopLossPrice: ((mark * 105n) / 100n).toString(), takeProfitPrice: ((mark * 90n) / 100n).toString(),
    ...overrides,
  };
}

function hostileIncrease(change: (body: Body) => Body, reply: (res: Body) => Body = (res) => res): void {
  h.relay.answerInstead(INCREASE_PATH, async (body) => reply((await h.direct.call('perps.increase', change(body as Body) as never)) as Body));
}

async function runToEnd(w: TestWallet, intent: Intent) {
  const ex = h.executor(w);
  const job = h.job(intent);
  await ex.accept(job);
  return { job, final: await ex.drive(job.actionId, h.signal) };
}

async function shortOf(w: TestWallet) {
  return (await h.positions(w)).map(positionView).find((v) => v?.side === 'short' && v.marketMint === MINTS.SOL);
}

/** Runs the open under a hostile build: refused by the policy with intent_exceeded, nothing signed, no position. */
async function refused(name: string, change: (body: Body) => Body, reply?: (res: Body) => Body) {
  const w = await h.fundedWallet();
  hostileIncrease(change, reply);
  try {
    const { final } = await runToEnd(w, openShort(`open:${name}:${w.address}`));
    expect(final, JSON.stringify(final)).toMatchObject({ state: 'rejected', reason: 'policy:intent_exceeded' });
    expect(final?.signedTx).toBeUndefined();
    expect((await shortOf(w))?.sizeUsd ?? 0n).toBe(0n);
    return final!;
  } finally {
    h.relay.answerNormally(INCREASE_PATH);
  }
}

describe('hostile open builds are refused before signing', () => {
  it("an attached stop-loss that pays out in another mint than the position's collateral", async () => {
    // The executor asks for desiredMint USDC (the short's collateral); the build pays the stop out in SOL.
    const final = await refused('desired', (b) => ({ ...b, tpsl: (b.tpsl as Body[]).map((t) => ({ ...t, desiredMint: MINTS.SOL })) }));
    expect(JSON.stringify(final.violations)).toContain(`pays out in ${MINTS.SOL}; the build asked for ${MINTS.USDC}`);
  });

  it('30 USDC paid for $300 of size (10x) where the intent asked 100 USDC at 3x', async () => {
    const final = await refused('lev', (b) => {
      const { leverage: _l, ...rest } = b;
      return { ...rest, collateralTokenDelta: '30000000', sizeUsdDelta: '300000000' };
    });
    expect(JSON.stringify(final.violations)).toContain("collateralTokenDelta 30000000 differs from the intent's 100000000");
  });

  it('a reply that names the take-profit as the stop-loss', async () => {
    const final = await refused(
      'swap',
      (b) => b,
      (res) => ({ ...res, tpslRequests: (res.tpslRequests as Body[]).map((t) => ({ ...t, requestType: t.requestType === 'sl' ? 'tp' : 'sl' })) }),
    );
    expect(JSON.stringify(final.violations)).toContain("the build's reply names");
  });

  it('an open whose instruction leaves its collateral out (None) for the same size', async () => {
    const w = await h.fundedWallet();
    h.relay.answerInstead(INCREASE_PATH, async (body) => {
      const res = (await h.direct.call('perps.increase', body as never)) as Body;
      const tx = VersionedTransaction.deserialize(Buffer.from(String(res.serializedTxBase64), 'base64'));
      const perps = (await decodeTransaction(tx)).instructions.find((i) => i.parsed?.program === 'perps' && i.parsed.type === 'instantIncreasePosition')!;
      const args = (perps.parsed as { args: Record<string, unknown> }).args;
      const message = TransactionMessage.decompile(tx.message);
      const ix = message.instructions[perps.index]!;
      ix.data = encodePerpsInstructionData('instantIncreasePosition', { sizeUsdDelta: BigInt(String(args.sizeUsdDelta)), collateralTokenDelta: null, side: 'short', priceSlippage: BigInt(String(args.priceSlippage)), requestTime: BigInt(String(args.requestTime)) });
      return { ...res, serializedTxBase64: Buffer.from(new VersionedTransaction(message.compileToV0Message()).serialize()).toString('base64') };
    });
    try {
      const { final } = await runToEnd(w, openShort(`open:none:${w.address}`));
      expect(final, JSON.stringify(final)).toMatchObject({ state: 'rejected', reason: 'policy:intent_exceeded' });
      expect(JSON.stringify(final!.violations)).toContain("collateralTokenDelta 0 differs from the intent's 100000000");
      expect(w.signatures()).toBe(0);
    } finally {
      h.relay.answerNormally(INCREASE_PATH);
    }
  });

  it('the honest open lands with its stop paid out in the collateral', async () => {
    const w = await h.fundedWallet();
    const { final } = await runToEnd(w, openShort(`open:honest:${w.address}`));
    expect(final, JSON.stringify(final?.violations)).toMatchObject({ state: 'landed' });
    const [sl, tp] = final!.createdTpslPubkeys!;
    expect(h.venue.market.perps.tpsl.get(sl!)).toMatchObject({ requestType: 'sl', desiredMint: MINTS.USDC });
    expect(h.venue.market.perps.tpsl.get(tp!)).toMatchObject({ requestType: 'tp' });
  });
});
