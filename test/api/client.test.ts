import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { ApiError } from '../../src/api/errors.ts';
import { MINTS } from '../../src/api/mints.ts';
import { operationIds, type OperationId } from '../../src/api/registry.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { POSITION, SAMPLES, WALLET } from './samples.ts';

const KEY = 'test-api-key-7f3a9c';
const server = new RecordingServer();
const lite = new RecordingServer();
let baseUrl = '';
let liteUrl = '';

beforeAll(async () => {
  baseUrl = await server.start();
  liteUrl = await lite.start();
});
afterAll(async () => {
  await server.stop();
  await lite.stop();
});
beforeEach(() => {
  server.requests.length = 0;
  lite.requests.length = 0;
});

function client(overrides: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}): ApiClient {
  return new ApiClient({ baseUrl, apiKey: KEY, timeoutMs: 2_000, retries: 2, minBackoffMs: 10, maxBackoffMs: 20, ...overrides });
}

describe('every operation through the client', () => {
  it.each(operationIds)('%s: method, path, query, body and headers arrive; the reply parses', async (id: OperationId) => {
    const sample = SAMPLES[id];
    server.responder = () => ({ status: 200, body: sample.responseText, headers: { 'x-api-gateway-request-id': 'gw-1' } });
    const api = client();
    const result = await api.call(id, sample.request as never);
    await api.close();

    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe(sample.expect.method);
    expect(req.path).toBe(sample.expect.path);
    expect(req.query).toEqual(sample.expect.query);
    if (sample.expect.body) {
      expect(req.headers['content-type']).toBe('application/json');
      expect(JSON.parse(req.bodyText)).toEqual(sample.expect.body);
    } else {
      expect(req.bodyText).toBe('');
    }
    expect(req.headers['x-api-key']).toBe(KEY);
    expect(req.headers.accept).toBe('application/json');
    expect(result).toBeTruthy();
  });
});

