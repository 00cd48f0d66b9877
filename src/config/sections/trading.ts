import { z } from 'zod';
import { pubkey } from '../../api/pubkey.ts';
import { receiveToken } from '../../api/schemas/perps.ts';
import { strategyName } from '../../sdk/name.ts';
import { exactUint, positiveInt } from '../formats.ts';
import { key } from '../key.ts';

/**
 * The longest execution.retentionMs: fill markers live this long, one per external trade. Thirty
 * days of a wallet trading every minute is ~43,000 markers (~6 MB); a signature cannot land again
 * two minutes after its blockhash, so nothing needs a claim longer.
 */
const MAX_RETENTION_MS = 30 * 24 * 3_600_000;

/**
 * The shortest execution.retentionMs of this key alone: a signature's claim (one signature, one
 * action) must outlive every chance of its transaction landing, 300 blocks (120 s at 400 ms slots).
 * With a perps request's keeper window and grace on top, the whole configuration's check
 * (config/schema.ts) asks for more.
 */
const MIN_RETENTION_MS = 120_000;

/** What decides (strategies), how actions are carried out (execution) and what limits them (risk). */

export const strategiesSection = {
  dir: key({
    doc: 'Directory of strategy modules (.ts or .js), relative to the working directory.',
    schema: z.string().min(1),
    default: 'strategies',
    kind: 'string',
    env: 'STRATD_STRATEGIES_DIR',
    format: 'a directory path',
  }),
  modules: key({
    doc: 'npm packages (or paths) whose default export is a strategy, loaded besides strategies.dir; resolved from the working directory. A package imports the SDK as `stratd/strategy`.',
    schema: z.array(z.string().min(1)),
    default: [],
    kind: 'list',
    env: 'STRATD_STRATEGY_MODULES',
    format: 'a list of package names or paths (comma-separated in env/--set)',
  }),
  enabled: key({
    doc: 'Names of the strategies that run (the `name` each module passes to defineStrategy).',
    schema: z.array(strategyName),
    default: ['liquidation-guard'],
    kind: 'list',
    env: 'STRATD_STRATEGIES',
    format: 'a list of strategy names (comma-separated in env/--set)',
  }),
  settings: key({
    doc: "Per-strategy configuration, keyed by strategy name; each strategy validates its own entry with its zod schema (`stratd config check` reports those errors too). Example: --set strategies.settings.liquidation-guard.distanceBps=300",
    schema: z.record(z.string(), z.unknown()),
    default: {},
    kind: 'object',
    format: 'an object keyed by strategy name',
  }),
  timeoutMs: key({
    doc: "Longest one strategy's onSnapshot may take; a slower one is treated as failed for that snapshot and the others keep running.",
    schema: positiveInt,
    default: 5_000,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
  concurrency: key({
    doc: 'Snapshot jobs one process works on at once.',
    schema: z.int().min(1).max(64),
    default: 1,
    kind: 'int',
    format: 'an integer from 1 to 64',
  }),
  intentLockMs: key({
    doc: 'While an action for an intent key is unfinished, new decisions for the same key are suppressed. The executor releases the lock when the action ends; this bound frees a lock whose release was lost.',
    schema: positiveInt,
    default: 300_000,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
  refusalBackoffMs: key({
    doc: 'After the service refuses an action for what it asks (a business rule such as a minimum size, a position already closed; any 4xx), the strategy\'s intent key is not decided again for this long, doubled on each refusal in a row up to strategies.refusalBackoffMaxMs; a landing resets it. Transient failures never back off.',
    schema: positiveInt,
    default: 30_000,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
  refusalBackoffMaxMs: key({
    doc: 'The longest backoff after refusals in a row (see strategies.refusalBackoffMs); the count of refusals is forgotten after a quiet spell this long.',
    schema: positiveInt,
    default: 900_000,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
};

export const executionSection = {
  ultraPlatformFeeAccount: key({
    doc: 'The one platform fee account an Ultra swap\'s route may name (a token account of the integrator that takes a fee on swaps). "" (default): none, and a route naming any platform fee account is refused before signing (policy product_account).',
    schema: z.union([z.literal(''), pubkey]),
    default: '',
    kind: 'string',
    env: 'STRATD_ULTRA_PLATFORM_FEE_ACCOUNT',
    format: 'a base58 public key, or ""',
  }),
  ultraMaxFeeBps: key({
    doc: "The most a swap's route may take as the service's own fee when it names no platform fee account (route_v2 cannot name one), in bps (platform_fee_bps), and never more than the order's own feeBps. The service charges 0 to 10 bps by pair and 50 on tokens younger than 24 hours: raise this to 50 to swap such tokens (the order's feeBps, which bounds the route too, comes from the same service, so the default does not trust it that far). More is refused before signing (policy intent_exceeded). A route keeping positive slippage as a fee is refused whatever this says.",
    schema: z.int().min(0).max(255),
    default: 10,
    kind: 'int',
    env: 'STRATD_ULTRA_MAX_FEE_BPS',
    format: 'an integer from 0 to 255',
  }),
  slippageBps: key({
    doc: 'Default maximum slippage of a decrease, in basis points (the API default is 200), and of a swap whose intent names none (an Ultra order accepting more is refused); also how far below (a sale) or above (a purchase) its trigger a TP/SL request that names its own worst fill price may set it.',
    schema: z.int().min(0).max(10_000),
    default: 200,
    kind: 'int',
    env: 'STRATD_SLIPPAGE_BPS',
    format: 'an integer from 0 to 10000',
  }),
  priceDriftBps: key({
    doc: "How far (bps) the price may move between the daemon's latest mark price of a position (its positions snapshot) and the build of its decrease. The policy refuses a decrease whose worst fill price (priceSlippage) is further from that mark than its maxSlippageBps plus this: the build endpoint alone cannot choose the fill price.",
    schema: z.int().min(0).max(10_000),
    default: 300,
    kind: 'int',
    env: 'STRATD_PRICE_DRIFT_BPS',
    format: 'an integer from 0 to 10000',
  }),
  markPriceMaxAgeMs: key({
    doc: "A positions snapshot older than this gives no mark price for a decrease: the executor inspects again (transient) until a fresh one arrives or the request expires, and never signs with a price only the build chose. Must exceed twice the positions poll interval.",
    schema: positiveInt,
    default: 20_000,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
  priorityFeeCapLamports: key({
    doc: 'Largest priority fee (compute-unit price × limit) a transaction may carry; a built transaction above it is rejected before signing.',
    schema: exactUint,
    default: '5000000',
    kind: 'integer-string',
    env: 'STRATD_PRIORITY_FEE_CAP_LAMPORTS',
    format: 'a non-negative integer (lamports), as a string or a safe JSON integer',
  }),
  maxAccountSpaceBytes: key({
    doc: 'Largest account (bytes of data) a transaction may create with the wallet\'s lamports; bigger ones are rejected before signing (165 = a token account).',
    schema: exactUint,
    default: '165',
    kind: 'integer-string',
    format: 'a non-negative integer (bytes), as a string or a safe JSON integer',
  }),
  maxPreparingActions: key({
    doc: "Actions the executor of one process builds, inspects and signs at once; more wait their turn in arrival order in that process (holding their lease), so a burst of decisions beyond what the process can carry queues instead of slowing every action down, and a decision that waited past the action TTL is refused as stale. A protective strategy's actions (risk.protectiveStrategies) never wait, nor does sending or confirming an action. An action stalled by an API outage keeps its slot while it retries.",
    schema: z.int().min(1).max(4_096),
    default: 32,
    kind: 'int',
    env: 'STRATD_MAX_PREPARING_ACTIONS',
    format: 'an integer from 1 to 4096',
  }),
  confirmPollMs: key({
    doc: 'Interval of getSignatureStatuses polls while confirming.',
    schema: positiveInt,
    default: 500,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
  rebroadcastMs: key({
    doc: 'Interval at which the same signed bytes are re-sent to the RPC until seen, expired or past the request deadline.',
    schema: positiveInt,
    default: 2_000,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
  keeperFillGraceMs: key({
    doc: "How long after a landed perps request's maxRequestExecutionSec stratd still waits for the trades API to show the keeper's fill before it calls the request refused (keeper_timeout) and frees the intent for a new decision. The trades API is an indexer: during congestion it can lag the chain, and a fill it shows late after a keeper_timeout means the strategy acts twice (a second decrease, a second open). Longer is safer against that; shorter re-decides sooner after a real refusal.",
    schema: z.int().min(0).max(600_000),
    default: 20_000,
    kind: 'int',
    env: 'STRATD_KEEPER_FILL_GRACE_MS',
    format: 'an integer from 0 to 600000 (ms)',
  }),
  maxRequestExecutionSecFallback: key({
    doc: "Request validity used when pool-info's maxRequestExecutionSec is missing or unreadable (the live pool holds 45).",
    schema: positiveInt,
    default: 45,
    kind: 'int',
    format: 'a positive integer (seconds)',
  }),
  receiveToken: key({
    doc: 'Token a decrease pays out in, unless the intent says otherwise.',
    schema: receiveToken,
    default: 'USDC',
    kind: 'string',
    format: `one of ${receiveToken.options.join(', ')}`,
  }),
  retentionMs: key({
    doc: "How long a settled action stays in Redis at most: the archiver moves its record to the audit archive (archive.dir) once it was settled this long ago; finished action jobs are removed after it too, and the claim of the signature of a signed action (one signature, one action) lasts this long from its signing. It is also the life of every external fill's marker (one per trade of the wallet that stratd did not make), whose count no other setting bounds; hence at most 30 days. At least as long as a signed action can stay unsettled: 120 s to land (the 300-block bound of a build) plus execution.maxRequestExecutionSecFallback plus execution.keeperFillGraceMs (185 s with their defaults; a shorter one is refused, naming the least). Keep it well above that if the pool's own maxRequestExecutionSec is longer than the fallback, and above any Redis outage you expect: the fill watcher skips trades older than this.",
    schema: z.int().min(MIN_RETENTION_MS).max(MAX_RETENTION_MS),
    default: 604_800_000,
    kind: 'int',
    env: 'STRATD_EXECUTION_RETENTION_MS',
    format: 'an integer from 120000 to 2592000000 (ms; default 7 days, at most 30 days; at least 120000 + maxRequestExecutionSecFallback + keeperFillGraceMs)',
  }),
  maxSettledRecords: key({
    doc: 'Most settled action records kept in Redis (about 4 KB each): the archiver moves the oldest beyond it to the audit archive (archive.dir), never one settled less than archive.minAgeMs ago and never an unsettled one. See docs/operations.md, "Redis memory and the archive".',
    schema: positiveInt,
    default: 20_000,
    kind: 'int',
    env: 'STRATD_EXECUTION_MAX_SETTLED_RECORDS',
    format: 'a positive integer',
  }),
  maxOpenActions: key({
    doc: 'Most unsettled actions of the deployment (records not yet settled, plus decisions claimed but not yet stored): at this many, a new decision of a strategy is not admitted (shed at decision time: no record, job or intent lock is written; ledger decision_shed once per episode, metric stratd_decisions_shed_total), and the strategy decides again on a later snapshot. A protective strategy\'s decision that lowers exposure (risk.protectiveStrategies; decreases, cancels, TP/SL create and update) is always admitted. The default keeps a full backlog near 55 MB of Redis (about 5.5 KB an open action); see docs/operations.md, "Admission: a bound on open actions".',
    schema: z.int().min(1).max(1_000_000),
    default: 10_000,
    kind: 'int',
    env: 'STRATD_EXECUTION_MAX_OPEN_ACTIONS',
    format: 'an integer from 1 to 1000000',
  }),
  retainedJobs: key({
    doc: 'Most finished action jobs kept in Redis (completed and failed each), whatever their age.',
    schema: positiveInt,
    default: 10_000,
    kind: 'int',
    format: 'a positive integer',
  }),
  skipPreflight: key({
    doc: 'Send with skipPreflight (no RPC simulation before broadcast).',
    schema: z.boolean(),
    default: false,
    kind: 'boolean',
    format: 'true or false',
  }),
};

const usd = (doc: string, dflt: string, env: string) =>
  key({
    doc: `${doc} USD × 10^6 as an integer string ("1000000" = $1).`,
    schema: exactUint,
    default: dflt,
    kind: 'integer-string',
    env,
    format: 'a non-negative integer string (USD × 10^6)',
  });

/** risk.maxLeverage.<market>: at most the spec's ceiling for the market, conservative by default. */
const leverageKey = (symbol: string, specMax: number) =>
  key({
    doc: `Highest leverage an open or increase on ${symbol} may ask for (or imply: size over the collateral's value); the spec allows up to ${specMax}.`,
    schema: z.number().min(1.1).max(specMax),
    default: 10,
    kind: 'number',
    env: `STRATD_RISK_MAX_LEVERAGE_${symbol}`,
    format: `a number from 1.1 to ${specMax}`,
  });

export const riskSection = {
  maxNotionalPerActionUsd: usd('Largest notional of one action. A decrease of a protective strategy (risk.protectiveStrategies) is not held to it: its size is the position\'s.', '10000000000', 'STRATD_RISK_MAX_NOTIONAL_PER_ACTION_USD'),
  maxActionsPerStrategyPerHour: key({
    doc: 'Actions one strategy may start in any rolling hour.',
    schema: positiveInt,
    default: 60,
    kind: 'int',
    env: 'STRATD_RISK_MAX_ACTIONS_PER_STRATEGY_PER_HOUR',
    format: 'a positive integer',
  }),
  maxNotionalPerHourUsd: usd('Total notional of all actions in any rolling hour. A decrease of a protective strategy counts toward it but is never refused by it.', '50000000000', 'STRATD_RISK_MAX_NOTIONAL_PER_HOUR_USD'),
  dailyLossStopUsd: usd('Realised loss in one UTC day after which trading switches to reducing. Counts perps realised PnL (our landed decreases and the perps fills stratd did not make) and spot realised PnL at average cost in USD (landed swaps, trigger-order fills, recurring slices; a token is realised when sold for USDC or USDT, and one never bought through stratd realises nothing). See docs/operations.md, "Limits of actions that add risk".', '1000000000', 'STRATD_RISK_DAILY_LOSS_STOP_USD'),
  circuitBreakerRejections: key({
    doc: "Rejections in a row of one strategy, of kinds that indicate a broken venue or policy (whatever their reasons: a venue alternating two broken builds counts as one repeating one) (policy violations, unreadable or unattributable builds, malformed replies, 4xx, replayed bytes), after which that strategy's circuit breaker stops its new actions. Market refusals (a position already closed, a keeper or chain refusal) and the simulation's transient refusals (simulation_failed, simulation_invalid, simulation_unavailable: the RPC could not answer as asked, or the transaction would fail right now) never count; simulation_delta, shown on three simulations in a row, does. Any other outcome ends the streak, except a refusal by the risk limits at accept, which leaves it as it is.",
    schema: positiveInt,
    default: 5,
    kind: 'int',
    env: 'STRATD_RISK_CIRCUIT_BREAKER_REJECTIONS',
    format: 'a positive integer',
  }),
  breakerAutoResetMs: key({
    doc: 'Quiet period after which a tripped circuit breaker lets its strategy act again by itself (the trip is a risk and an alert entry in the ledger); 0: only `stratd resume` resets it.',
    schema: z.int().min(0),
    default: 900_000,
    kind: 'int',
    env: 'STRATD_RISK_BREAKER_AUTO_RESET_MS',
    format: 'a non-negative integer (ms)',
  }),
  maxLeverage: {
    SOL: leverageKey('SOL', 100),
    ETH: leverageKey('ETH', 150),
    BTC: leverageKey('BTC', 150),
  },
  maxNotionalPerMarketUsd: usd("Risk-adding intents (open, increase): the wallet's open positions in one market (long and short, from its latest positions snapshot) plus the intent's size may not exceed this.", '5000000000', 'STRATD_RISK_MAX_NOTIONAL_PER_MARKET_USD'),
  maxNotionalPerWalletUsd: usd("Risk-adding intents (open, increase): all of the wallet's open positions plus the intent's size may not exceed this.", '10000000000', 'STRATD_RISK_MAX_NOTIONAL_PER_WALLET_USD'),
  maxOpenPositions: key({
    doc: 'An open that would make a new position is refused when the wallet already holds this many open positions (its latest positions snapshot).',
    schema: positiveInt,
    default: 3,
    kind: 'int',
    env: 'STRATD_RISK_MAX_OPEN_POSITIONS',
    format: 'a positive integer',
  }),
  maxSpendPerHourUsd: usd("What swaps and orders may spend in any rolling hour: a swap's amount, a trigger order's making amount, a recurring order's whole in-amount, an LP mint's deposit and a deposit-borrow's borrowed USDC, valued when accepted at the latest known price (USDC and USDT at $1; other mints at the mark of the wallet's positions snapshot, else the ranked-tokens usdPrice); an intent whose mint has no known price is refused (price_unknown), except a trigger order selling it for USDC or USDT, which counts what it takes. A swap into a mint with no known price is refused (price_unknown) unless its intent names its own minOutAmount.", '1000000000', 'STRATD_RISK_MAX_SPEND_PER_HOUR_USD'),
  maxBelowMarketBps: key({
    doc: "How far below the market (bps) a trade may value what it takes against what it gives, at the prices maxSpendPerHourUsd values by: a trigger order's taking amount less its slippageBps when accepted, a swap's least output its signed route may keep (the smaller of its quote's otherAmountThreshold and its out less the allowed slippage, at least the intent's minOutAmount) before signing. A trade priced further below is refused (below_market): a quote that gives the input away keeps its own slippage, so only prices read apart from it can catch it. A trade whose two mints are not both priced is not judged by it; 10000 turns it off.",
    schema: z.int().min(0).max(10_000),
    default: 1_000,
    kind: 'int',
    env: 'STRATD_RISK_MAX_BELOW_MARKET_BPS',
    format: 'an integer from 0 to 10000',
  }),
  protectiveStrategies: key({
    doc: "Strategies whose exposure-lowering actions (decreases, cancels, tightening TP/SL) pass other strategies' circuit breakers and a halt made by the risk system, and whose decreases pass both notional limits; an operator's pause still stops them.",
    schema: z.array(strategyName),
    default: ['liquidation-guard'],
    kind: 'list',
    env: 'STRATD_RISK_PROTECTIVE_STRATEGIES',
    format: 'a list of strategy names (comma-separated in env/--set)',
  }),
};

/** The signing policy's checks that ask the chain (src/chain/policy, src/pipeline/executor/simulation-check.ts). */
export const policySection = {
  simulation: {
    enabled: key({
      doc: "Before signing, simulate the unsigned transaction on our own RPC (simulateTransaction with the wallet and its token accounts) and refuse it when the wallet's balances would change beyond what the intent allows (policy rule simulation_delta) or the simulation says it would fail (simulation_failed). Catches what decoding cannot see inside a program (a CPI that moves a token). Paper mode checks against the paper venue's node. See docs/safety.md, \"Simulation (balance-delta check)\".",
      schema: z.boolean(),
      default: true,
      kind: 'boolean',
      env: 'STRATD_POLICY_SIMULATION',
      format: 'true or false',
    }),
    onUnavailable: key({
      doc: "What happens when the RPC cannot simulate (an error, no answer within policy.simulation.timeoutMs): 'refuse' to sign it unchecked (the action is held at its build and inspected again while the build's blockhash is valid, then ends expired with reason simulation_unavailable; the circuit breaker never counts it), or 'alert': sign it without the check, notify (kind simulation_unavailable) and count it (stratd_policy_simulation_total{outcome=\"unavailable_signed\"}). An answer that is not the accounts asked for is refused either way (simulation_invalid).",
      schema: z.enum(['refuse', 'alert']),
      default: 'refuse',
      kind: 'string',
      env: 'STRATD_POLICY_SIMULATION_ON_UNAVAILABLE',
      format: 'refuse or alert',
    }),
    timeoutMs: key({
      doc: 'Longest wait for the simulation (and the pre-state read beside it) of an action that is not protective; then policy.simulation.onUnavailable applies.',
      schema: positiveInt,
      default: 2_000,
      kind: 'int',
      format: 'a positive integer (ms)',
    }),
    protectiveTimeoutMs: key({
      doc: 'Longest wait for the simulation of a protective action (a decrease, a TP/SL create or update): a slow node must not hold a position\'s protection; then policy.simulation.onUnavailable applies (per attempt).',
      schema: positiveInt,
      default: 300,
      kind: 'int',
      format: 'a positive integer (ms)',
    }),
  },
};
