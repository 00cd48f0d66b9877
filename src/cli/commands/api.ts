import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ApiClient } from '../../api/client.ts';
import { renderApiDocs } from '../../api/docs.ts';
import { ApiError } from '../../api/errors.ts';
import { parseExactJson } from '../../api/exact-json.ts';
import { fieldIssues } from '../../api/issues.ts';
import { parseJsonBody } from '../../api/json-body.ts';
import { isOperationId, operationIds, operations } from '../../api/registry.ts';
import { EXIT, type Command } from '../command.ts';

const USAGE = `usage:
  stratd api list [--json]
      Every operation id with its method and path.
  stratd api call <operationId> --params '<json>' [--base-url <url>] [--lite]
      Calls the API and prints the validated response. The base URL and key come from
      STRATD_API_BASE_URL / STRATD_API_KEY (or --base-url); the key is never printed.
  stratd api docs
      Prints docs/api.md: every operation with its method, path, parameters and response.
  stratd api check <operationId> <file.json>
      Validates a saved response body against the operation's response schema.
      Exit 0 when it conforms, 1 with each failing field path otherwise.
`;

export const apiCommand: Command = {
  name: 'api',
  usage: USAGE,
  async run(argv) {
    const [sub, ...rest] = argv;
    switch (sub) {
      case 'list':
        return list(rest);
      case 'call':
        return call(rest);
      case 'check':
        return check(rest);
      case 'docs':
        process.stdout.write(renderApiDocs());
        return EXIT.ok;
      default:
        process.stderr.write(USAGE);
        return sub === '--help' || sub === '-h' ? EXIT.ok : EXIT.usage;
    }
  },
};

async function list(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean', default: false } } });
  const rows = operationIds.map((id) => {
    const op = operations[id];
    return { id, method: op.method, path: op.path, lite: op.lite, effect: op.effect, deprecated: op.deprecated ?? false, summary: op.summary };
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  const idWidth = Math.max(...rows.map((r) => r.id.length));
  for (const r of rows) {
    process.stdout.write(`${r.id.padEnd(idWidth)}  ${r.method.padEnd(6)} ${r.path}${r.deprecated ? '  (deprecated)' : ''}\n`);
  }
  return EXIT.ok;
}

async function call(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      params: { type: 'string', default: '{}' },
      'base-url': { type: 'string' },
      lite: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '10000' },
    },
  });
  const id = positionals[0];
  if (!id || !isOperationId(id)) {
    process.stderr.write(`stratd api call: unknown operation ${JSON.stringify(id ?? '')}; see "stratd api list"\n`);
    return EXIT.usage;
  }
  const op = operations[id];
  if (op.deprecated && op.effect === 'build') {
    // A transaction of a deprecated product (the recurring price deposit) is not built by hand either.
    process.stderr.write(`stratd api call: ${id} (${op.method} ${op.path}) is deprecated by the service; stratd does not build deprecated write operations\n`);
    return EXIT.usage;
  }
  let params: unknown;
  try {
    // Exact: an amount beyond 2^53 (recurring inAmount, Studio maxQuoteAmount) is sent as given.
    params = parseExactJson(values.params);
  } catch (error) {
    process.stderr.write(`stratd api call: --params is not JSON: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const baseUrl = values['base-url'] ?? process.env.STRATD_API_BASE_URL ?? 'https://api.jup.ag';
  const client = new ApiClient({
    baseUrl,
    liteBaseUrl: process.env.STRATD_API_LITE_BASE_URL,
    useLiteBase: values.lite,
    apiKey: process.env.STRATD_API_KEY || undefined,
    timeoutMs: Number(values.timeout),
  });
  try {
    const response = await client.call(id, params as never);
    process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof ApiError) {
      process.stderr.write(`${JSON.stringify(error.toJSON(), null, 2)}\n`);
      return EXIT.failed;
    }
    throw error;
  } finally {
    await client.close();
  }
}

async function check(argv: string[]): Promise<number> {
  const [id, file] = argv;
  if (!id || !file || !isOperationId(id)) {
    process.stderr.write(`usage: stratd api check <operationId> <file.json>\n${id && !isOperationId(id) ? `unknown operation "${id}"\n` : ''}`);
    return EXIT.usage;
  }
  let body: unknown;
  try {
    body = parseJsonBody(await readFile(file, 'utf8'));
  } catch (error) {
    process.stdout.write(`${file}: not JSON (${(error as Error).message})\n`);
    return EXIT.failed;
  }
  const result = operations[id].response.safeParse(body);
  if (result.success) {
    process.stdout.write(`${file}: conforms to ${id}\n`);
    return EXIT.ok;
  }
  for (const issue of fieldIssues(result.error)) process.stdout.write(`${issue.path}: ${issue.message}\n`);
  return EXIT.failed;
}