describe('lite base', () => {
  it('sends the three lite operations to the lite base without the key', async () => {
    lite.responder = (req) => ({ body: req.path.endsWith('trades') ? SAMPLES['perps.trades'].responseText : SAMPLES['perps.decrease'].responseText });
    server.responder = () => ({ body: SAMPLES['perps.poolInfo'].responseText });
    const api = client({ liteBaseUrl: liteUrl, useLiteBase: true });
    await api.call('perps.decrease', SAMPLES['perps.decrease'].request);
    await api.call('perps.trades', SAMPLES['perps.trades'].request);
    await api.call('perps.poolInfo', { mint: MINTS.SOL });
    await api.close();
    expect(lite.requests.map((r) => r.path)).toEqual(['/perps/v1/positions/decrease', '/perps/v1/trades']);
    expect(lite.requests.every((r) => r.headers['x-api-key'] === undefined)).toBe(true);
    expect(server.requests.map((r) => r.path)).toEqual(['/perps/v1/pool-info']);
    expect(server.requests[0]!.headers['x-api-key']).toBe(KEY);
  });

  it('omits x-api-key when none is configured', async () => {
    server.responder = () => ({ body: SAMPLES['perps.poolInfo'].responseText });
    const api = client({ apiKey: undefined });
    await api.call('perps.poolInfo', { mint: MINTS.BTC });
    await api.close();
    expect(server.requests[0]!.headers['x-api-key']).toBeUndefined();
  });

  it('sends the LP mint to an overridden path when configured', async () => {
    server.responder = () => ({ body: SAMPLES['perps.lpMint'].responseText });
    const api = client({ paths: { 'perps.lpMint': '/perps/v1/lp/mint' } });
    await api.call('perps.lpMint', SAMPLES['perps.lpMint'].request);
    await api.close();
    expect(server.requests[0]!.path).toBe('/perps/v1/lp/mint');
  });

  it('sends perps operations under the perps base when one is set (the /v2 host of the CLI), the others under the main base', async () => {
    server.responder = (req) => ({ body: req.path.endsWith('limit') ? SAMPLES['perps.createLimitOrder'].responseText : SAMPLES['ultra.order'].responseText });
    const api = client({ perpsBaseUrl: `${baseUrl}/perps-api/v2/` });
    await api.call('perps.createLimitOrder', SAMPLES['perps.createLimitOrder'].request);
    await api.call('ultra.order', SAMPLES['ultra.order'].request);
    await api.close();
    expect(server.requests.map((r) => r.path)).toEqual(['/perps-api/v2/orders/limit', SAMPLES['ultra.order'].expect.path]);
  });
});

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('bad responses', () => {
  it('a missing required field is invalid_response naming the field, not retried', async () => {
    const body = JSON.parse(SAMPLES['perps.poolInfo'].responseText) as Record<string, unknown>;
    delete body.openFeePercent;
    server.responder = () => ({ body: JSON.stringify(body), headers: { 'x-api-gateway-request-id': 'gw-42' } });
    const error = await failure(client().call('perps.poolInfo', { mint: MINTS.SOL }));
    expect(error.kind).toBe('invalid_response');
    expect(error.issues?.map((i) => i.path)).toEqual(['openFeePercent']);
    expect(error.requestId).toBe('gw-42');
    expect(server.requests).toHaveLength(1);
  });

  it('a wrong type is invalid_response with the nested path', async () => {
    const body = JSON.parse(SAMPLES['perps.positions'].responseText) as { dataList: Array<Record<string, unknown>> };
    body.dataList[0]!.side = 42;
    server.responder = () => ({ body: JSON.stringify(body) });
    const error = await failure(client().call('perps.positions', { walletAddress: WALLET }));
    expect(error.kind).toBe('invalid_response');
    expect(error.issues?.map((i) => i.path)).toContain('dataList.0.side');
  });

  it('a non-integer amount string is invalid_response naming the field', async () => {
    const body = JSON.parse(SAMPLES['perps.collateralLimits'].responseText) as Record<string, unknown>;
    body.maxCollateralDepositUsd = '1.5';
    server.responder = () => ({ body: JSON.stringify(body) });
    const error = await failure(client().call('perps.collateralLimits', { inputMint: MINTS.SOL, positionPubkey: POSITION }));
    expect(error.kind).toBe('invalid_response');
    expect(error.issues).toEqual([{ path: 'maxCollateralDepositUsd', message: expect.stringContaining('integer') }]);
  });

  it('"abc" where a raw amount belongs inside a documented alternative shape names the field', async () => {
    const body = JSON.parse(SAMPLES['perps.decrease'].responseText) as { quote: Record<string, unknown> };
    body.quote.closeFeeUsd = 'abc';
    server.responder = () => ({ body: JSON.stringify(body) });
    const error = await failure(client().call('perps.decrease', SAMPLES['perps.decrease'].request));
    expect(error.kind).toBe('invalid_response');
    expect(error.issues?.map((i) => i.path)).toEqual(['quote.closeFeeUsd']);
  });

  it('an HTML error page with status 200 is invalid_response', async () => {
    server.responder = () => ({ body: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'content-type': 'text/html' } });
    const error = await failure(client().call('perps.poolInfo', { mint: MINTS.SOL }));
    expect(error.kind).toBe('invalid_response');
    expect(error.issues?.[0]?.message).toContain('not JSON');
    expect(server.requests).toHaveLength(1);
  });

  it('a 429 with x-ratelimit-reset waits until the reset, then succeeds', async () => {
    const resetAt = Math.ceil(Date.now() / 1000) + 1;
    server.responder = (_req, i) =>
      i === 0
        ? { status: 429, body: '{"code":429,"message":"[API Gateway] Too many requests"}', headers: { 'x-ratelimit-reset': String(resetAt), 'x-ratelimit-remaining': '0' } }
        : { body: SAMPLES['perps.poolInfo'].responseText };
    const result = await client().call('perps.poolInfo', { mint: MINTS.SOL });
    expect(result.openFeePercent).toBe('0.06');
    expect(server.requests).toHaveLength(2);
    // The retry did not go out before the reset second began.
    expect(server.requests[1]!.atMs).toBeGreaterThanOrEqual(resetAt * 1000 - 5);
  });

  it('a 429 that persists ends as rate_limited with the gateway code', async () => {
    server.responder = () => ({ status: 429, body: '{"message":"Rate limit exceeded"}' });
    const error = await failure(client({ retries: 1 }).call('perps.poolInfo', { mint: MINTS.SOL }));
    expect(error.kind).toBe('rate_limited');
    expect(error.productMessage).toBe('Rate limit exceeded');
    expect(server.requests).toHaveLength(2);
  });

  it('a 500 then success retries once', async () => {
    server.responder = (_req, i) => (i === 0 ? { status: 500, body: 'oops' } : { body: SAMPLES['perps.poolInfo'].responseText });
    await client().call('perps.poolInfo', { mint: MINTS.SOL });
    expect(server.requests).toHaveLength(2);
  });

  it('a hang past the timeout is a timeout, retried for reads', async () => {
    server.responder = (_req, i) => (i === 0 ? { hang: true } : { body: SAMPLES['perps.poolInfo'].responseText });
    await client({ timeoutMs: 200 }).call('perps.poolInfo', { mint: MINTS.SOL });
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    server.responder = () => ({ hang: true });
    const error = await failure(client({ timeoutMs: 150, retries: 0 }).call('perps.poolInfo', { mint: MINTS.SOL }));
    expect(error.kind).toBe('timeout');
  });

  it('a perps 422 is a business error with the code, not retried', async () => {
    server.responder = () => ({
      status: 422,
      body: '{"code":"invalid_position_request_size","message":"size too small","metadata":null}',
      headers: { 'x-api-gateway-request-id': 'gw-422' },
    });
    const error = await failure(client().call('perps.decrease', SAMPLES['perps.decrease'].request));
    expect(error).toMatchObject({ kind: 'business', status: 422, code: 'invalid_position_request_size', productMessage: 'size too small', requestId: 'gw-422' });
    expect(server.requests).toHaveLength(1);
  });

  it('a perps 400 and a gateway 401 are http errors, not retried', async () => {
    server.responder = () => ({ status: 400, body: JSON.stringify({ code: 'invalid_argument', message: 'leverage must be between 1.1 and 100', metadata: null }) });
    const e400 = await failure(client().call('perps.poolInfo', { mint: MINTS.SOL }));
    expect(e400).toMatchObject({ kind: 'http', status: 400, code: 'invalid_argument' });
    server.responder = () => ({ status: 401, body: JSON.stringify({ code: 401, message: 'Unauthorized' }) });
    const e401 = await failure(client().call('perps.poolInfo', { mint: MINTS.SOL }));
    expect(e401).toMatchObject({ kind: 'http', status: 401, code: 401, productMessage: 'Unauthorized' });
    expect(server.requests).toHaveLength(2);
  });

  it('a submit (execute) is not retried after a 500: the outcome is ambiguous', async () => {
    server.responder = () => ({ status: 500, body: '{"error":"internal","code":500}' });
    const error = await failure(client().call('trigger.execute', { signedTransaction: 'AQ==', requestId: 'r' }));
    expect(error.kind).toBe('http');
    expect(server.requests).toHaveLength(1);
  });

  it('an error body that names a signature (Trigger execute: the transaction may have been sent) keeps it on the error', async () => {
    server.responder = () => ({ status: 400, body: JSON.stringify({ error: 'custom program error code: 1', code: 400, status: 'Failed', signature: 'sig-trigger-1' }) });
    const error = await failure(client().call('trigger.execute', { signedTransaction: 'AQ==', requestId: 'r' }));
    expect(error).toMatchObject({ kind: 'http', status: 400, code: 400, signature: 'sig-trigger-1' });
  });

  it('a submit is retried after a 429 (the gateway refused it before processing)', async () => {
    server.responder = (_req, i) => (i === 0 ? { status: 429, body: '{"code":429,"message":"Too many requests"}' } : { body: JSON.stringify({ status: 'Success', signature: 'sig-ultra-2', slot: '1001', code: 0, inputAmountResult: '100000000', outputAmountResult: '14900000' }) });
    const result = await client().call('ultra.execute', { signedTransaction: 'AQ==', requestId: 'r' });
    expect(result.status).toBe('Success');
    expect(server.requests).toHaveLength(2);
  });

  it('a refused connection is a network error marked unsent', async () => {
    const error = await failure(new ApiClient({ baseUrl: 'http://127.0.0.1:1', retries: 0 }).call('perps.poolInfo', { mint: MINTS.SOL }));
    expect(error).toMatchObject({ kind: 'network', sent: false });
  });

  it('the API key never appears in an error', async () => {
    server.responder = () => ({ status: 500, body: `echo ${KEY}?` });
    const error = await failure(client({ retries: 0 }).call('perps.execute', { action: 'decrease-position', serializedTxBase64: 'AQ==' }));
    // The body echoed the key (a hostile or buggy server): the client must not carry it.
    expect(JSON.stringify(error.toJSON())).not.toContain(KEY);
    expect(error.message).not.toContain(KEY);
  });
});

