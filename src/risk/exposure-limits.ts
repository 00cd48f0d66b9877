import { decimalToScaled, toBigInt, USD_DECIMALS, USD_SCALE } from '../api/amounts.ts';
import { MARKET_SYMBOL, MINT_DECIMALS, MINTS, type MarketMint } from '../api/mints.ts';
import type { Intent } from '../sdk/intent.ts';
import { slippageFloor } from '../sdk/slippage-floor.ts';
import type { PositionView } from '../sdk/position-view.ts';

/**
 * The limits on intents that add risk or spend (RISK_ADDING_INTENT_TYPES), config risk.*.
 * Amounts are USD × 10^6; leverage is × 10^6 too, so "2.5" compares exactly.
 */
export interface RiskAddingLimits {
  /** Per market mint, leverage × 10^6. */
  readonly maxLeverage: Readonly<Record<MarketMint, bigint>>;
  readonly maxNotionalPerMarketUsd: bigint;
  readonly maxNotionalPerWalletUsd: bigint;
  readonly maxOpenPositions: number;
  readonly maxSpendPerHourUsd: bigint;
  /**
   * How far (bps) below what it gives, at the latest known prices, a swap's least accepted output
   * or a trigger order's taking amount may be valued (src/risk/below-market.ts). Absent: not judged.
   */
  readonly maxBelowMarketBps?: number;
}

/**
 * What a risk-adding intent is judged against: the wallet's open positions (its latest positions
 * snapshot) and the latest known price of each mint.
 */
export interface ExposureFacts {
  readonly positions: readonly PositionView[];
  /**
   * Perps opens, increases and limit orders decided and not yet settled (the in-flight index), by
   * action id: risk the positions snapshot does not show yet, which the limits count as well.
   */
  readonly pending?: ReadonlyArray<{ readonly actionId: string; readonly intent: Intent; readonly state?: string }>;
  /**
   * The version of the gate's exposure holds these facts were read at (src/risk/exposure-holds.ts):
   * an accept that passes holds its own exposure under it. Absent: facts made by hand, nothing held.
   */
  readonly holdVersion?: string;
  /** The wallet's perps limit orders placed and not executed (its latest limit-orders snapshot): positions once they trigger. */
  readonly restingOrders?: ReadonlyArray<{ readonly marketMint: string; readonly side: 'long' | 'short'; readonly sizeUsd: bigint }>;
  /**
   * The latest limit-orders snapshot is too old to say which orders rest (its poller stopped or
   * failing): a perps ask is refused `exposure_unknown` rather than judged on a list that may miss
   * an order placed since or count one that filled.
   */
  readonly restingOrdersStale?: boolean;
  /** USD × 10^6 per whole token; undefined when no price of the mint is known. */
  priceUsd(mint: string): bigint | undefined;
  /**
   * The decimals of a mint the known list (MINT_DECIMALS) lacks, as a ranked-tokens snapshot names
   * them: without them a ranked token's price values nothing, and selling it could not be judged.
   */
  decimalsOf?(mint: string): number | undefined;
  /**
   * USD × 10^18 per whole token, when the price came from a ranking: a token worth a millionth of a
   * dollar has no price at all in USD × 10^6, and one worth a few millionths is a third off.
   */
  finePriceUsd?(mint: string): bigint | undefined;
}

/** The scale of ExposureFacts.finePriceUsd (USD × 10^18). */
export const FINE_PRICE_DECIMALS = 18;

type ExposureJudgement =
  | { readonly ok: false; readonly rule: string; readonly detail: string }
  /**
   * `spendUsd`: what the intent spends toward risk.maxSpendPerHourUsd (0 for a perps open).
   * `sizeUsd`: a perps ask's size, as the limits valued it (what the notional limits hold it to,
   * whatever the strategy declared).
   */
  | { readonly ok: true; readonly spendUsd: bigint; readonly sizeUsd?: bigint };

/** The mint an LP deposit token names (WBTC is the BTC market's custody). */
const DEPOSIT_TOKEN_MINT: Readonly<Record<string, string>> = { WBTC: MINTS.BTC, ETH: MINTS.ETH, SOL: MINTS.SOL, USDC: MINTS.USDC };

/**
 * The USD value (× 10^6, rounded down) of `amount` of `mint` (smallest unit): USDC and USDT count
 * one dollar per token (they are what the venue settles in, so no price of them is asked for);
 * every other mint is valued at its latest known price, with its decimals from the known list or
 * the ranking that priced it. Undefined when its price or its decimals are unknown.
 */
