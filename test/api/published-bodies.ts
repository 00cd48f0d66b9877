import type { ApiErrorKind } from '../../src/api/errors.ts';

/**
 * How stratd must read each response body published in the live service's documentation. The
 * bodies stay outside the repository (see test/support/shared-data.ts); this table is ours: where
 * a body belongs, and what the client must make of the error bodies.
 *
 * A body's route comes from its file name (the longest matching prefix). A route that is an
 * operation of the registry (method and path, or an alias) is served to the client through a real
 * HTTP server; a route stratd does not call is listed as skipped, by name, so that adding the
 * operation later puts its bodies under test without touching this table.
 */
export const ROUTES: ReadonlyArray<readonly [prefix: string, route: string]> = [
  ['perps-v1-jlp-info', 'GET /perps/v1/jlp-info'],
  ['perps-v1-jlp-mint', 'POST /perps/v1/jlp/mint'],
  ['perps-v1-lending-info', 'GET /perps/v1/lending/info'],
  ['perps-v1-lending-pay-withdraw', 'POST /perps/v1/lending/pay-withdraw'],
  ['perps-v1-orders-limit-create', 'POST /perps/v1/orders/limit'],
  ['perps-v1-orders-limit-patch', 'PATCH /perps/v1/orders/limit'],
  ['perps-v1-orders-limit-delete', 'DELETE /perps/v1/orders/limit'],
  ['perps-v1-pool-info', 'GET /perps/v1/pool-info'],
  ['perps-v1-positions-collateral-limits', 'GET /perps/v1/positions/collateral-limits'],
  ['perps-v1-positions-decrease', 'POST /perps/v1/positions/decrease'],
  ['perps-v1-positions', 'GET /perps/v1/positions'],
  ['perps-v1-tpsl-with-fee-delete', 'DELETE /perps/v1/tpsl-with-fee'],
  ['perps-v1-tpsl-with-fee-patch', 'PATCH /perps/v1/tpsl-with-fee'],
  ['perps-v1-tpsl-with-fee', 'POST /perps/v1/tpsl-with-fee'],
  ['perps-v1-tpsl-patch', 'PATCH /perps/v1/tpsl'],
  ['perps-v1-tpsl', 'POST /perps/v1/tpsl'],
  ['perps-v1-transaction-execute', 'POST /perps/v1/transaction/execute'],
  ['recurring-v1-cancelOrder', 'POST /recurring/v1/cancelOrder'],
  ['recurring-v1-createOrder', 'POST /recurring/v1/createOrder'],
  ['recurring-v1-execute', 'POST /recurring/v1/execute'],
  ['recurring-v1-getRecurringOrders', 'GET /recurring/v1/getRecurringOrders'],
  ['recurring-v1-priceDeposit', 'POST /recurring/v1/priceDeposit'],
  ['recurring-v1-priceWithdraw', 'POST /recurring/v1/priceWithdraw'],
  ['studio-dbc-fee-create-tx', 'POST /studio/v1/dbc/fee/create-tx'],
  ['studio-dbc-fee', 'POST /studio/v1/dbc/fee'],
  ['studio-dbc-pool-addresses', 'GET /studio/v1/dbc-pool/addresses/{mint}'],
  ['studio-dbc-pool-create-tx', 'POST /studio/v1/dbc-pool/create-tx'],
  ['studio-dbc-pool-submit', 'POST /studio/v1/dbc-pool/submit'],
  ['tokens-v1-new', 'GET /tokens/v1/new'],
  ['tokens-v1-token', 'GET /tokens/v1/token/{mint}'],
  ['tokens-v2-category', 'GET /tokens/v2/{category}/{interval}'],
  // Search is read for the prices of held tokens; recent and tag answer the same token list as the
  // ranked lists stratd reads: their bodies check stratd's token schema against every published token object.
  ['tokens-v2-search', 'GET /tokens/v2/search'],
  ['tokens-v2-recent', 'GET /tokens/v2/{category}/{interval}'],
  ['tokens-v2-tag', 'GET /tokens/v2/{category}/{interval}'],
  ['trigger-v1-cancelOrders', 'POST /trigger/v1/cancelOrders'],
  ['trigger-v1-cancelOrder', 'POST /trigger/v1/cancelOrder'],
  ['trigger-v1-createOrder', 'POST /trigger/v1/createOrder'],
  ['trigger-v1-execute', 'POST /trigger/v1/execute'],
  ['trigger-v1-getTriggerOrders', 'GET /trigger/v1/getTriggerOrders'],
  ['trigger-v1-openOrders', 'GET /trigger/v1/openOrders'],
  ['trigger-v1-orderHistory', 'GET /trigger/v1/orderHistory'],
  ['trigger-v2-', 'the trigger v2 API (stratd uses v1)'],
  ['ultra-v1-order', 'GET /ultra/v1/order'],
  ['ultra-v1-execute', 'POST /ultra/v1/execute'],
  ['ultra-v1-balances', 'GET /ultra/v1/balances/{address}'],
  ['ultra-v1-holdings', 'GET /ultra/v1/holdings/{address}'],
];

