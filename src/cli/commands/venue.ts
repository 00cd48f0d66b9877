import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { fieldIssues, describeIssues } from '../../api/issues.ts';
import { createLogger } from '../../kernel/logger.ts';
import { faultPatchSchema, type FaultPatch } from '../../venue/http/faults.ts';
import { RATE_TIERS, type RateTier } from '../../venue/http/rate-limit.ts';
import { startVenue, type VenueOptions } from '../../venue/venue.ts';
import { EXIT, type Command } from '../command.ts';

const USAGE = `usage:
  stratd venue [options]
      Runs the simulated venue: the whole trading API (every operation of "stratd api list")
      on --port, a Solana JSON-RPC endpoint on --rpc-port, and the control API under
      /__venue/ (docs/venue.md). Prints one JSON line with both URLs, then serves until
      SIGINT or SIGTERM.

options:
  --port <n>                    API port (default 8787; 0 picks a free port)
  --rpc-port <n>                JSON-RPC port (default 8899; 0 picks a free port)
  --host <addr>                 listen address (default 127.0.0.1)
  --seed <n>                    seed of every random choice: prices, tokens, faults, keys (default 1)
  --start <time>                venue time at start: ISO date or unix ms (default: now)
  --speed <x>                   venue ms per real ms (default 1; 0 freezes time, then only
                                POST /__venue/advance moves it)
  --slot-ms <n>                 ms per slot (default 400)
  --step-ms <n>                 price grid: one price step per n ms of venue time (default 1000)
  --tick-ms <n>                 real ms between market ticks (default 250; 0: tick on requests only)
  --volatility <pct>            hourly SOL volatility in percent (default 1; ETH 0.8x, BTC 0.6x)
  --price-file <csv>            replay prices instead of the random walk (header: offsetMs,SOL,ETH,BTC)
  --keeper-delay-ms <n>         delay before the keeper executes a legacy request (default 1000)
  --max-request-execution-sec <n>  requests older than this are rejected (default 45)
  --decrease-instant-share <x>  share 0..1 of decrease builds returned as instant (default 0)
  --fees <none|charge>          charge transaction fees to fee payers (default none)
  --api-key <key>               a valid API key (repeatable); other keys get 401, no key is keyless
  --require-api-key             refuse keyless requests with 401
  --rate-limit                  emulate the gateway's 60 s sliding window per account
  --keyless-tier <tier>         tier of keyless requests (default keyless)
  --key-tier <tier>             tier of requests with a key (default free)
                                tiers: ${Object.entries(RATE_TIERS).map(([t, rps]) => `${t} ${String(rps)} rps`).join(', ')}
  --faults <file.json>          initial faults (the body of POST /__venue/faults)
  --no-validate-responses       do not check 200 bodies against the contract
  --log-level <level>           pino level (default info)
  -h, --help                    this text
`;

class UsageError extends Error {
  readonly kind = 'usage' as const;
}

function int(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${name} must be an integer >= ${String(min)}, got ${JSON.stringify(value)}`);
  return Number(value);
}

function decimal(name: string, value: string | undefined, min: number, max = Number.POSITIVE_INFINITY): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || n < min || n > max) throw new UsageError(`--${name} must be a number within ${String(min)}..${String(max)}, got ${JSON.stringify(value)}`);
  return n;
}

function tier(name: string, value: string | undefined): RateTier | undefined {
  if (value === undefined) return undefined;
  if (!Object.hasOwn(RATE_TIERS, value)) throw new UsageError(`--${name} must be one of ${Object.keys(RATE_TIERS).join(', ')}`);
  return value as RateTier;
}

function startTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) throw new UsageError(`--start must be an ISO date or unix ms, got ${JSON.stringify(value)}`);
  return ms;
}

async function loadFaults(path: string | undefined): Promise<FaultPatch | undefined> {
  if (path === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--faults ${path}: ${(error as Error).message}`);
  }
  const parsed = faultPatchSchema.safeParse(body);
  if (!parsed.success) throw new UsageError(`--faults ${path}: ${describeIssues(fieldIssues(parsed.error))}`);
  return parsed.data;
}