export function tokenValueUsd(facts: Pick<ExposureFacts, 'priceUsd' | 'decimalsOf' | 'finePriceUsd'>, mint: string, amount: bigint): bigint | undefined {
  const decimals = MINT_DECIMALS[mint] ?? facts.decimalsOf?.(mint);
  if (decimals === undefined) return undefined;
  // Before any ranking's price of them: a ranking that lists USDC at a millionth of a dollar must
  // not shrink a spend, nor one that lists it at $0.87 make every sale into it "below the market".
  if (mint === MINTS.USDC || mint === MINTS.USDT) return (amount * USD_SCALE) / 10n ** BigInt(decimals);
  const fine = facts.finePriceUsd?.(mint);
  if (fine !== undefined && fine > 0n) return (amount * fine) / 10n ** BigInt(decimals + FINE_PRICE_DECIMALS - USD_DECIMALS);
  const price = facts.priceUsd(mint);
  if (price === undefined || price <= 0n) return undefined;
  return (amount * price) / 10n ** BigInt(decimals);
}

const refuse = (rule: string, detail: string): ExposureJudgement => ({ ok: false, rule, detail });
const unpriced = (mint: string): ExposureJudgement =>
  refuse('price_unknown', `no price of ${mintName(mint)} is known (latest positions, market-stats and ranked-tokens snapshots), so the amount cannot be held to the limits`);

/**
 * Judges one risk-adding intent against the limits: leverage, open positions, notional per
 * market and per wallet for a perps open, increase or limit order; for swaps and orders, what it spends
 * (valued at the latest prices) for the hourly spend limit, which the gate sums.
 */
export function judgeRiskAdding(intent: Intent, facts: ExposureFacts, limits: RiskAddingLimits, actionId?: string, stage: 'accept' | 'sign' = 'accept'): ExposureJudgement {
  // The others in flight: this action's own entry is the intent being judged. Before signing, only
  // those already signed count: two accepted together did not see each other, and counting each
  // other now would refuse both; the first to sign is held to the limits, the second sees it.
  const counted = (p: { readonly actionId: string; readonly state?: string }) => p.actionId !== actionId && (stage === 'accept' || (p.state !== undefined && SIGNED_OR_LATER.has(p.state)));
  const pending = (facts.pending ?? []).filter(counted).flatMap((p) => {
    const ask = perpsAsk(p.intent);
    return ask ? [{ actionId: p.actionId, ask }] : [];
  });
  const ask = perpsAsk(intent);
  switch (intent.type) {
    case 'open':
      return heldRefusal(intent, facts, pending) ?? judgePerps(ask!, facts, limits, pending);
    case 'increase':
      return notHeldRefusal(intent, facts) ?? judgePerps(ask!, facts, limits, pending);
    // A perps limit order is an open waiting for its trigger: held to the same limits when placed.
    case 'limit-order-create':
      return judgePerps(ask!, facts, limits, pending);
    case 'swap':
      return unboundedOutput(facts, intent) ?? spend(facts, intent.inputMint, toBigInt(intent.amount));
    case 'trigger-create': {
      const judged = spend(facts, intent.inputMint, toBigInt(intent.makingAmount));
      return !judged.ok && judged.rule === 'price_unknown' ? saleForStablecoin(facts, intent, limits.maxBelowMarketBps) : judged;
    }
    case 'recurring-create':
      return spend(facts, intent.inputMint, toBigInt(intent.inAmount));
    case 'lp-mint':
      return spend(facts, DEPOSIT_TOKEN_MINT[intent.depositToken] ?? '', toBigInt(intent.depositTokenAmount));
    // A borrow is money taken to spend: its USDC counts (the LP deposit is collateral, not spent).
    case 'deposit-borrow':
      return spend(facts, MINTS.USDC, toBigInt(intent.borrowTokenAmount));
    default:
      return { ok: true, spendUsd: 0n };
  }
}

/**
 * An open on a market and side the wallet already holds: the venue derives the position from the
 * owner, market, collateral and side, so such an open would not open anything but silently add
 * to the held position (and attach a second stop to it), while the TP/SL book and the strategies
 * count one position per market and side. Adding is an `increase` naming the position.
 */
