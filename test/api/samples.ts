import { MINTS } from '../../src/api/mints.ts';
import type { OperationId, RequestOf } from '../../src/api/registry.ts';
import { fixtureText } from '../support/fixtures.ts';

export const WALLET = 'devjnEpxbJUhJ39FSsFz7YPerr5bdxN8VWUXvfbFUK4';
export const POSITION = '815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF';
export const ORDER = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';
export const FEE_ATA = 'G18jKKXQwBbrHeiK3C9MRXhkHsLHf7XgCSisykV46EZa';
const TX = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
const META = { blockhash: '4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn', lastValidBlockHeight: '301856775', transactionFeeLamports: '5000', accountRentLamports: '0' };

export interface Sample<Id extends OperationId> {
  readonly request: RequestOf<Id>;
  /** Body the server answers with: a fixture's exact text, or JSON of an object. */
  readonly responseText: string;
  /** What must arrive at the server, written out by hand (not derived from the registry). */
  readonly expect: { method: string; path: string; query: Record<string, string>; body?: Record<string, unknown> };
}

const json = (value: unknown) => JSON.stringify(value);

const limitOrder = {
  collateralMint: MINTS.USDC, collateralCustody: 'G18jKKXQwBbrHeiK3C9MRXhkHsLHf7XgCSisykV46EZa', collateralUsd: '25000000',
  collateralUsdAtTriggerPrice: '25000000', collateralTokenAmount: '25000000', custody: '7xS2gz2bTp3fwCC7knJvUWTEU9Tycczu6VhJYKgi1wdz',
  executed: false, inputMint: MINTS.USDC, liquidationPriceUsd: '120000000', marketMint: MINTS.SOL, maxSizeUsdDelta: '100000000',
  minSizeUsdDelta: '99000000', openTime: '1722851463', positionPubkey: POSITION, positionRequestPubkey: ORDER, side: 'long',
  sizeUsdDelta: '100000000', triggerPrice: '130000000', triggerToLiquidationPercent: '8.33',
};
const trade = {
  action: 'Decrease', collateralUsdDelta: '-5000000', createdTime: 1722851463, updatedTime: 1722851463, baseFee: '60000',
  borrowFee: '1000', liquidationFee: '0', priceImpactFee: '500', fee: '61500', mint: MINTS.SOL, orderType: 'Market',
  pnl: '-1200000', pnlPercentage: '-4.8', positionName: 'SOL-PERP', price: '150000000', side: 'long', size: '100000000', txHash: 'sig',
};
const quoteRaw = JSON.parse(fixtureText('perps-v1-positions-decrease-1.json')).quote as Record<string, string>;
const formatted = Object.fromEntries(
  ['closeFeeUsd', 'collateralUsdDelta', 'liquidationPriceUsd', 'outstandingBorrowFeeUsd', 'pnlAfterFeesUsd', 'pnlBeforeFeesUsd', 'positionCollateralUsd', 'positionSizeUsd', 'priceImpactFeeUsd', 'sizeUsdDelta', 'totalFeeUsd', 'transferAmountUsd'].map((k) => [`${k}Formatted`, '1.00']),
);
const integratorFee = { integratorFeeTokenMint: MINTS.USDC, integratorFeeTokenAmount: '100000', integratorFeeUsd: '100000', integratorFeeUsdFormatted: '0.10' };