describe('invalid requests never leave the process', () => {
  it.each([
    ['perps.decrease', { positionPubkey: POSITION, receiveToken: 'USDC', sizeUsdDelta: '1.5' }, 'sizeUsdDelta'],
    ['perps.decrease', { positionPubkey: POSITION, receiveToken: 'USDC', sizeUsdDelta: 'abc' }, 'sizeUsdDelta'],
    ['tokens.ranked', { category: 'hot', interval: '1h' }, 'category'],
    ['tokens.ranked', { category: 'toptraded', interval: '2h' }, 'interval'],
    ['tokens.ranked', { category: 'toptraded', interval: '1h', limit: 101 }, 'limit'],
    ['perps.poolInfo', { mint: MINTS.USDC }, 'mint'],
    ['perps.traderStats', { walletAddress: WALLET, marketMint: MINTS.SOL, year: '2026', week: '54' }, 'week'],
    ['perps.trades', { walletAddress: WALLET, side: 'up' }, 'side'],
    ['perps.execute', { action: 'close-everything', serializedTxBase64: 'AQ==' }, 'action'],
  ] as const)('%s with %j fails on %s', async (id, params, field) => {
    const error = await failure(client().call(id as OperationId, params as never));
    expect(error.kind).toBe('invalid_request');
    expect(error.issues?.map((i) => i.path)).toContain(field);
    expect(server.requests).toHaveLength(0);
  });
});