function heldRefusal(intent: Extract<Intent, { type: 'open' }>, facts: ExposureFacts, pending: readonly PendingAsk[]): ExposureJudgement | undefined {
  const held = facts.positions.find((p) => p.sizeUsd > 0n && p.marketMint === intent.marketMint && p.side === intent.side);
  if (held) {
    return refuse('position_held', `the wallet already holds a ${MARKET_SYMBOL[intent.marketMint]} ${intent.side} position (${held.positionPubkey}); an open does not open a second one, it would add to it: use an increase intent with positionPubkey ${held.positionPubkey}`);
  }
  const opening = pending.find((p) => p.ask.type === 'open' && !p.ask.limitOrder && p.ask.marketMint === intent.marketMint && p.ask.side === intent.side);
  if (!opening) return undefined;
  return refuse('position_held', `an open of a ${MARKET_SYMBOL[intent.marketMint]} ${intent.side} position is in flight (action ${opening.actionId}); a second one would add to it`);
}

/**
 * An increase of a position the wallet does not hold (closed by its stop, liquidated, never
 * opened): the venue would open a new one, without the stop-loss an open must carry and outside
 * the open-positions limit, which only an open is held to.
 */
function notHeldRefusal(intent: Extract<Intent, { type: 'increase' }>, facts: ExposureFacts): ExposureJudgement | undefined {
  const held = facts.positions.find((p) => p.positionPubkey === intent.positionPubkey && p.sizeUsd > 0n);
  if (held && held.marketMint === intent.marketMint && held.side === intent.side) return undefined;
  return refuse('position_not_held', `the latest positions snapshot holds no open ${MARKET_SYMBOL[intent.marketMint]} ${intent.side} position ${intent.positionPubkey}: an increase of it would open a new position, without a stop-loss (use an open)`);
}

function spend(facts: ExposureFacts, mint: string, amount: bigint): ExposureJudgement {
  const usd = tokenValueUsd(facts, mint, amount);
  return usd === undefined ? unpriced(mint) : { ok: true, spendUsd: usd };
}

/**
 * A swap into a mint no snapshot prices, whose intent names no minOutAmount: the quote and the
 * route come from one reply of the API, and below_market cannot value the output, so nothing apart
 * from the API would bound what the swap pays out ("1 unit" for 1 SOL would be signed).
 */
function unboundedOutput(facts: ExposureFacts, intent: Extract<Intent, { type: 'swap' }>): ExposureJudgement | undefined {
  if (intent.minOutAmount !== undefined || tokenValueUsd(facts, intent.outputMint, 0n) !== undefined) return undefined;
  return refuse('price_unknown', `no price of ${mintName(intent.outputMint)} is known (latest positions, market-stats and ranked-tokens snapshots) and the swap names no minOutAmount: nothing but the API's own quote would bound what it pays out`);
}

/**
 * The least a trigger order may take: its takingAmount less its slippageBps, rounded up (the order
 * may fill that far below its limit price). A slippage of 10,000 bps or more takes nothing.
 */
export function triggerLeastTake(intent: Extract<Intent, { type: 'trigger-create' }>): bigint {
  return slippageFloor(toBigInt(intent.takingAmount), intent.slippageBps === undefined ? 0n : toBigInt(intent.slippageBps)) ?? 0n;
}

/**
 * A trigger order selling a token no snapshot prices (one that left every polled ranking) for
 * USDC or USDT: what it takes is the one value known, and it counts as the spend. Refusing it
 * would leave the token with no exit at all (token-momentum's take-profit of a holding whose
 * token dropped out of the rankings); a sale into a stablecoin lowers what the wallet holds at
 * risk. It must take at least what the strategy declared the sale worth (`notionalUsd`) less
 * risk.maxBelowMarketBps, at the least it may fill at (takingAmount less its slippageBps): a
 * take-profit asks more, an amount in the wrong decimals far less. No other unpriced spend passes.
 */
function saleForStablecoin(facts: ExposureFacts, intent: Extract<Intent, { type: 'trigger-create' }>, maxBelowBps: number | undefined): ExposureJudgement {
  const stable = intent.outputMint === MINTS.USDC || intent.outputMint === MINTS.USDT;
  if (!stable) return unpriced(intent.inputMint);
  const takes = tokenValueUsd(facts, intent.outputMint, triggerLeastTake(intent))!;
  const declared = toBigInt(intent.notionalUsd);
  // Declared worth nothing, nothing bounds it: as unpriced as before.
  if (declared === 0n) return unpriced(intent.inputMint);
  const bps = BigInt(Math.min(Math.max(Math.trunc(maxBelowBps ?? 0), 0), 10_000));
  if (takes * 10_000n < declared * (10_000n - bps)) {
    return refuse('below_market', `a sale of ${intent.makingAmount} of ${mintName(intent.inputMint)}, which no snapshot prices, may take as little as ${takes} (USD × 10^6) where its strategy declared it worth ${declared}: more than risk.maxBelowMarketBps (${bps}) below`);
  }
  return { ok: true, spendUsd: takes };
}