export const SAMPLES: { [Id in OperationId]: Sample<Id> } = {
  'tokens.ranked': {
    request: { category: 'toptraded', interval: '1h', limit: 10 },
    responseText: fixtureText('tokens-v2-search-3.json'),
    expect: { method: 'GET', path: '/tokens/v2/toptraded/1h', query: { limit: '10' } },
  },
  'tokens.new': {
    request: { limit: 5, offset: 10 },
    responseText: json([{ mint: ORDER, name: 'New', symbol: 'NEW', decimals: 6, known_markets: [POSITION], created_at: '1733700000', metadata_updated_at: 1733700001, logo_uri: null, mint_authority: null, freeze_authority: null }]),
    expect: { method: 'GET', path: '/tokens/v1/new', query: { limit: '5', offset: '10' } },
  },
  'perps.poolInfo': {
    request: { mint: MINTS.SOL },
    responseText: fixtureText('perps-v1-pool-info-1.json'),
    expect: { method: 'GET', path: '/perps/v1/pool-info', query: { mint: MINTS.SOL } },
  },
  'perps.positions': {
    request: { walletAddress: WALLET, includeClosedPositions: false },
    responseText: fixtureText('perps-v1-positions-1.json'),
    expect: { method: 'GET', path: '/perps/v1/positions', query: { walletAddress: WALLET, includeClosedPositions: 'false' } },
  },
  'perps.collateralLimits': {
    request: { inputMint: MINTS.SOL, positionPubkey: POSITION },
    responseText: json({ maxCollateralDepositTokenAmount: '1000000000', maxCollateralDepositUsd: '150000000', minCollateralDepositTokenAmount: '1', minCollateralDepositUsd: '1', maxCollateralWithdrawalTokenAmount: '500000000', maxCollateralWithdrawalUsd: '75000000', minCollateralWithdrawalTokenAmount: '0', minCollateralWithdrawalUsd: '0' }),
    expect: { method: 'GET', path: '/perps/v1/positions/collateral-limits', query: { inputMint: MINTS.SOL, positionPubkey: POSITION } },
  },
  'perps.limitOrders': {
    request: { walletAddress: WALLET },
    responseText: json({ count: 1, dataList: [limitOrder] }),
    expect: { method: 'GET', path: '/perps/v1/orders/limit', query: { walletAddress: WALLET }, body: { walletAddress: WALLET } },
  },
  'perps.trades': {
    request: { walletAddress: WALLET, action: 'Decrease', side: 'long', mint: MINTS.SOL, createdAtAfter: '1700000000', createdAtBefore: '1800000000', start: 0, end: 20 },
    responseText: json({ count: 1, dataList: [trade] }),
    expect: { method: 'GET', path: '/perps/v1/trades', query: { walletAddress: WALLET, action: 'Decrease', side: 'long', mint: MINTS.SOL, createdAtAfter: '1700000000', createdAtBefore: '1800000000', start: '0', end: '20' } },
  },
  'perps.traderStats': {
    request: { walletAddress: WALLET, marketMint: MINTS.ETH, year: '2026', week: 'current' },
    responseText: json({ totalVolumeUsd: '1000000000', totalPnlUsd: '-2500000', startTimestamp: 1763942400, endTimestamp: 1764547200 }),
    expect: { method: 'GET', path: '/perps/v1/trader-stats', query: { walletAddress: WALLET, marketMint: MINTS.ETH, year: '2026', week: 'current' } },
  },
  'perps.increase': {
    request: { inputMint: MINTS.USDC, collateralMint: MINTS.USDC, collateralTokenDelta: '25000000', marketMint: MINTS.BTC, side: 'short', leverage: '5', maxSlippageBps: '200', walletAddress: WALLET, transactionType: 'legacy', includeSerializedTx: true },
    responseText: json({ positionPubkey: POSITION, positionRequestPubkey: ORDER, quote: { leverage: '5.00' }, requireKeeperSignature: false, serializedTxBase64: TX, transactionType: 'legacy', txMetadata: META }),
    expect: { method: 'POST', path: '/perps/v1/positions/increase', query: {}, body: { inputMint: MINTS.USDC, collateralMint: MINTS.USDC, collateralTokenDelta: '25000000', marketMint: MINTS.BTC, side: 'short', leverage: '5', maxSlippageBps: '200', walletAddress: WALLET, transactionType: 'legacy', includeSerializedTx: true } },
  },
  'perps.decrease': {
    request: { positionPubkey: POSITION, receiveToken: 'USDC', sizeUsdDelta: '10000000', maxSlippageBps: '200' },
    responseText: fixtureText('perps-v1-positions-decrease-1.json'),
    expect: { method: 'POST', path: '/perps/v1/positions/decrease', query: {}, body: { positionPubkey: POSITION, receiveToken: 'USDC', sizeUsdDelta: '10000000', maxSlippageBps: '200' } },
  },
  'perps.decreaseWithFee': {
    request: { positionPubkey: POSITION, receiveToken: 'SOL', entirePosition: true, feeToken: 'USDC', feeTokenAmount: '100000', feeReceiver: FEE_ATA },
    responseText: json({ positionPubkey: POSITION, quote: { ...quoteRaw, ...formatted, ...integratorFee }, serializedTxBase64: TX, txMetadata: META }),
    expect: { method: 'POST', path: '/perps/v1/positions/decrease-with-fee', query: {}, body: { positionPubkey: POSITION, receiveToken: 'SOL', entirePosition: true, feeToken: 'USDC', feeTokenAmount: '100000', feeReceiver: FEE_ATA } },
  },
  'perps.createTpsl': {
    request: { owner: WALLET, positionPubkey: POSITION, tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '0', entirePosition: true, triggerPrice: '90000000', requestType: 'sl' }] },
    responseText: json({ tpslPubkeys: [ORDER], requireKeeperSignature: true, serializedTxBase64: TX, transactionType: 'instant', txMetadata: META }),
    expect: { method: 'POST', path: '/perps/v1/tpsl', query: {}, body: { owner: WALLET, positionPubkey: POSITION, tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '0', entirePosition: true, triggerPrice: '90000000', requestType: 'sl' }] } },
  },
  'perps.updateTpslWithFee': {
    request: { feeReceiver: FEE_ATA, feeToken: 'USDC', feeTokenAmount: '50000', tpslPubkey: ORDER, triggerPrice: '95000000' },
    responseText: json({ ...integratorFee, serializedTxBase64: TX, transactionType: 'instant', txMetadata: META }),
    expect: { method: 'PATCH', path: '/perps/v1/tpsl-with-fee', query: {}, body: { feeReceiver: FEE_ATA, feeToken: 'USDC', feeTokenAmount: '50000', tpslPubkey: ORDER, triggerPrice: '95000000' } },
  },
  'perps.lpMint': {
    request: { depositToken: 'SOL', depositTokenAmount: '1000000000', walletAddress: WALLET },
    responseText: json({ mintFeeBps: '10', mintFeePercent: '0.1', mintTokenAmount: '40000000', serializedTxBase64: TX, transactionType: 'legacy', txMetadata: META }),
    expect: { method: 'POST', path: '/perps/v1/jlp/mint', query: {}, body: { depositToken: 'SOL', depositTokenAmount: '1000000000', walletAddress: WALLET } },
  },
  'perps.depositBorrow': {
    request: { depositTokenAmount: '100000000', borrowTokenAmount: '50000000', walletAddress: WALLET },
    responseText: json({ borrowSizeUsd: '50000000', borrowSizeTokenAmount: '50000000', borrowTokenMint: MINTS.USDC, collateralTokenAmount: '100000000', collateralTokenUsd: '450000000', maxBorrowTokenAmount: '300000000', maxBorrowTokenAmountBeforeBorrow: '350000000', maxBorrowUsd: '300000000', maxWithdrawUsd: '380000000', maxWithdrawTokenAmount: '84000000', maxRepayTokenAmount: '50000000', liquidationPriceUsd: '600000', ltvBps: '1111', ltvPercentage: '11.11', positionPubkey: POSITION, serializedTxBase64: TX, requireKeeperSignature: false, transactionType: 'legacy', txMetadata: META }),
    expect: { method: 'POST', path: '/perps/v1/lending/deposit-borrow', query: {}, body: { depositTokenAmount: '100000000', borrowTokenAmount: '50000000', walletAddress: WALLET } },
  },
  'perps.execute': {
    request: { action: 'decrease-position', serializedTxBase64: TX },
    responseText: fixtureText('perps-v1-transaction-execute-1.json'),
    expect: { method: 'POST', path: '/perps/v1/transaction/execute', query: {}, body: { action: 'decrease-position', serializedTxBase64: TX } },
  },
  'ultra.order': {
    request: { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '100000000', taker: WALLET },
    responseText: fixtureText('ultra-v1-order-1.json'),
    expect: { method: 'GET', path: '/ultra/v1/order', query: { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '100000000', taker: WALLET } },
  },
  'ultra.execute': {
    request: { signedTransaction: TX, requestId: 'req-1' },
    responseText: fixtureText('ultra-v1-execute-7.json'),
    expect: { method: 'POST', path: '/ultra/v1/execute', query: {}, body: { signedTransaction: TX, requestId: 'req-1' } },
  },
  'trigger.createOrder': {
    request: { inputMint: MINTS.SOL, outputMint: MINTS.USDC, maker: WALLET, payer: WALLET, params: { makingAmount: '50000000', takingAmount: '10000000' }, computeUnitPrice: 'auto' },
    responseText: fixtureText('trigger-v1-createOrder-1.json'),
    expect: { method: 'POST', path: '/trigger/v1/createOrder', query: {}, body: { inputMint: MINTS.SOL, outputMint: MINTS.USDC, maker: WALLET, payer: WALLET, params: { makingAmount: '50000000', takingAmount: '10000000' }, computeUnitPrice: 'auto' } },
  },
  'trigger.execute': {
    request: { signedTransaction: TX, requestId: 'req-2' },
    responseText: fixtureText('trigger-v1-execute-1.json'),
    expect: { method: 'POST', path: '/trigger/v1/execute', query: {}, body: { signedTransaction: TX, requestId: 'req-2' } },
  },
  'trigger.cancelOrder': {
    request: { maker: WALLET, order: ORDER },
    responseText: fixtureText('trigger-v1-cancelOrder-1.json'),
    expect: { method: 'POST', path: '/trigger/v1/cancelOrder', query: {}, body: { maker: WALLET, order: ORDER } },
  },
  'trigger.cancelOrders': {
    request: { maker: WALLET, orders: [ORDER, POSITION] },
    responseText: fixtureText('trigger-v1-cancelOrders-1.json'),
    expect: { method: 'POST', path: '/trigger/v1/cancelOrders', query: {}, body: { maker: WALLET, orders: [ORDER, POSITION] } },
  },
  'trigger.getTriggerOrders': {
    request: { user: WALLET, orderStatus: 'history', page: 2, includeFailedTx: false },
    responseText: fixtureText('trigger-v1-getTriggerOrders-2.json'),
    expect: { method: 'GET', path: '/trigger/v1/getTriggerOrders', query: { user: WALLET, orderStatus: 'history', page: '2', includeFailedTx: 'false' } },
  },
  'recurring.createOrder': {
    request: { user: WALLET, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 104000000, numberOfOrders: 2, interval: 86400 } } },
    responseText: fixtureText('recurring-v1-createOrder-1.json'),
    expect: { method: 'POST', path: '/recurring/v1/createOrder', query: {}, body: { user: WALLET, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 104000000, numberOfOrders: 2, interval: 86400 } } } },
  },
  'recurring.execute': {
    request: { signedTransaction: TX, requestId: 'req-3' },
    responseText: fixtureText('recurring-v1-execute-1.json'),
    expect: { method: 'POST', path: '/recurring/v1/execute', query: {}, body: { signedTransaction: TX, requestId: 'req-3' } },
  },
  'recurring.cancelOrder': {
    request: { order: ORDER, user: WALLET, recurringType: 'time' },
    responseText: fixtureText('recurring-v1-cancelOrder-1.json'),
    expect: { method: 'POST', path: '/recurring/v1/cancelOrder', query: {}, body: { order: ORDER, user: WALLET, recurringType: 'time' } },
  },
  'recurring.getRecurringOrders': {
    request: { user: WALLET, orderStatus: 'active', recurringType: 'time', includeFailedTx: false, page: 1 },
    responseText: fixtureText('recurring-v1-getRecurringOrders-1.json'),
    expect: { method: 'GET', path: '/recurring/v1/getRecurringOrders', query: { user: WALLET, orderStatus: 'active', recurringType: 'time', includeFailedTx: 'false', page: '1' } },
  },
  'recurring.priceDeposit': {
    request: { amount: 1000000, order: ORDER, user: WALLET },
    responseText: fixtureText('recurring-v1-priceDeposit-1.json'),
    expect: { method: 'POST', path: '/recurring/v1/priceDeposit', query: {}, body: { amount: 1000000, order: ORDER, user: WALLET } },
  },
  'studio.claimFee': {
    request: { ownerWallet: WALLET, poolAddress: POSITION, maxQuoteAmount: 1000000 },
    responseText: json({ transaction: TX }),
    expect: { method: 'POST', path: '/studio/v1/dbc/fee/create-tx', query: {}, body: { ownerWallet: WALLET, poolAddress: POSITION, maxQuoteAmount: 1000000 } },
  },
};
