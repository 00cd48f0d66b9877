import { MINTS } from '../../src/api/mints.ts';
import type { OperationId, RequestOf } from '../../src/api/registry.ts';

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
// Response bodies below are written for these tests (stratd's own values, shaped as the contract
// requires); the published bodies of the live service are checked separately in fixtures.test.ts.
const quoteRaw = {
  closeFeeUsd: '60000', collateralUsdDelta: '5000000', leverage: '4.10', liquidationPriceUsd: '121500000', outstandingBorrowFeeUsd: '2100',
  pnlAfterFeesUsd: '-310000', pnlAfterFeesPercent: '-1.24', pnlBeforeFeesUsd: '-250000', pnlBeforeFeesPercent: '-1.00',
  positionCollateralUsd: '25000000', positionSizeUsd: '100000000', priceImpactFeeBps: '0.5000', priceImpactFeeUsd: '5000', side: 'long',
  sizeUsdDelta: '10000000', totalFeeUsd: '67100', transferAmountToken: '4930000', transferAmountUsd: '4930000', transferTokenMint: MINTS.USDC,
};
const UUID = '5f0c8a52-3a0e-4d55-9b1e-6c2f7d1e9a40';
const rankedToken = {
  id: ORDER, name: 'Sample', symbol: 'SMPL', icon: 'https://example.invalid/smpl.png', decimals: 6, tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  holderCount: 1200, audit: { mintAuthorityDisabled: true, freezeAuthorityDisabled: true, topHoldersPercentage: 21.5 }, organicScore: 71.2, organicScoreLabel: 'high',
  isVerified: true, tags: ['verified'], fdv: 1200000.5, mcap: 900000.25, usdPrice: 0.0123, liquidity: 250000.75, stats24h: { priceChange: 3.2, buyVolume: 1000.5 },
};
const position = {
  asset: 'SOL', assetMint: MINTS.SOL, collateralToken: 'USDC', collateralMint: MINTS.USDC, positionPubkey: POSITION, side: 'long', leverage: '4.00',
  sizeUsd: '100000000', sizeTokenAmount: '666666666', collateralUsd: '25000000', valueUsd: '24750000', entryPriceUsd: '150000000', markPriceUsd: '149000000',
  liquidationPriceUsd: '121500000', openFeesUsd: '60000', closeFeesUsd: '60000', borrowFeesUsd: '2100', totalFeesUsd: '122100', pnlBeforeFeesUsd: '-666666',
  pnlBeforeFeesPct: '-2.67', pnlAfterFeesUsd: '-788766', pnlAfterFeesPct: '-3.16', createdTime: 1763800000, updatedTime: 1763800100,
  tpslRequests: [{ positionRequestPubkey: ORDER, requestType: 'sl', desiredMint: MINTS.USDC, desiredToken: 'USDC', collateralUsdDelta: '0', entirePosition: true, sizeUsd: '100000000', sizePercentage: '100', triggerPriceUsd: '135000000', openTime: '1763800050' }],
};
const triggerOrder = {
  userPubkey: WALLET, orderKey: ORDER, inputMint: MINTS.SOL, outputMint: MINTS.USDC, makingAmount: '0.5', takingAmount: '80', remainingMakingAmount: '0',
  remainingTakingAmount: '0', rawMakingAmount: '500000000', rawTakingAmount: '80000000', rawRemainingMakingAmount: '0', rawRemainingTakingAmount: '0',
  expiredAt: null, createdAt: '2026-11-01T10:00:00Z', updatedAt: '2026-11-01T10:05:00Z', status: 'Completed', openTx: 'sig-open', closeTx: 'sig-close',
  programVersion: 'j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X', trades: [],
};
const formatted = Object.fromEntries(
  ['closeFeeUsd', 'collateralUsdDelta', 'liquidationPriceUsd', 'outstandingBorrowFeeUsd', 'pnlAfterFeesUsd', 'pnlBeforeFeesUsd', 'positionCollateralUsd', 'positionSizeUsd', 'priceImpactFeeUsd', 'sizeUsdDelta', 'totalFeeUsd', 'transferAmountUsd'].map((k) => [`${k}Formatted`, '1.00']),
);
const integratorFee = { integratorFeeTokenMint: MINTS.USDC, integratorFeeTokenAmount: '100000', integratorFeeUsd: '100000', integratorFeeUsdFormatted: '0.10' };

