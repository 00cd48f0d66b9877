import { z } from 'zod';
import { MARKET_MINTS, marketMint } from '../../api/mints.ts';
import { tokenCategory, tokenInterval } from '../../api/schemas/tokens.ts';
import { cronExpression, positiveInt, timezone } from '../formats.ts';
import { key } from '../key.ts';

/**
 * When each poller reads the API, and what it reads. Cron: node-cron syntax, 6 fields = seconds first.
 * The defaults give positions (what the protective strategies act on) seconds of their own: the
 * other sources tick on seconds that are not multiples of 5, so a positions tick never shares the
 * API, Redis and the strategy worker with seven other reads (measured: +10 ms tick-to-submit when
 * it did). Collateral limits tick one second after a positions tick, so they read fresh positions.
 */

function schedule(source: string, cron: string, what: string, envName: string) {
  return {
    enabled: key({
      doc: `Poll ${what}.`,
      schema: z.boolean(),
      default: true,
      kind: 'boolean',
      format: 'true or false',
    }),
    cron: key({
      doc: `When the ${source} poller ticks. Each tick is one API read${source === 'collateralLimits' ? ' per open position' : ''} and one snapshot job.`,
      schema: cronExpression,
      default: cron,
      kind: 'string',
      env: envName,
      format: 'a cron expression (5 fields, or 6 with seconds first)',
    }),
  };
}

export const pollersSection = {
  timezone: key({
    doc: 'Time zone of every cron expression. UTC keeps replicas in different zones on the same ticks (tick times are part of snapshot job ids).',
    schema: timezone,
    default: 'UTC',
    kind: 'string',
    format: 'an IANA time zone',
  }),
  markets: key({
    doc: 'Perps markets (mints) whose pool-info and market-stats are polled.',
    schema: z.array(marketMint).min(1),
    default: [...MARKET_MINTS],
    kind: 'list',
    env: 'STRATD_POLL_MARKETS',
    format: 'a list of market mints (comma-separated in env/--set)',
  }),
  rankedTokens: {
    ...schedule('rankedTokens', '7 * * * * *', 'the ranked token lists (one read per category × interval)', 'STRATD_POLL_RANKED_TOKENS_CRON'),
    categories: key({
      doc: 'Ranked-token categories to poll.',
      schema: z.array(tokenCategory).min(1),
      default: ['toptrending'],
      kind: 'list',
      format: `a list of ${tokenCategory.options.join(', ')}`,
    }),
    intervals: key({
      doc: 'Ranked-token intervals to poll (each category × each interval is one read).',
      schema: z.array(tokenInterval).min(1),
      default: ['1h'],
      kind: 'list',
      format: `a list of ${tokenInterval.options.join(', ')}`,
    }),
    limit: key({
      doc: 'Tokens per ranked list (the API allows 1 to 100).',
      schema: z.int().min(1).max(100),
      default: 50,
      kind: 'int',
      format: 'an integer from 1 to 100',
    }),
  },
  newTokens: {
    ...schedule('newTokens', '37 * * * * *', 'the new-token list', 'STRATD_POLL_NEW_TOKENS_CRON'),
    limit: key({
      doc: 'New tokens per read.',
      schema: z.int().min(1).max(1_000),
      default: 50,
      kind: 'int',
      format: 'an integer from 1 to 1000',
    }),
  },
  poolInfo: schedule('poolInfo', '2-59/10 * * * * *', 'pool-info of every configured market', 'STRATD_POLL_POOL_INFO_CRON'),
  marketStats: schedule('marketStats', '9-59/10 * * * * *', "the price of every configured market (market-stats; what strategies that open read)", 'STRATD_POLL_MARKET_STATS_CRON'),
  positions: schedule('positions', '*/5 * * * * *', "the wallet's open positions", 'STRATD_POLL_POSITIONS_CRON'),
  collateralLimits: schedule('collateralLimits', '1-59/15 * * * * *', 'the collateral limits of each open position', 'STRATD_POLL_COLLATERAL_LIMITS_CRON'),
  limitOrders: schedule('limitOrders', '3-59/30 * * * * *', "the wallet's perps limit orders", 'STRATD_POLL_LIMIT_ORDERS_CRON'),
  triggerOrders: schedule('triggerOrders', '4-59/30 * * * * *', "the wallet's active trigger orders (every page) and the newest closed ones", 'STRATD_POLL_TRIGGER_ORDERS_CRON'),
  heldTokens: schedule('heldTokens', '12-59/30 * * * * *', "the prices of the tokens the wallet holds on chain or its trigger orders name (token search: a bought token no ranking lists any more still has a price)", 'STRATD_POLL_HELD_TOKENS_CRON'),
  recurringOrders: schedule('recurringOrders', '8-59/30 * * * * *', "the wallet's recurring (DCA) orders, active and newest closed (their executed slices)", 'STRATD_POLL_RECURRING_ORDERS_CRON'),
  trades: {
    ...schedule('trades', '6 * * * * *', "the wallet's recent trades", 'STRATD_POLL_TRADES_CRON'),
    limit: key({
      doc: 'Trades per page (the API pages with start/end). A read keeps the newest page and every page since a little before the last read (at most 50), so no fill between two reads is missed.',
      schema: positiveInt.max(1_000),
      default: 20,
      kind: 'int',
      format: 'an integer from 1 to 1000',
    }),
  },
};
