import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { actIntent, type ActFacts } from '../../src/cli/act/act-intent.ts';
import { ActInputError } from '../../src/cli/act/human-units.ts';
import type { PositionView } from '../../src/sdk/position-view.ts';

const POSITION = '815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF';
const held: PositionView = { positionPubkey: POSITION, marketMint: MINTS.SOL, collateralMint: MINTS.SOL, side: 'long', sizeUsd: 1_000_000_000n, collateralUsd: 200_000_000n, markPriceUsd: 150_000_000n, liquidationPriceUsd: 100_000_000n, entryPriceUsd: 140_000_000n, pnlAfterFeesUsd: 0n, tpslRequests: [] };
const prices = new Map<string, bigint>([[MINTS.SOL, 150_000_000n]]);
const facts: ActFacts = { positions: [held], priceUsd: (m) => prices.get(m), maxLeverage: { SOL: 10, ETH: 10, BTC: 10 } };
/** The same wallet with no position: an open of SOL long is a new position. */
const flat: ActFacts = { ...facts, positions: [] };

const read = (line: string, on: ActFacts = facts) => {
  const [command, ...rest] = line.split(' ');
  const positionals: string[] = [];
  const options: Record<string, string | boolean> = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a.startsWith('--')) options[a.slice(2)] = rest[++i]!;
    else positionals.push(a);
  }
  return actIntent({ command: command!, positionals, options, reason: 'test' }, on);
};
const refusal = (line: string, on: ActFacts = facts): ActInputError => {
  try {
    read(line, on);
  } catch (error) {
    if (error instanceof ActInputError) return error;
    throw error;
  }
  throw new Error(`accepted: ${line}`);
};

describe('stratd act reads human units exactly', () => {
  it('open: collateral in the token, leverage, a % stop relative to the mark', () => {
    expect(read('open SOL long --collateral 1.5SOL --leverage 5 --sl 5% --tp 170', flat)).toMatchObject({
      type: 'open', marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '1500000000', leverage: '5',
      // 150 × 0.95 and $170 exactly; the notional 1.5 × 150 × 5.
      stopLossPrice: '142500000', takeProfitPrice: '170000000', notionalUsd: '1125000000',
    });
    // A short's stop is above the mark.
    expect(read('open SOL short --collateral 100USDC --size 300USD --sl 2.5%')).toMatchObject({ collateralMint: MINTS.USDC, collateralTokenDelta: '100000000', sizeUsdDelta: '300000000', stopLossPrice: '153750000' });
  });

  it('close, decrease, tpsl, swap, trigger, recurring, lp-mint, deposit-borrow, claim-fees', () => {
    expect(read(`close ${POSITION}`)).toMatchObject({ type: 'decrease', entirePosition: true, positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC' });
    expect(read(`decrease ${POSITION} --size 100USD`)).toMatchObject({ type: 'decrease', sizeUsdDelta: '100000000' });
    expect(read(`tpsl ${POSITION} --sl 10%`)).toMatchObject({ type: 'tpsl-create', requestType: 'sl', triggerPrice: '135000000' });
    expect(read('swap 1.5 SOL USDC')).toMatchObject({ type: 'swap', inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1500000000', notionalUsd: '225000000' });
    // The operator's own floor, in the output token's units: exact, as the amounts are.
    expect(read('swap 1 USDC JLP --min-out 0.25')).toMatchObject({ type: 'swap', outputMint: MINTS.JLP, minOutAmount: '250000' });
    expect(() => read('swap 1 SOL USDC --min-out 0.0000001')).toThrow(/--min-out/);
    expect(() => read('swap 1 SOL USDC --slippage-bps 10000')).toThrow(/maxSlippageBps.*10000 bps or more accepts nothing out/);
    expect(read('trigger create 2 SOL 400 USDC')).toMatchObject({ type: 'trigger-create', makingAmount: '2000000000', takingAmount: '400000000' });
    expect(read(`trigger cancel ${POSITION}`)).toMatchObject({ type: 'trigger-cancel', order: POSITION });
    expect(read('recurring create 100 USDC SOL --orders 4 --every 1h')).toMatchObject({ type: 'recurring-create', inAmount: '100000000', numberOfOrders: 4, intervalSec: 3600 });
    expect(read('lp-mint 100 USDC')).toMatchObject({ type: 'lp-mint', depositToken: 'USDC', depositTokenAmount: '100000000' });
    expect(read('lp-mint 0.01 BTC')).toMatchObject({ depositToken: 'WBTC', depositTokenAmount: '1000000' });
    expect(read('deposit-borrow 10 --borrow 5USDC')).toMatchObject({ type: 'deposit-borrow', depositTokenAmount: '10000000', borrowTokenAmount: '5000000' });
    expect(read(`claim-fees ${POSITION} --max 2.5`)).toMatchObject({ type: 'studio-claim-fee', maxQuoteAmount: '2500000' });
    expect(read('cancel-orders')).toMatchObject({ type: 'trigger-cancel-all' });
  });

  it('open of a market and side already held: refused in one line naming stratd act increase and the position', () => {
    const error = refusal('open SOL long --collateral 1SOL --leverage 2 --sl 5%');
    expect(error).toMatchObject({ argument: 'open', kind: 'bad_input' });
    expect(error.message).toBe(`open: the wallet already holds a SOL long position (${POSITION}); to add to it: stratd act increase ${POSITION} --collateral … (--leverage … | --size …)`);
    expect(error.message).not.toContain('\n');
    // The other side, or another market, opens.
    expect(read('open SOL short --collateral 100USDC --leverage 2 --sl 5%')).toMatchObject({ type: 'open', side: 'short' });
    expect(read(`increase ${POSITION} --collateral 1SOL --leverage 2`)).toMatchObject({ type: 'increase', positionPubkey: POSITION });
  });

  it('bad input names the argument and the allowed values', () => {
    expect(refusal('open DOGE long --collateral 1SOL --leverage 2 --sl 5%')).toMatchObject({ argument: '<market>', message: expect.stringContaining('allowed: SOL, ETH, BTC') });
    expect(refusal('swap 1.0000000001 SOL USDC')).toMatchObject({ argument: '<amount>', message: expect.stringContaining('SOL allows at most 9') });
    expect(refusal('swap 1 BONK USDC')).toMatchObject({ argument: '<token>', message: expect.stringContaining('not a tradable token; allowed: SOL, ETH, BTC, USDC, USDT, JLP') });
    expect(refusal('open SOL long --collateral 1SOL --leverage 11 --sl 5%', flat)).toMatchObject({ argument: '--leverage', message: expect.stringContaining('allowed 1.1 to 10 on SOL') });
    expect(refusal('open SOL long --collateral 1SOL --leverage 5', flat)).toMatchObject({ argument: '--sl' });
    expect(refusal('open SOL short --collateral 1SOL --leverage 5 --sl 5%')).toMatchObject({ argument: '--collateral', message: expect.stringContaining('USDC, USDT') });
    expect(refusal('close 4vkNeXiYEUizLdrpdPS1eC2mccyM4NUPRtERrk6ZETkk')).toMatchObject({ argument: '<position>', message: expect.stringContaining(POSITION) });
    expect(refusal(`decrease ${POSITION} --size 2000USD`)).toMatchObject({ argument: '--size' });
    expect(refusal('open ETH long --collateral 1ETH --leverage 2 --sl 5%')).toMatchObject({ argument: '--sl', message: expect.stringContaining('no mark price') });
  });
});