/** Bodies that are one token object, published as an element of the token lists (by prefix, or by folder/file). */
export const TOKEN_ITEMS: ReadonlyArray<readonly [prefix: string, route: string]> = [['tokens-v2-token', 'GET /tokens/v2/{category}/{interval}']];
export const TOKEN_ITEM_FILES: ReadonlySet<string> = new Set(['api-bodies/tokens-v2-search-2.json']);

/** Error bodies (by folder/file), the status the documentation gives them, and the ApiError the client must make. */
export interface ExpectedError {
  readonly route?: string;
  readonly status: number;
  readonly kind: ApiErrorKind;
  readonly code?: string | number;
  readonly message: string;
}
const tokensRanked = 'GET /tokens/v2/{category}/{interval}';
export const ERRORS: Readonly<Record<string, ExpectedError>> = {
  'api-bodies/gateway-error-1.json': { route: tokensRanked, status: 401, kind: 'http', code: 401, message: 'Unauthorized' },
  'api-bodies/gateway-error-2.json': { route: tokensRanked, status: 429, kind: 'rate_limited', message: 'Rate limit exceeded' },
  'api-bodies/perps-v1-error-1.json': { route: 'POST /perps/v1/positions/increase', status: 400, kind: 'http', code: 'invalid_argument', message: 'leverage must be between 1.1 and 100' },
  'api-bodies/perps-v1-error-2.json': { route: 'GET /perps/v1/pool-info', status: 404, kind: 'http', code: 'http_error', message: 'Invalid path /hello-world' },
  'api-bodies/recurring-v1-cancelOrder-2.json': { status: 400, kind: 'http', code: 400, message: 'Failed to deserialize' },
  'api-bodies/recurring-v1-createOrder-2.json': { status: 400, kind: 'http', code: 400, message: 'minimum is 100.00 USDC' },
  'api-bodies/recurring-v1-createOrder-3.json': { status: 400, kind: 'http', code: 400, message: 'minimum is 100.00 USDC' },
  'api-bodies/recurring-v1-priceDeposit-2.json': { status: 400, kind: 'http', code: 400, message: '' },
  'api-bodies/trigger-v1-cancelOrder-2.json': { status: 400, kind: 'http', code: 400, message: 'no matching orders found' },
  'api-bodies/trigger-v1-createOrder-2.json': { status: 400, kind: 'http', code: 400, message: 'at least 5 USD' },
  'api-bodies/ultra-v1-execute-4.json': { status: 400, kind: 'http', code: -1, message: 'Order not found' },
  'api-bodies/ultra-v1-order-5.json': { status: 400, kind: 'http', message: 'Failed to get quotes' },

  'api-bodies-more/gateway-error-1.json': { route: tokensRanked, status: 401, kind: 'http', code: 401, message: 'Unauthorized' },
  'api-bodies-more/gateway-error-2.json': { route: tokensRanked, status: 429, kind: 'rate_limited', message: 'Rate limit exceeded' },
  'api-bodies-more/gateway-error-3.json': { route: tokensRanked, status: 401, kind: 'http', message: 'Unauthorized' },
  'api-bodies-more/gateway-error-4.json': { route: tokensRanked, status: 429, kind: 'rate_limited', message: 'Rate limit exceeded' },
  'api-bodies-more/gateway-error-5.json': { route: tokensRanked, status: 403, kind: 'http', code: 403, message: '' },
  'api-bodies-more/perps-v1-error-1.json': { route: 'GET /perps/v1/pool-info', status: 404, kind: 'http', code: 'http_error', message: 'Invalid path /hello-world' },
  'api-bodies-more/perps-v1-error-2.json': { route: 'POST /perps/v1/positions/increase', status: 422, kind: 'business', code: 'invalid_argument', message: 'leverage must be between 1.1 and 100' },
  'api-bodies-more/recurring-v1-cancelOrder-4.json': { status: 400, kind: 'http', code: 400, message: 'Failed to deserialize account data' },
  'api-bodies-more/recurring-v1-cancelOrder-5.json': { status: 400, kind: 'http', code: 400, message: 'Failed to deserialize account data' },
  'api-bodies-more/recurring-v1-createOrder-4.json': { status: 400, kind: 'http', code: 400, message: 'minimum is 100.00 USDC' },
  'api-bodies-more/recurring-v1-createOrder-5.json': { status: 400, kind: 'http', code: 400, message: 'minimum is 100.00 USDC' },
  'api-bodies-more/trigger-v1-cancelOrder-3.json': { status: 400, kind: 'http', code: 400, message: 'no matching orders found' },
  'api-bodies-more/trigger-v1-cancelOrders-5.json': { status: 400, kind: 'http', code: 400, message: 'invalid maker pubkey' },
  'api-bodies-more/trigger-v1-cancelOrders-6.json': { status: 500, kind: 'http', code: 500, message: 'something went wrong while generating cancel instructions' },
  'api-bodies-more/trigger-v1-createOrder-5.json': { status: 400, kind: 'http', code: 400, message: 'at least 5 USD' },
  'api-bodies-more/trigger-v1-createOrder-6.json': { status: 400, kind: 'http', code: 400, message: 'at least 100 USD' },
  'api-bodies-more/trigger-v1-createOrder-7.json': { status: 400, kind: 'http', code: 400, message: 'at least 5 USD' },
  'api-bodies-more/trigger-v1-createOrder-8.json': { status: 500, kind: 'http', code: 500, message: 'unable to get latest blockhash' },
  'api-bodies-more/trigger-v1-execute-7.json': { status: 400, kind: 'http', code: 400, message: 'invalid transaction' },
  'api-bodies-more/trigger-v1-execute-8.json': { status: 500, kind: 'http', code: 500, message: 'unable to confirm transaction' },
  'api-bodies-more/ultra-v1-order-8.json': { status: 400, kind: 'http', message: 'Failed to get quotes' },
  'api-bodies-more/ultra-v1-balances-2.json': { status: 400, kind: 'http', message: 'Invalid address' },
  'api-bodies-more/trigger-v2-error-1.json': { status: 404, kind: 'http', message: 'Order not found' },
  'api-bodies-more/trigger-v2-error-2.json': { status: 400, kind: 'http', message: 'Request validation failed' },
  'api-bodies-more/trigger-v2-error-3.json': { status: 401, kind: 'http', message: 'Unauthorized' },
};

