// A limit-order update moves the trigger only: a build that also raises the order's size (x100,
// beside the new trigger) is refused before signing, held to the size the wallet's limit-orders
// read lists (an adversarial review found it signed). The honest update lands.
import { TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { encodePerpsInstructionData } from '../../src/chain/programs/perps/codec.ts';
import { decodeTransaction } from '../../src/chain/decode.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { LimitOrderUnlisted } from '../../src/pipeline/executor/limit-order-lookup.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import { VenueExecutorHarness } from '../executor/venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const PREFIX = `stratd-test:{limit-order-update-size-${process.pid}}:`;
const ORDERS_PATH = '/perps/v1/orders/limit';
let h: VenueExecutorHarness;
beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, PREFIX, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 0, keeperDelayMs: 200 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

type Body = Record<string, unknown>;

/**
 * Places a SOL long limit order at 90 % of the mark (paid in `inputMint`) and moves it to `toPct`
 * of the mark; `tamper` rewrites the build's size first.
 */
async function moveOrder(tamper: boolean, inputMint: string = MINTS.USDC, toPct = 88n) {
  const w = await h.fundedWallet();
  const mark = h.venue.market.price(MINTS.SOL);
  const inputAmount = inputMint === MINTS.USDC ? '100000000' : '1000000000';
  const mine = await h.control<{ positionRequestPubkey: string }>('limit-orders', { wallet: w.address, market: 'SOL', side: 'long', inputMint, inputAmount, leverage: '2', triggerPrice: ((mark * 90n) / 100n).toString() });
  if (tamper) {
    h.relay.answerInstead(ORDERS_PATH, async (body) => {
      const res = (await h.direct.call('perps.updateLimitOrder', body as never)) as Body;
      const tx = VersionedTransaction.deserialize(Buffer.from(String(res.serializedTxBase64), 'base64'));
      const decoded = await decodeTransaction(tx);
      const parsed = decoded.instructions.find((i) => i.programId === PROGRAMS.perps)!.parsed as { args: Record<string, unknown> };
      const message = TransactionMessage.decompile(tx.message);
      const ix = message.instructions.find((i) => i.programId.toBase58() === PROGRAMS.perps)!;
      ix.data = encodePerpsInstructionData('instantUpdateLimitOrder', { sizeUsdDelta: BigInt(String(parsed.args.sizeUsdDelta)) * 100n, triggerPrice: BigInt(String(parsed.args.triggerPrice)), requestTime: BigInt(String(parsed.args.requestTime)) });
      return { ...res, serializedTxBase64: Buffer.from(new VersionedTransaction(message.compileToV0Message()).serialize()).toString('base64') };
    });
  }
  try {
    const ex = h.executor(w);
    const job = h.job({ type: 'limit-order-update', key: `limit:move:${w.address}`, reason: 'move', notionalUsd: '0', positionRequestPubkey: mine.positionRequestPubkey, triggerPrice: ((mark * toPct) / 100n).toString() });
    await ex.accept(job);
    return { final: await ex.drive(job.actionId, h.signal), signatures: w.signatures() };
  } finally {
    h.relay.answerNormally(ORDERS_PATH);
  }
}

describe('limit-order-update', () => {
  it('a build that raises the order size beside the new trigger is refused, unsigned', async () => {
    const { final, signatures } = await moveOrder(true);
    expect(final).toMatchObject({ state: 'rejected', reason: 'policy:intent_exceeded' });
    expect(JSON.stringify(final!.violations)).toMatch(/sizeUsdDelta \d+ is above the intent's \d+/);
    expect(signatures).toBe(0);
  });

  it('the honest update lands', async () => {
    const { final } = await moveOrder(false);
    expect(final, JSON.stringify(final?.violations)).toMatchObject({ state: 'landed' });
  });

  it('an order paid in SOL moved up lands: its deposit makes a larger size at the higher trigger', async () => {
    const { final } = await moveOrder(false, MINTS.SOL, 95n);
    expect(final, JSON.stringify(final?.violations)).toMatchObject({ state: 'landed' });
  });

  it('an order no listing shows yet is not judged (inspected again), not refused as a hostile build', async () => {
    const w = await h.fundedWallet();
    const inspector = new PolicyInspector({ wallet: w.signer.publicKey, priorityFeeCapLamports: 5_000_000n, slippageBps: 100, limitOrder: async () => undefined });
    const intent = { type: 'limit-order-update' as const, key: 'k', reason: 'r', notionalUsd: '0', positionRequestPubkey: w.address, triggerPrice: '100000000' };
    const tx = new VersionedTransaction(new TransactionMessage({ payerKey: w.signer.publicKey, recentBlockhash: w.address, instructions: [] }).compileToV0Message());
    await expect(inspector.inspect(tx, { intent }, { operationId: 'perps.updateLimitOrder', route: 'perps-execute' })).rejects.toBeInstanceOf(LimitOrderUnlisted);
  });
});
