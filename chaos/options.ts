import { parseArgs } from 'node:util';
import { z } from 'zod';

/**
 * What one chaos run does and how long it may take. A full run (`npm run chaos`) is the
 * measurement of issue 8's goals; `--short` is the CI version: fewer daemons, shorter outages,
 * the same faults and the same audit.
 */
export const chaosOptionsSchema = z.strictObject({
  /** Length of the fault phase, ms (then a fault-free drain and the audit). */
  durationMs: z.int().min(10_000).max(3_600_000),
  daemons: z.int().min(1).max(8),
  seed: z.int().min(0).max(1_000_000),
  short: z.boolean(),
  /** Mean time between SIGKILLs of a random daemon, ms. */
  killEveryMs: z.int().min(500),
  /** Share of restarts that carry a failpoint (STRATD_FAILPOINT). */
  failpointShare: z.number().min(0).max(1),
  /** Length of each API/RPC/Redis outage, ms. */
  outageMs: z.int().min(1_000),
  /** Share of every API operation and RPC call that is faulted outside outages. */
  faultShare: z.number().min(0).max(0.9),
  /** Longest fault-free drain after the fault phase, waiting for open actions to finish, ms. */
  drainMs: z.int().min(5_000),
  /**
   * An action still open at the audit and accepted longer ago than this is stuck, ms. It must
   * exceed a blockhash's life (150 blocks ≈ 60 s at 400 ms slots) plus a few build retries: an
   * action whose execute reply was lost before the API processed it is honestly ambiguous until
   * the block height passes its lastValidBlockHeight, and nothing may end it sooner.
   */
  stuckAfterMs: z.int().min(10_000),
  /** A final action still holding its intent lock or open-set entry this long after its final write is unsettled, ms. */
  settleGraceMs: z.int().min(1_000),
  /** A liquidation is preventable when its guard action had been pending at least this long, ms. */
  preventableAfterMs: z.int().min(0),
  /** The venue's hourly SOL volatility, percent (enough to make liquidation a real risk). */
  volatilityPct: z.number().min(0).max(200),
  /** Where the JSON result and the process logs go. */
  resultsDir: z.string().min(1),
  /** Print progress lines while running. */
  verbose: z.boolean(),
});
export type ChaosOptions = z.infer<typeof chaosOptionsSchema>;

/** The defaults of a full run and of a short one; `overrides` wins. */
export function chaosOptions(short: boolean, overrides: Partial<ChaosOptions> = {}): ChaosOptions {
  const base: ChaosOptions = short
    ? {
        durationMs: 40_000, daemons: 2, seed: 11, short, killEveryMs: 4_000, failpointShare: 0.3, outageMs: 5_000, faultShare: 0.2,
        // Swaps and recurring orders settle by their signature or their blockhash's expiry. Their builds
        // report no lastValidBlockHeight, so the executor bounds it at 300 blocks past the height it read
        // (150 of validity and 150 for an API node ahead of ours: preparation-steps.ts), 120 s at the
        // venue's 400 ms slots, counted from the build: one ambiguous after a lost execute reply late in
        // the fault phase was open 130 s at the audit of a loaded host. The drain and the stuck bound
        // leave it 30 s beyond that.
        drainMs: 150_000, stuckAfterMs: 150_000, settleGraceMs: 10_000, preventableAfterMs: 5_000, volatilityPct: 10, resultsDir: 'chaos/results', verbose: false,
      }
    : {
        durationMs: 600_000, daemons: 3, seed: 7, short, killEveryMs: 4_500, failpointShare: 0.3, outageMs: 30_000, faultShare: 0.2,
        drainMs: 150_000, stuckAfterMs: 150_000, settleGraceMs: 20_000, preventableAfterMs: 5_000, volatilityPct: 10, resultsDir: 'chaos/results', verbose: true,
      };
  return chaosOptionsSchema.parse({ ...base, ...overrides });
}

/** A command-line flag that does not parse. */
export class ChaosUsageError extends Error {
  override readonly name = 'ChaosUsageError';
  readonly kind = 'chaos_usage';
}

const DURATION = /^(\d+)(ms|s|m)?$/;

/** "600", "600s", "10m", "90000ms" → ms (a bare number is seconds). */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw new ChaosUsageError(`--duration: "${text}" is not a duration (e.g. 10m, 600s, 90000ms)`);
  const n = Number(match[1]);
  const unit = match[2] ?? 's';
  return unit === 'ms' ? n : unit === 's' ? n * 1000 : n * 60_000;
}

export const CHAOS_USAGE = `npm run chaos -- [--duration 10m] [--daemons 3] [--seed 7] [--short] [--quiet]
  --duration  length of the fault phase (default 10m; --short: 40s); then a fault-free drain and the audit
  --daemons   stratd run processes on the one Redis (default 3; --short: 2)
  --seed      seed of the venue, the fault plan and the schedule (default 7)
  --short     the CI version: 2 daemons, ~10 kills, 5 s outages
  --quiet     no progress lines`;

export function chaosOptionsFromArgs(argv: readonly string[]): ChaosOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        duration: { type: 'string' },
        daemons: { type: 'string' },
        seed: { type: 'string' },
        short: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new ChaosUsageError(`${(error as Error).message}\n${CHAOS_USAGE}`);
  }
  if (values.help) throw new ChaosUsageError(CHAOS_USAGE);
  const int = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n)) throw new ChaosUsageError(`--${name}: "${text}" is not an integer`);
    return n;
  };
  const overrides: Partial<ChaosOptions> = {};
  if (values.duration !== undefined) overrides.durationMs = parseDuration(values.duration);
  const daemons = int('daemons', values.daemons);
  if (daemons !== undefined) overrides.daemons = daemons;
  const seed = int('seed', values.seed);
  if (seed !== undefined) overrides.seed = seed;
  if (values.quiet) overrides.verbose = false;
  const parsed = chaosOptionsSchema.safeParse({ ...chaosOptions(values.short), ...overrides });
  if (!parsed.success) throw new ChaosUsageError(parsed.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join('\n'));
  return parsed.data;
}