export const SAMPLES: { [Id in OperationId]: Sample<Id> } = {
  'tokens.ranked': {
    request: { category: 'toptraded', interval: '1h', limit: 10 },
    responseText: json([rankedToken]),
    expect: { method: 'GET', path: '/tokens/v2/toptraded/1h', query: { limit: '10' } },
  },
  'tokens.search': {
    request: { query: `${ORDER},${POSITION}` },
    responseText: json([rankedToken]),
    expect: { method: 'GET', path: '/tokens/v2/search', query: { query: `${ORDER},${POSITION}` } },
  },
  'tokens.new': {
    request: { limit: 5, offset: 10 },
    responseText: json([{ mint: ORDER, name: 'New', symbol: 'NEW', decimals: 6, known_markets: [POSITION], created_at: '1733700000', metadata_updated_at: 1733700001, logo_uri: null, mint_authority: null, freeze_authority: null }]),
    expect: { method: 'GET', path: '/tokens/v1/new', query: { limit: '5', offset: '10' } },
  },
  'perps.poolInfo': {
    request: { mint: MINTS.SOL },
    responseText: json({ longAvailableLiquidity: '900000000000', longBorrowRatePercent: '0.0012', longUtilizationPercent: '41.30', shortAvailableLiquidity: '700000000000', shortBorrowRatePercent: '0.0009', shortUtilizationPercent: '22.10', openFeePercent: '0.06', maxRequestExecutionSec: '45', maxPriceImpactFeePercent: '1' }),
    expect: { method: 'GET', path: '/perps/v1/pool-info', query: { mint: MINTS.SOL } },
  },
  'perps.positions': {
    request: { walletAddress: WALLET, includeClosedPositions: false },
    responseText: json({ dataList: [position], count: 1 }),
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
    responseText: json({ positionPubkey: POSITION, quote: quoteRaw, serializedTxBase64: TX, txMetadata: META }),
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
  'perps.updateTpsl': {
    request: { positionRequestPubkey: ORDER, triggerPrice: '95000000' },
    responseText: json({ tpslPubkeys: [ORDER], requireKeeperSignature: true, serializedTxBase64: TX, transactionType: 'instant', txMetadata: META }),
    expect: { method: 'PATCH', path: '/perps/v1/tpsl', query: {}, body: { positionRequestPubkey: ORDER, triggerPrice: '95000000' } },
  },
  'perps.cancelTpsl': {
    request: { positionRequestPubkey: ORDER },
    responseText: json({ requireKeeperSignature: false, serializedTxBase64: TX, transactionType: 'legacy', txMetadata: META }),
    expect: { method: 'DELETE', path: '/perps/v1/tpsl', query: {}, body: { positionRequestPubkey: ORDER } },
  },
  'perps.createTpslWithFee': {
    request: { walletAddress: WALLET, positionPubkey: POSITION, tpsl: [{ receiveToken: 'USDC', entirePosition: true, triggerPrice: '90000000', requestType: 'sl' }], feeToken: 'USDC', feeTokenAmount: '50000', feeReceiver: FEE_ATA },
    responseText: json({ ...integratorFee, serializedTxBase64: TX, tpslPubkeys: [ORDER], transactionType: 'instant', txMetadata: META }),
    expect: { method: 'POST', path: '/perps/v1/tpsl-with-fee', query: {}, body: { walletAddress: WALLET, positionPubkey: POSITION, tpsl: [{ receiveToken: 'USDC', entirePosition: true, triggerPrice: '90000000', requestType: 'sl' }], feeToken: 'USDC', feeTokenAmount: '50000', feeReceiver: FEE_ATA } },
  },
  'perps.cancelTpslWithFee': {
    request: { tpslPubkey: ORDER, fee: '50000' },
    responseText: json({ requireKeeperSignature: false, serializedTxBase64: TX, transactionType: 'legacy', txMetadata: META }),
    expect: { method: 'DELETE', path: '/perps/v1/tpsl-with-fee', query: {}, body: { tpslPubkey: ORDER, fee: '50000' } },
  },
  'perps.marketStats': {
    request: { mint: MINTS.SOL },
    responseText: json({ price: '148.25', priceChange24H: '-1.2', priceHigh24H: '151.00', priceLow24H: '146.10', volume: '123456789.12' }),
    expect: { method: 'GET', path: '/perps/v1/market-stats', query: { mint: MINTS.SOL } },
  },
  'perps.createLimitOrder': {
    request: { asset: 'SOL', inputToken: 'USDC', inputTokenAmount: '100000000', side: 'long', triggerPrice: '120000000', leverage: '3', walletAddress: WALLET },
    responseText: json({ positionPubkey: POSITION, quote: { leverage: '3', sizeUsdDelta: '300000000' }, serializedTxBase64: TX, txMetadata: META }),
    expect: { method: 'POST', path: '/perps/v1/orders/limit', query: {}, body: { asset: 'SOL', inputToken: 'USDC', inputTokenAmount: '100000000', side: 'long', triggerPrice: '120000000', leverage: '3', walletAddress: WALLET } },
  },
  'perps.updateLimitOrder': {
    request: { positionRequestPubkey: ORDER, triggerPrice: '125000000' },
    responseText: json({ positionPubkey: POSITION, positionRequestPubkey: ORDER, quote: {}, serializedTxBase64: TX, txMetadata: META }),
    expect: { method: 'PATCH', path: '/perps/v1/orders/limit', query: {}, body: { positionRequestPubkey: ORDER, triggerPrice: '125000000' } },
  },
  'perps.cancelLimitOrder': {
    request: { positionRequestPubkey: ORDER },
    responseText: json({ serializedTxBase64: TX, txMetadata: META, positionPubkey: POSITION, positionRequestPubkey: ORDER, requireKeeperSignature: false }),
    expect: { method: 'DELETE', path: '/perps/v1/orders/limit', query: {}, body: { positionRequestPubkey: ORDER } },
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
    responseText: json({ action: 'decrease-position', txid: 'sig-perps-1' }),
    expect: { method: 'POST', path: '/perps/v1/transaction/execute', query: {}, body: { action: 'decrease-position', serializedTxBase64: TX } },
  },
  'ultra.order': {
    request: { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '100000000', taker: WALLET },
    responseText: json({ requestId: UUID, inAmount: '100000000', outAmount: '14900000', inputMint: MINTS.SOL, outputMint: MINTS.USDC, transaction: TX }),
    expect: { method: 'GET', path: '/ultra/v1/order', query: { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '100000000', taker: WALLET } },
  },
  'ultra.execute': {
    request: { signedTransaction: TX, requestId: 'req-1' },
    responseText: json({ status: 'Failed', code: 6001, signature: 'sig-ultra-1', slot: '1000', error: 'Slippage tolerance exceeded' }),
    expect: { method: 'POST', path: '/ultra/v1/execute', query: {}, body: { signedTransaction: TX, requestId: 'req-1' } },
  },
  'trigger.createOrder': {
    request: { inputMint: MINTS.SOL, outputMint: MINTS.USDC, maker: WALLET, payer: WALLET, params: { makingAmount: '50000000', takingAmount: '10000000' }, computeUnitPrice: 'auto' },
    responseText: json({ order: ORDER, transaction: TX, requestId: UUID }),
    expect: { method: 'POST', path: '/trigger/v1/createOrder', query: {}, body: { inputMint: MINTS.SOL, outputMint: MINTS.USDC, maker: WALLET, payer: WALLET, params: { makingAmount: '50000000', takingAmount: '10000000' }, computeUnitPrice: 'auto' } },
  },
  'trigger.execute': {
    request: { signedTransaction: TX, requestId: 'req-2' },
    responseText: json({ signature: 'sig-trigger-1', status: 'Success' }),
    expect: { method: 'POST', path: '/trigger/v1/execute', query: {}, body: { signedTransaction: TX, requestId: 'req-2' } },
  },
  'trigger.cancelOrder': {
    request: { maker: WALLET, order: ORDER },
    responseText: json({ transaction: TX, requestId: UUID }),
    expect: { method: 'POST', path: '/trigger/v1/cancelOrder', query: {}, body: { maker: WALLET, order: ORDER } },
  },
  'trigger.cancelOrders': {
    request: { maker: WALLET, orders: [ORDER, POSITION] },
    responseText: json({ transactions: [TX, TX], requestId: UUID }),
    expect: { method: 'POST', path: '/trigger/v1/cancelOrders', query: {}, body: { maker: WALLET, orders: [ORDER, POSITION] } },
  },
  'trigger.getTriggerOrders': {
    request: { user: WALLET, orderStatus: 'history', page: 2, includeFailedTx: false },
    responseText: json({ user: WALLET, orderStatus: 'history', orders: [triggerOrder], totalPages: 3, page: 2 }),
    expect: { method: 'GET', path: '/trigger/v1/getTriggerOrders', query: { user: WALLET, orderStatus: 'history', page: '2', includeFailedTx: 'false' } },
  },
  'recurring.createOrder': {
    request: { user: WALLET, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 104000000, numberOfOrders: 2, interval: 86400 } } },
    responseText: json({ requestId: UUID, transaction: TX }),
    expect: { method: 'POST', path: '/recurring/v1/createOrder', query: {}, body: { user: WALLET, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 104000000, numberOfOrders: 2, interval: 86400 } } } },
  },
  'recurring.execute': {
    request: { signedTransaction: TX, requestId: 'req-3' },
    responseText: json({ signature: 'sig-recurring-1', status: 'Success', order: ORDER, error: null }),
    expect: { method: 'POST', path: '/recurring/v1/execute', query: {}, body: { signedTransaction: TX, requestId: 'req-3' } },
  },
  'recurring.cancelOrder': {
    request: { order: ORDER, user: WALLET, recurringType: 'time' },
    responseText: json({ requestId: UUID, transaction: TX }),
    expect: { method: 'POST', path: '/recurring/v1/cancelOrder', query: {}, body: { order: ORDER, user: WALLET, recurringType: 'time' } },
  },
  'recurring.getRecurringOrders': {
    request: { user: WALLET, orderStatus: 'active', recurringType: 'time', includeFailedTx: false, page: 1 },
    responseText: json({ user: WALLET, orderStatus: 'active', time: [] }),
    expect: { method: 'GET', path: '/recurring/v1/getRecurringOrders', query: { user: WALLET, orderStatus: 'active', recurringType: 'time', includeFailedTx: 'false', page: '1' } },
  },
  'recurring.priceDeposit': {
    request: { amount: 1000000, order: ORDER, user: WALLET },
    responseText: json({ requestId: UUID, transaction: TX }),
    expect: { method: 'POST', path: '/recurring/v1/priceDeposit', query: {}, body: { amount: 1000000, order: ORDER, user: WALLET } },
  },
  'studio.claimFee': {
    request: { ownerWallet: WALLET, poolAddress: POSITION, maxQuoteAmount: 1000000 },
    responseText: json({ transaction: TX }),
    expect: { method: 'POST', path: '/studio/v1/dbc/fee/create-tx', query: {}, body: { ownerWallet: WALLET, poolAddress: POSITION, maxQuoteAmount: 1000000 } },
  },
};
