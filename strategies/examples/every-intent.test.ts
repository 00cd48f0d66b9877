import { describe, expect, it } from 'vitest';
import { defineStrategy, MINTS, z, type Intent } from 'stratd/strategy';
import { runStrategy, samples } from 'stratd/testing';

// One intent of each type, as a strategy returns them (amounts: USD × 10^6 or token smallest units).
const position = samples.SAMPLE_POSITION;
const common = { positionPubkey: position, marketMint: MINTS.SOL, side: 'long' as const, receiveToken: 'USDC' as const };
const feeReceiver = 'AtxesCy9HF9KEShjdMyUQDLdjEDcN6u5q1g7H5fDJYQD'; // a USDC token account
const tpsl = 'EZ5cqkFNwD5McTi3LvThEspVZ9m3Fa3tVEJoeTVNr87Y';
const pool = 'HRos93vwrtHJUHS4apYCqp135W4QGiAkdGLGX1S5ZBQb'; // a Studio (DBC) pool the wallet created

const every: Intent[] = [
  { type: 'decrease', key: `cut:${position}`, reason: 'trim', notionalUsd: '250000000', ...common, sizeUsdDelta: '250000000' },
  { type: 'decrease-with-fee', key: `close:${position}`, reason: 'close, paying a fee', notionalUsd: '1000000000', ...common, entirePosition: true, feeTokenAmount: '100000', feeReceiver },
  { type: 'tpsl-create', key: `sl:${position}`, reason: 'stop-loss', notionalUsd: '0', ...common, requestType: 'sl', triggerPrice: '135000000', entirePosition: true },
  { type: 'tpsl-update', key: `move:${tpsl}`, reason: 'tighten', notionalUsd: '0', tpslPubkey: tpsl, triggerPrice: '140000000' },
  { type: 'tpsl-cancel', key: `cancel:${tpsl}`, reason: 'not needed', notionalUsd: '0', tpslPubkey: tpsl },
  { type: 'trigger-create', key: `bid:${samples.SAMPLE_TOKENS[0]}`, reason: 'limit buy', notionalUsd: '10000000', inputMint: MINTS.USDC, outputMint: samples.SAMPLE_TOKENS[0], makingAmount: '10000000', takingAmount: '8000000000', expiredAt: '1767700000' },
  { type: 'trigger-cancel', key: `cancel:${samples.SAMPLE_ORDER}`, reason: 'stale bid', notionalUsd: '10000000', order: samples.SAMPLE_ORDER },
  // Cancels at most five open orders per action (the wallet's first five): repeat with a new key until refused build:no_open_orders.
  { type: 'trigger-cancel-all', key: 'cancel-all:1', reason: 'flatten the book', notionalUsd: '0' },
  { type: 'swap', key: 'swap:usdc-sol', reason: 'buy $50 of SOL', notionalUsd: '50000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '50000000', maxSlippageBps: '50' },
  { type: 'recurring-create', key: 'dca:sol', reason: 'buy $300 of SOL over 3 days', notionalUsd: '300000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '300000000', numberOfOrders: 3, intervalSec: 86_400 },
  { type: 'recurring-cancel', key: `dca:cancel:${samples.SAMPLE_ORDER}`, reason: 'stop buying', notionalUsd: '0', order: samples.SAMPLE_ORDER },
  { type: 'studio-claim-fee', key: `claim:${pool}`, reason: 'collect creator fees', notionalUsd: '0', poolAddress: pool, maxQuoteAmount: '1000000000' },
  // Opening risk: a stop-loss is required at open (attached to the same transaction).
  { type: 'open', key: 'open:SOL:short', reason: 'momentum short', notionalUsd: '300000000', marketMint: MINTS.SOL, side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000', leverage: '3', stopLossPrice: '165000000', takeProfitPrice: '135000000' },
  { type: 'increase', key: `add:${position}`, reason: 'add to the winner', notionalUsd: '50000000', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '100000000', sizeUsdDelta: '50000000' },
  { type: 'add-collateral', key: `collateral:${position}`, reason: 'lower the leverage', notionalUsd: '0', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '200000000' },
  { type: 'limit-order-create', key: 'limit:SOL:long', reason: 'buy the dip', notionalUsd: '300000000', marketMint: MINTS.SOL, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: '100000000', triggerPrice: '135000000', leverage: '3' },
  { type: 'limit-order-update', key: `limit:move:${samples.SAMPLE_ORDER}`, reason: 'lower the entry', notionalUsd: '0', positionRequestPubkey: samples.SAMPLE_ORDER, triggerPrice: '130000000' },
  { type: 'limit-order-cancel', key: `limit:cancel:${samples.SAMPLE_ORDER}`, reason: 'no longer wanted', notionalUsd: '0', positionRequestPubkey: samples.SAMPLE_ORDER },
  { type: 'lp-mint', key: 'lp:USDC', reason: 'park idle USDC', notionalUsd: '1000000000', depositToken: 'USDC', depositTokenAmount: '1000000000' },
  { type: 'deposit-borrow', key: 'borrow:JLP', reason: 'borrow against LP', notionalUsd: '100000000', depositTokenAmount: '100000000', borrowTokenAmount: '100000000' },
];

const showcase = defineStrategy({ name: 'every-intent', config: z.object({}), subscribes: ['positions'], onSnapshot: () => every });

describe('every intent type', () => {
  it('validates as the daemon validates it', async () => {
    const out = await runStrategy(showcase, [samples.positions()]);
    expect(out.intents.map((i) => i.type)).toEqual(every.map((i) => i.type));
    expect(out.intents).toHaveLength(every.length);
  });
});