export const venueCommand: Command = {
  name: 'venue',
  usage: USAGE,
  async run(argv) {
    let options: VenueOptions;
    let logLevel: string;
    try {
      const { values } = parseArgs({
        args: argv,
        options: {
          port: { type: 'string' },
          'rpc-port': { type: 'string' },
          host: { type: 'string' },
          seed: { type: 'string' },
          start: { type: 'string' },
          speed: { type: 'string' },
          'slot-ms': { type: 'string' },
          'step-ms': { type: 'string' },
          'tick-ms': { type: 'string' },
          volatility: { type: 'string' },
          'price-file': { type: 'string' },
          'keeper-delay-ms': { type: 'string' },
          'max-request-execution-sec': { type: 'string' },
          'decrease-instant-share': { type: 'string' },
          fees: { type: 'string' },
          'api-key': { type: 'string', multiple: true },
          'require-api-key': { type: 'boolean', default: false },
          'rate-limit': { type: 'boolean', default: false },
          'keyless-tier': { type: 'string' },
          'key-tier': { type: 'string' },
          faults: { type: 'string' },
          'no-validate-responses': { type: 'boolean', default: false },
          'log-level': { type: 'string', default: 'info' },
          help: { type: 'boolean', short: 'h', default: false },
        },
      });
      if (values.help) {
        process.stdout.write(USAGE);
        return EXIT.ok;
      }
      if (values.fees !== undefined && values.fees !== 'none' && values.fees !== 'charge') throw new UsageError('--fees must be none or charge');
      logLevel = values['log-level'];
      options = {
        seed: int('seed', values.seed, 1),
        host: values.host,
        port: int('port', values.port, 8787),
        rpcPort: int('rpc-port', values['rpc-port'], 8899),
        clock: { startMs: startTime(values.start), speed: decimal('speed', values.speed, 0) },
        slotMs: values['slot-ms'] === undefined ? undefined : int('slot-ms', values['slot-ms'], 400, 1),
        stepMs: values['step-ms'] === undefined ? undefined : int('step-ms', values['step-ms'], 1000, 1),
        tickMs: int('tick-ms', values['tick-ms'], 250),
        volatility: decimal('volatility', values.volatility, 0, 100),
        priceFile: values['price-file'],
        keeperDelayMs: values['keeper-delay-ms'] === undefined ? undefined : int('keeper-delay-ms', values['keeper-delay-ms'], 1000),
        maxRequestExecutionSec: values['max-request-execution-sec'] === undefined ? undefined : int('max-request-execution-sec', values['max-request-execution-sec'], 45, 1),
        decreaseInstantShare: decimal('decrease-instant-share', values['decrease-instant-share'], 0, 1),
        fees: values.fees as 'none' | 'charge' | undefined,
        apiKeys: values['api-key'],
        requireApiKey: values['require-api-key'],
        rateLimit: { enabled: values['rate-limit'], keylessTier: tier('keyless-tier', values['keyless-tier']), defaultKeyTier: tier('key-tier', values['key-tier']) },
        faults: await loadFaults(values.faults),
        validateResponses: !values['no-validate-responses'],
      };
    } catch (error) {
      if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
      process.stderr.write(`stratd venue: ${(error as Error).message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    const logger = createLogger({ name: 'stratd-venue', level: logLevel });
    const rateLimit = options.rateLimit;
    let venue;
    try {
      venue = await startVenue({
        ...options,
        // Unset tiers keep the defaults.
        rateLimit: Object.fromEntries(Object.entries(rateLimit ?? {}).filter(([, v]) => v !== undefined)),
        logger,
      });
    } catch (error) {
      const listen = listenFailure(error);
      if (!listen) throw error;
      process.stderr.write(`stratd venue: cannot listen on ${listen.where}: ${listen.code === 'EADDRINUSE' ? 'the port is taken (another venue or stratd running?); choose another with --port / --rpc-port, or 0 for any free port' : listen.code}\n`);
      return EXIT.failed;
    }
    process.stdout.write(`${JSON.stringify({ apiUrl: venue.apiUrl, rpcUrl: venue.rpcUrl, seed: options.seed, keeper: venue.chain.keeper.publicKey.toBase58() })}\n`);
    logger.info({ apiUrl: venue.apiUrl, rpcUrl: venue.rpcUrl, seed: options.seed }, 'venue started');
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    logger.info('venue stopping');
    await venue.close();
    return EXIT.ok;
  },
};

/** A listen error (port taken, not allowed, unknown host), found in the error or its causes. */
function listenFailure(error: unknown): { code: string; where: string } | undefined {
  for (let e = error as { code?: unknown; address?: unknown; port?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && ['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND'].includes(e.code)) {
      return { code: e.code, where: `${typeof e.address === 'string' ? e.address : 'host'}:${typeof e.port === 'number' ? e.port : '?'}` };
    }
  }
  return undefined;
}