/**
 * Execute replies that report a failed execution in a 200 body (with or without a `status`): the
 * client must return them as a result with status Failed — never as an invalid response, which
 * the executor would treat as a broken reply rather than the service's answer.
 */
export const FAILED_EXECUTIONS: ReadonlySet<string> = new Set([
  'api-bodies/recurring-v1-execute-2.json',
  'api-bodies/trigger-v1-execute-2.json',
  'api-bodies/ultra-v1-execute-2.json',
  'api-bodies/ultra-v1-execute-5.json',
  'api-bodies/ultra-v1-execute-6.json',
  'api-bodies/ultra-v1-execute-7.json',
  'api-bodies-more/recurring-v1-execute-4.json',
  'api-bodies-more/recurring-v1-execute-5.json',
  'api-bodies-more/recurring-v1-execute-6.json',
  'api-bodies-more/trigger-v1-execute-5.json',
  'api-bodies-more/trigger-v1-execute-6.json',
  'api-bodies-more/ultra-v1-execute-2.json',
  'api-bodies-more/ultra-v1-execute-4.json',
  'api-bodies-more/ultra-v1-execute-5.json',
  'api-bodies-more/ultra-v1-execute-6.json',
  'api-bodies-more/ultra-v1-execute-7.json',
]);

/**
 * Bodies the documentation printed as JavaScript rather than JSON (unquoted keys, single quotes,
 * `...` elisions, a list without its brackets). The live service sends JSON; the test turns the
 * literal into the JSON it stands for before serving it.
 */
export const JS_LITERALS: ReadonlySet<string> = new Set([
  'api-bodies-more/tokens-v1-new-1.json',
  'api-bodies-more/tokens-v1-token-1.json',
  'api-bodies-more/trigger-v1-orderHistory-1.json',
]);

/**
 * Published placeholders whose values no real reply could have (and which stratd therefore
 * refuses): the field the client must name in its invalid_response.
 */
export const PLACEHOLDERS: Readonly<Record<string, string>> = {
  // Mintlify filled fields without an example with "<string>"; an amount must be an integer.
  'api-bodies-more/perps-v1-jlp-mint-1.json': 'mintTokenAmount',
  'api-bodies-more/perps-v1-positions-collateral-limits-1.json': 'maxCollateralDepositUsd',
  'api-bodies-more/perps-v1-tpsl-with-fee-patch-1.json': 'integratorFeeTokenAmount',
  'api-bodies-more/perps-v1-tpsl-with-fee-1.json': 'integratorFeeTokenAmount',
  'api-bodies-more/perps-v1-tpsl-with-fee-delete-1.json': 'integratorFeeTokenAmount',
};
