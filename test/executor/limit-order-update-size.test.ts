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

/** Moves the wallet's one resting SOL long limit order 2 % lower; `tamper` rewrites the build's size first. */
async function moveOrder(tamper: boolean) {
  const w = await h.fundedWallet();
  const mark = h.venue.market.price(MINTS.SOL);
  const mine = await h.control<{ positionRequestPubkey: string }>('limit-orders', { wallet: w.address, market: 'SOL', side: 'long', inputMint: MINTS.USDC, inputAmount: '100000000', leverage: '2', triggerPrice: ((mark * 90n) / 100n).toString() });
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
    const job = h.job({ type: 'limit-order-update', key: `limit:move:${w.address}`, reason: 'move', notionalUsd: '0', positionRequestPubkey: mine.positionRequestPubkey, triggerPrice: ((mark * 88n) / 100n).toString() });
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
});
