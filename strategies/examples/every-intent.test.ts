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
];

const showcase = defineStrategy({ name: 'every-intent', config: z.object({}), subscribes: ['positions'], onSnapshot: () => every });

describe('every intent type', () => {
  it('validates as the daemon validates it', async () => {
    const out = await runStrategy(showcase, [samples.positions()]);
    expect(out.intents.map((i) => i.type)).toEqual(['decrease', 'decrease-with-fee', 'tpsl-create', 'tpsl-update', 'tpsl-cancel', 'trigger-create', 'trigger-cancel', 'trigger-cancel-all', 'swap', 'recurring-create', 'recurring-cancel', 'studio-claim-fee']);
  });
});