/** What the perps limits read of an open, an increase or a limit order. */
type PerpsExposureAsk = Pick<Extract<Intent, { type: 'open' }>, 'marketMint' | 'side' | 'collateralTokenDelta' | 'leverage' | 'sizeUsdDelta'> & {
  readonly type: 'open' | 'increase';
  /** The token paid in. */
  readonly inputMint?: string;
  readonly collateralMint?: string;
  /** A limit order: an open once its trigger is reached. */
  readonly limitOrder?: true;
  /** A limit order's trigger (USD × 10^6): paid in the market's own asset, its collateral is worth that much at the fill. */
  readonly triggerPriceUsd?: bigint;
};

/** States of an action whose signature exists: it may land. */
const SIGNED_OR_LATER: ReadonlySet<string> = new Set(['signed', 'submitted', 'landed']);

/** A perps ask of another action in flight. */
interface PendingAsk {
  readonly actionId: string;
  readonly ask: PerpsExposureAsk;
}

/** The perps ask of an intent that opens or adds to a position; undefined for any other. */
function perpsAsk(intent: Intent): PerpsExposureAsk | undefined {
  if (intent.type === 'open' || intent.type === 'increase') return intent;
  if (intent.type !== 'limit-order-create') return undefined;
  return { type: 'open', marketMint: intent.marketMint, side: intent.side, inputMint: intent.inputMint, collateralTokenDelta: intent.inputTokenAmount, leverage: intent.leverage, sizeUsdDelta: intent.sizeUsdDelta, limitOrder: true, triggerPriceUsd: toBigInt(intent.triggerPrice) };
}

/**
 * What an ask's collateral is worth (USD × 10^6), the least and the most it may be: at the latest
 * price, and for a limit order paid in the market's own asset also at its trigger, which is where
 * the service values it when the order fills (a short's trigger may be twice the spot). The size
 * a leverage makes of it counts at the most, the leverage a size implies on it at the least.
 * Undefined when unpriced.
 */
function collateralValueUsd(ask: PerpsExposureAsk, facts: ExposureFacts): { readonly least: bigint; readonly most: bigint } | undefined {
  const mint = ask.inputMint ?? ask.collateralMint ?? '';
  const amount = toBigInt(ask.collateralTokenDelta);
  const now = tokenValueUsd(facts, mint, amount);
  if (now === undefined) return undefined;
  const decimals = MINT_DECIMALS[mint];
  if (!ask.limitOrder || ask.triggerPriceUsd === undefined || mint !== ask.marketMint || decimals === undefined) return { least: now, most: now };
  const atTrigger = (amount * ask.triggerPriceUsd) / 10n ** BigInt(decimals);
  return { least: atTrigger < now ? atTrigger : now, most: atTrigger > now ? atTrigger : now };
}

/** The size an ask adds (USD × 10^6): its sizeUsdDelta, or its collateral's value × its leverage; undefined when unpriced. */
function askedSizeUsd(ask: PerpsExposureAsk, facts: ExposureFacts): bigint | undefined {
  if (ask.sizeUsdDelta !== undefined) return toBigInt(ask.sizeUsdDelta);
  const collateral = collateralValueUsd(ask, facts);
  if (collateral === undefined) return undefined;
  return (collateral.most * (ask.leverage === undefined ? 0n : decimalToScaled(ask.leverage, 6))) / USD_SCALE;
}

