// What an execute post's error proves: a refusal before anything was sent ends the action; an error
// the service may give after sending leaves it to the chain (the strategy must not decide again
// while the first transaction can land).
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.ts';
import { provablyNotProcessed } from '../../src/pipeline/executor/api-error-evidence.ts';

const http = (operationId: string, status: number, body: { code?: number | string; signature?: string } = {}) => new ApiError({ kind: 'http', operationId, status, ...body });

describe('provablyNotProcessed (execute posts)', () => {
  it('Ultra: a 4xx proves nothing was sent only with a code that says so', () => {
    expect(provablyNotProcessed(http('ultra.execute', 400, { code: -2 }))).toBe(true);
    expect(provablyNotProcessed(http('ultra.execute', 400, { code: -1004 }))).toBe(true);
    for (const code of [-1000, -1001, -1005, -1006, -2000, -2001, -2005]) expect(provablyNotProcessed(http('ultra.execute', 400, { code }))).toBe(false);
    expect(provablyNotProcessed(http('ultra.execute', 400))).toBe(false);
  });

  it('Trigger and Recurring: a body that names a signature may follow a send', () => {
    expect(provablyNotProcessed(http('trigger.execute', 400, { code: 400, signature: '5'.repeat(88) }))).toBe(false);
    expect(provablyNotProcessed(http('trigger.execute', 400, { code: 400 }))).toBe(true);
    expect(provablyNotProcessed(http('recurring.execute', 400, { signature: '5'.repeat(88) }))).toBe(false);
  });

  it('a gateway that did not forward (401, 403, 404, 429) proves it for every product; 5xx and 408/409/425/499 never do', () => {
    for (const status of [401, 403, 404]) expect(provablyNotProcessed(http('ultra.execute', status))).toBe(true);
    expect(provablyNotProcessed(new ApiError({ kind: 'rate_limited', operationId: 'ultra.execute', status: 429 }))).toBe(true);
    for (const status of [408, 409, 425, 499, 500, 503]) expect(provablyNotProcessed(http('perps.execute', status))).toBe(false);
    expect(provablyNotProcessed(new ApiError({ kind: 'business', operationId: 'perps.execute', status: 422, code: 'stale_request' }))).toBe(true);
  });
});
