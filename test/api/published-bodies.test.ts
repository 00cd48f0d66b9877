import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { ApiError } from '../../src/api/errors.ts';
import { parseJsonBody } from '../../src/api/json-body.ts';
import { operationIds, operations, type OperationId } from '../../src/api/registry.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { needsShared, sharedDir, sharedJsonNames, sharedText } from '../support/shared-data.ts';
import { ERRORS, FAILED_EXECUTIONS, JS_LITERALS, PLACEHOLDERS, ROUTES, TOKEN_ITEM_FILES, TOKEN_ITEMS } from './published-bodies.ts';
import { SAMPLES } from './samples.ts';

/**
 * Every response body published in the live service's documentation: success bodies must be
 * accepted by the client, error bodies must become the right ApiError, and execute replies that
 * report a failure must come back as a failed execution. Each body goes through the real client
 * and a real HTTP server.
 */
const FOLDERS = ['api-bodies', 'api-bodies-more'] as const;

/** The registry operation answering `METHOD /path` (its path or an alias), if stratd has one. */
function operationFor(route: string): OperationId | undefined {
  return operationIds.find((id) => {
    const op = operations[id];
    return [op.path, ...(op.aliases ?? [])].some((path) => `${op.method} ${path}` === route);
  });
}

function longestPrefix(file: string, table: ReadonlyArray<readonly [string, string]>): string | undefined {
  const hits = table.filter(([prefix]) => file.startsWith(prefix)).sort((a, b) => b[0].length - a[0].length);
  return hits[0]?.[1];
}

/** Turns a body the docs printed as a JavaScript literal into the JSON it stands for. */
function jsLiteralToJson(text: string): string {
  let t = text.replace(/^\s*\.\.\.\s*,?\s*$/gm, '');
  t = t.replace(/'((?:[^'\\]|\\.)*)'/g, (_m, s: string) => JSON.stringify(s));
  t = t.replace(/([{,]\s*)([A-Za-z_$][\w$]*)\s*:/g, '$1"$2":').trim();
  if (t.startsWith('{') && /}\s*,\s*{/.test(t) && !isJson(t)) t = `[${t}]`;
  return t;
}

function isJson(text: string): boolean {
  try {
    parseJsonBody(text);
    return true;
  } catch {
    return false;
  }
}

const EXECUTES = new Set<OperationId>(['ultra.execute', 'trigger.execute', 'recurring.execute']);

const server = new RecordingServer();
let api: ApiClient;

beforeAll(async () => {
  api = new ApiClient({ baseUrl: await server.start(), retries: 0 });
});
afterAll(async () => {
  await api.close();
  await server.stop();
});

async function outcome(op: OperationId): Promise<unknown> {
  return api.call(op, SAMPLES[op].request as never).then(
    (result) => result,
    (error: unknown) => error,
  );
}

for (const folder of FOLDERS) {
  const dir = sharedDir('fixtures', folder);
  describe.skipIf(!dir)(`published bodies of ${folder} ${needsShared('fixtures', folder)}`, () => {
    const files = dir ? sharedJsonNames(dir) : [];

    it('every body has a route (a new published body needs a line in published-bodies.ts)', () => {
      const unrouted = files.filter((f) => !ERRORS[`${folder}/${f}`]?.route && !longestPrefix(f, [...ROUTES, ...TOKEN_ITEMS]));
      expect(unrouted).toEqual([]);
    });

    for (const file of files) {
      const key = `${folder}/${file}`;
      const expectedError = ERRORS[key];
      const route = expectedError?.route ?? longestPrefix(file, [...ROUTES, ...TOKEN_ITEMS]) ?? '?';
      const op = operationFor(route);
      if (!op) {
        it.skip(`${file}: ${route} is not an operation stratd calls`, () => {});
        continue;
      }
      const text = (): string => {
        const raw = sharedText(dir as string, file);
        const json = JS_LITERALS.has(key) ? jsLiteralToJson(raw) : raw;
        return longestPrefix(file, TOKEN_ITEMS) || TOKEN_ITEM_FILES.has(key) ? `[${json}]` : json;
      };

      if (expectedError) {
        it(`${file} (${expectedError.status}) is an ApiError of kind ${expectedError.kind} for ${op}`, async () => {
          server.responder = () => ({ status: expectedError.status, body: text() });
          const error = await outcome(op);
          expect(error).toBeInstanceOf(ApiError);
          const e = error as ApiError;
          expect({ kind: e.kind, status: e.status }).toEqual({ kind: expectedError.kind, status: expectedError.status });
          if (expectedError.code !== undefined) expect(e.code).toBe(expectedError.code);
          expect(e.productMessage ?? '').toContain(expectedError.message);
        });
        continue;
      }

      const placeholderField = PLACEHOLDERS[key];
      if (placeholderField) {
        it(`${file}: a placeholder no real reply could carry is refused, naming ${placeholderField}`, async () => {
          server.responder = () => ({ body: text() });
          const error = await outcome(op);
          expect(error).toBeInstanceOf(ApiError);
          expect((error as ApiError).kind).toBe('invalid_response');
          expect((error as ApiError).issues?.map((i) => i.path)).toContain(placeholderField);
        });
        continue;
      }

      const failed = FAILED_EXECUTIONS.has(key);
      it(`${file} is accepted as ${op}${failed ? ' (a failed execution)' : ''}`, async () => {
        server.responder = () => ({ body: text() });
        const result = await outcome(op);
        if (result instanceof ApiError) expect.fail(`${file} was refused: ${result.message}`);
        expect(result).toBeTruthy();
        if (EXECUTES.has(op)) expect((result as { status: string }).status).toBe(failed ? 'Failed' : 'Success');
      });
    }
  });
}