function judgePerps(intent: PerpsExposureAsk, facts: ExposureFacts, limits: RiskAddingLimits, pending: readonly PendingAsk[] = []): ExposureJudgement {
  if (facts.restingOrdersStale) {
    return refuse('exposure_unknown', "the wallet's latest limit-orders snapshot is older than allowed (ten minutes, or three intervals of a slower pollers.limitOrders; the poller stopped or is failing): which limit orders rest is unknown, so no perps exposure is added");
  }
  const market = intent.marketMint;
  const symbol = MARKET_SYMBOL[market];
  const payMint = intent.inputMint ?? intent.collateralMint ?? '';
  const collateral = collateralValueUsd(intent, facts);
  // The leverage a size implies is judged on the collateral's least value.
  const collateralUsd = collateral?.least;
  const leverage = intent.leverage === undefined ? undefined : decimalToScaled(intent.leverage, 6);
  let sizeUsd: bigint;
  if (intent.sizeUsdDelta !== undefined) sizeUsd = toBigInt(intent.sizeUsdDelta);
  else if (collateral === undefined) return unpriced(payMint);
  else sizeUsd = (collateral.most * (leverage ?? 0n)) / USD_SCALE;
  // Risk decided and not settled yet counts as held: otherwise each of several opens or limit
  // orders decided before the positions snapshot shows any of them passes the limits alone.
  let pendingInMarket = 0n;
  let pendingInWallet = 0n;
  const pendingNew = new Set<string>();
  for (const { ask } of pending) {
    const size = askedSizeUsd(ask, facts);
    if (size === undefined) return unpriced(ask.inputMint ?? ask.collateralMint ?? '');
    pendingInWallet += size;
    if (ask.marketMint === market) pendingInMarket += size;
    if (ask.type === 'open') pendingNew.add(`${ask.marketMint}:${ask.side}`);
  }
  for (const order of facts.restingOrders ?? []) {
    pendingInWallet += order.sizeUsd;
    if (order.marketMint === market) pendingInMarket += order.sizeUsd;
    pendingNew.add(`${order.marketMint}:${order.side}`);
  }
  const maxLeverage = limits.maxLeverage[market];
  // The leverage the intent asks for, or the one its size implies on its collateral.
  if (leverage !== undefined && leverage > maxLeverage) {
    return refuse('max_leverage', `leverage ${intent.leverage} on ${symbol} is above risk.maxLeverage.${symbol} (${formatLeverage(maxLeverage)})`);
  }
  if (leverage === undefined) {
    if (collateralUsd === undefined) return unpriced(payMint);
    if (collateralUsd === 0n || sizeUsd * USD_SCALE > maxLeverage * collateralUsd) {
      return refuse('max_leverage', `size ${sizeUsd} on collateral worth ${collateralUsd} (USD × 10^6) is above risk.maxLeverage.${symbol} (${formatLeverage(maxLeverage)})`);
    }
  }
  const open = facts.positions.filter((p) => p.sizeUsd > 0n);
  for (const p of open) pendingNew.delete(`${p.marketMint}:${p.side}`);
  const isNew = intent.type === 'open' && !open.some((p) => p.marketMint === market && p.side === intent.side) && !pendingNew.has(`${market}:${intent.side}`);
  const inFlightNote = (amount: bigint) => (amount > 0n ? ` (${amount} of it in flight or in resting limit orders)` : '');
  if (isNew && open.length + pendingNew.size + 1 > limits.maxOpenPositions) {
    return refuse('max_open_positions', `the wallet holds ${open.length} open positions${pendingNew.size > 0 ? ` and ${pendingNew.size} more are being opened` : ''}; risk.maxOpenPositions is ${limits.maxOpenPositions}`);
  }
  const inMarket = open.filter((p) => p.marketMint === market).reduce((sum, p) => sum + p.sizeUsd, 0n) + pendingInMarket;
  if (inMarket + sizeUsd > limits.maxNotionalPerMarketUsd) {
    return refuse('max_notional_per_market', `${symbol} positions of ${inMarket}${inFlightNote(pendingInMarket)} plus ${sizeUsd} would exceed risk.maxNotionalPerMarketUsd ${limits.maxNotionalPerMarketUsd} (USD × 10^6)`);
  }
  const inWallet = open.reduce((sum, p) => sum + p.sizeUsd, 0n) + pendingInWallet;
  if (inWallet + sizeUsd > limits.maxNotionalPerWalletUsd) {
    return refuse('max_notional_per_wallet', `open positions of ${inWallet}${inFlightNote(pendingInWallet)} plus ${sizeUsd} would exceed risk.maxNotionalPerWalletUsd ${limits.maxNotionalPerWalletUsd} (USD × 10^6)`);
  }
  return { ok: true, spendUsd: 0n, sizeUsd };
}

/** Leverage × 10^6 as text ("10", "2.5"), for messages. */
export function formatLeverage(scaled: bigint): string {
  const whole = scaled / USD_SCALE;
  const fraction = (scaled % USD_SCALE).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** A known mint's symbol (SOL, USDC, ...), else the mint itself, for messages. */
export function mintName(mint: string): string {
  const known = Object.entries(MINTS).find(([, m]) => m === mint);
  return known ? known[0] : mint;
}
