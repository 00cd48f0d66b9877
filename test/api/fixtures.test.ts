import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { ApiError } from '../../src/api/errors.ts';
import type { OperationId } from '../../src/api/registry.ts';
import { fixtureNames, fixtureText } from '../support/fixtures.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { SAMPLES } from './samples.ts';

/**
 * Every published body of the live service (../shared/fixtures/api-bodies): success bodies
 * must be accepted by the client; error bodies must become the right ApiError. The table is
 * written by hand from SOURCES.md, and a test checks that no fixture is left out.
 */
const SUCCESS: Record<string, OperationId> = {
  'perps-v1-jlp-info-1.json': 'perps.poolInfo', // not an operation of ours: listed as an expected failure below
  'perps-v1-pool-info-1.json': 'perps.poolInfo',
  'perps-v1-positions-1.json': 'perps.positions',
  'perps-v1-positions-decrease-1.json': 'perps.decrease',
  'perps-v1-positions-decrease-2.json': 'perps.decrease',
  'perps-v1-transaction-execute-1.json': 'perps.execute',
  'recurring-v1-cancelOrder-1.json': 'recurring.cancelOrder',
  'recurring-v1-createOrder-1.json': 'recurring.createOrder',
  'recurring-v1-execute-1.json': 'recurring.execute',
  'recurring-v1-execute-2.json': 'recurring.execute',
  'recurring-v1-getRecurringOrders-1.json': 'recurring.getRecurringOrders',
  'recurring-v1-getRecurringOrders-2.json': 'recurring.getRecurringOrders',
  'recurring-v1-priceDeposit-1.json': 'recurring.priceDeposit',
  'tokens-v2-search-1.json': 'tokens.ranked',
  'tokens-v2-search-3.json': 'tokens.ranked',
  'trigger-v1-cancelOrder-1.json': 'trigger.cancelOrder',
  'trigger-v1-cancelOrders-1.json': 'trigger.cancelOrders',
  'trigger-v1-createOrder-1.json': 'trigger.createOrder',
  'trigger-v1-execute-1.json': 'trigger.execute',
  'trigger-v1-execute-2.json': 'trigger.execute',
  'trigger-v1-getTriggerOrders-1.json': 'trigger.getTriggerOrders',
  'trigger-v1-getTriggerOrders-2.json': 'trigger.getTriggerOrders',
  'ultra-v1-execute-1.json': 'ultra.execute',
  'ultra-v1-execute-2.json': 'ultra.execute',
  'ultra-v1-execute-3.json': 'ultra.execute',
  'ultra-v1-execute-5.json': 'ultra.execute',
  'ultra-v1-execute-6.json': 'ultra.execute',
  'ultra-v1-execute-7.json': 'ultra.execute',
  'ultra-v1-order-1.json': 'ultra.order',
  'ultra-v1-order-2.json': 'ultra.order',
  'ultra-v1-order-3.json': 'ultra.order',
  'ultra-v1-order-4.json': 'ultra.order',
};
/** jlp-info is a perps read we do not call; a single token object is an item, not a list. */
const NOT_OURS = new Set(['perps-v1-jlp-info-1.json', 'tokens-v2-search-2.json']);

/** Error bodies with the status the docs give them, and what the client must make of them. */
const ERRORS: Record<string, { op: OperationId; status: number; kind: string; code?: string | number; message: string }> = {
  'gateway-error-1.json': { op: 'tokens.ranked', status: 401, kind: 'http', code: 401, message: 'Unauthorized' },
  'gateway-error-2.json': { op: 'tokens.ranked', status: 429, kind: 'rate_limited', message: 'Rate limit exceeded' },
  'perps-v1-error-1.json': { op: 'perps.increase', status: 400, kind: 'http', code: 'invalid_argument', message: 'leverage must be between 1.1 and 100' },
  'perps-v1-error-2.json': { op: 'perps.poolInfo', status: 404, kind: 'http', code: 'http_error', message: 'Invalid path /hello-world' },
  'recurring-v1-cancelOrder-2.json': { op: 'recurring.cancelOrder', status: 400, kind: 'http', code: 400, message: 'Failed to deserialize' },
  'recurring-v1-createOrder-2.json': { op: 'recurring.createOrder', status: 400, kind: 'http', code: 400, message: 'minimum is 100.00 USDC' },
  'recurring-v1-createOrder-3.json': { op: 'recurring.createOrder', status: 400, kind: 'http', code: 400, message: 'minimum is 100.00 USDC' },
  'recurring-v1-priceDeposit-2.json': { op: 'recurring.priceDeposit', status: 400, kind: 'http', code: 400, message: '' },
  'trigger-v1-cancelOrder-2.json': { op: 'trigger.cancelOrder', status: 400, kind: 'http', code: 400, message: 'no matching orders found' },
  'trigger-v1-createOrder-2.json': { op: 'trigger.createOrder', status: 400, kind: 'http', code: 400, message: 'at least 5 USD' },
  'ultra-v1-execute-4.json': { op: 'ultra.execute', status: 400, kind: 'http', code: -1, message: 'Order not found' },
  'ultra-v1-order-5.json': { op: 'ultra.order', status: 400, kind: 'http', message: 'Failed to get quotes' },
};

const server = new RecordingServer();
let api: ApiClient;

beforeAll(async () => {
  const baseUrl = await server.start();
  api = new ApiClient({ baseUrl, retries: 0 });
});
afterAll(async () => {
  await api.close();
  await server.stop();
});

describe('published response bodies', () => {
  it('every fixture file is classified', () => {
    const classified = new Set([...Object.keys(SUCCESS), ...Object.keys(ERRORS), ...NOT_OURS]);
    expect(fixtureNames().filter((f) => !classified.has(f))).toEqual([]);
  });

  const successes = Object.entries(SUCCESS).filter(([f]) => !NOT_OURS.has(f));
  it.each(successes)('%s is accepted as %s', async (file, op) => {
    server.responder = () => ({ body: fixtureText(file) });
    const result = await api.call(op, SAMPLES[op].request as never);
    expect(result).toBeTruthy();
  });

  it.each(Object.entries(ERRORS))('%s becomes the right ApiError', async (file, expected) => {
    server.responder = () => ({ status: expected.status, body: fixtureText(file) });
    const error = await api.call(expected.op, SAMPLES[expected.op].request as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    const e = error as ApiError;
    expect(e.kind).toBe(expected.kind);
    expect(e.status).toBe(expected.status);
    if (expected.code !== undefined) expect(e.code).toBe(expected.code);
    expect(e.productMessage ?? '').toContain(expected.message);
  });
});
