import { MINTS } from '../../src/api/mints.ts';
import { actionIdFor } from '../../src/records/action.ts';
import { actionRecord, type ActionRecord } from '../../src/records/action-record.ts';

export const POSITION = '815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF';
const ORDER = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';

/** A complete, valid intent of each type, so tests vary only what they are about. */
const TEMPLATES: Record<string, Record<string, unknown>> = {
  decrease: { positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '1000000' },
  'decrease-with-fee': { positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '1000000', feeTokenAmount: '1000', feeReceiver: ORDER },
  'tpsl-update': { tpslPubkey: ORDER, triggerPrice: '90000000', feeTokenAmount: '1000', feeReceiver: POSITION },
  'tpsl-create': { positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: '90000000', receiveToken: 'USDC' },
  'tpsl-cancel': { tpslPubkey: ORDER },
  'trigger-create': { inputMint: MINTS.SOL, outputMint: MINTS.USDC, makingAmount: '50000000', takingAmount: '10000000' },
  'trigger-cancel': { order: ORDER },
};

let n = 0;
export function recordFor(intent: { type: string } & Record<string, unknown>, extra: Partial<ActionRecord> = {}): ActionRecord {
  n++;
  const key = `k${process.pid}-${n}`;
  const strategy = extra.strategy ?? 'alpha';
  return actionRecord.parse({
    actionId: actionIdFor(strategy, key, 0),
    strategy,
    intent: { key, reason: 'test', notionalUsd: '1000000', ...TEMPLATES[intent.type], ...intent },
    decidedAtMs: Date.now(),
    window: 0,
    state: 'accepted',
    acceptedAtMs: Date.now(),
    updatedAtMs: Date.now(),
    ...extra,
  });
}
