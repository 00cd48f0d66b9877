import { MINT_DECIMALS, MINTS } from '../../api/mints.ts';
import { marketBySymbol, marketSpec, PERPS_MARKETS, STABLE_CUSTODIES, type MarketSymbol } from './assets.ts';
import { Custody } from './custody.ts';
import { invalidArgument } from './errors.ts';
import type { BalanceLedger } from './ledger.ts';
import { Lending, type LendingAction } from './lending.ts';
import { LimitOrderBook, type LimitOrderAction } from './limit-orders.ts';
import { PriceOracle } from './oracle.ts';
import type { LandingMeta, PerpsAction } from './perps-actions.ts';
import { PerpsBook, type PerpsSettings } from './perps-book.ts';
import { runPriceTriggers } from './perps-triggers.ts';
import { loadPriceFile, type PriceRow } from './price-file.ts';
import { Prng } from './prng.ts';
import { RecurringOrderBook, type RecurringAction } from './recurring-orders.ts';
import { StudioPools, type ClaimFeeAction } from './studio-pools.ts';
import { floatPriceToScaled, SWAP_PRICE_SCALE, type TokenPricing } from './swap-pricing.ts';
import { TokenUniverse, UNIVERSE_STEP_MS } from './token-universe.ts';
import { TradeLog } from './trades.ts';
import { TriggerOrderBook, type TriggerAction } from './trigger-orders.ts';
import { UltraOrders, type UltraSwapAction } from './ultra-orders.ts';

/** Everything a venue-built transaction can ask for when it lands. */
export type VenueAction = PerpsAction | LimitOrderAction | TriggerAction | RecurringAction | LendingAction | ClaimFeeAction | UltraSwapAction;

const ACTION_KINDS = new Set<string>([
  'perps.increase', 'perps.decrease', 'perps.createTpsl', 'perps.updateTpsl', 'perps.cancelTpsl',
  'trigger.create', 'trigger.cancel', 'recurring.create', 'recurring.cancel', 'recurring.priceDeposit',
  'lp.mint', 'lending.depositBorrow', 'studio.claimFee', 'ultra.swap',
  'perps.limitCreate', 'perps.limitUpdate', 'perps.limitCancel',
]);

export function isVenueAction(value: unknown): value is VenueAction {
  return typeof value === 'object' && value !== null && ACTION_KINDS.has(String((value as { kind?: unknown }).kind));
}

interface MarketOptions {
  readonly seed: number;
  /** Venue time at which the model starts (the clock's start). */
  readonly startMs: number;
  /** Where wallet balances live (the chain in the venue). */
  readonly ledger: BalanceLedger;
  /** Grid of price steps, ms of venue time (default 1000). */
  readonly stepMs?: number;
  /** Hourly standard deviation of the SOL price, percent (default 1; ETH 0.8x, BTC 0.6x). */
  readonly volatility?: number;
  /** Replay prices from this CSV file (or rows) instead of the random walk. */
  readonly priceFile?: string | readonly PriceRow[];
  /** Delay between a legacy request landing and the keeper executing it (default 1000 ms). */
  readonly keeperDelayMs?: number;
  /** Requests older than this are rejected by the keeper; pool-info reports it (default 45). */
  readonly maxRequestExecutionSec?: number;
}

/**
 * The venue's market model: oracle prices, pool custodies, perps positions with the keeper,
 * trigger/recurring/ultra swaps, the LP token and lending, studio pools and the token universe.
 * Pure logic over bigint money; time only moves through `advanceTo`, so the same seed, the same
 * calls and the same times give the same state.
 */
export class Market {
  readonly seed: number;
  readonly startMs: number;
  readonly stepMs: number;
  readonly settings: PerpsSettings;
  readonly oracle: PriceOracle;
  readonly custodies = new Map<string, Custody>();
  readonly trades = new TradeLog();
  readonly perps: PerpsBook;
  readonly limitOrders: LimitOrderBook;
  readonly tokens: TokenUniverse;
  readonly triggers: TriggerOrderBook;
  readonly recurring: RecurringOrderBook;
  readonly lending: Lending;
  readonly studio: StudioPools;
  readonly ultra: UltraOrders;
  readonly pricing: TokenPricing;
  readonly ledger: BalanceLedger;
  private current: number;

  constructor(options: MarketOptions) {
    this.seed = options.seed;
    this.startMs = options.startMs;
    this.current = options.startMs;
    this.stepMs = options.stepMs ?? 1000;
    if (!Number.isInteger(this.stepMs) || this.stepMs < 1) throw invalidArgument('stepMs must be a positive integer');
    this.ledger = options.ledger;
    this.settings = { keeperDelayMs: options.keeperDelayMs ?? 1000, maxRequestExecutionSec: options.maxRequestExecutionSec ?? 45 };
    const replay = typeof options.priceFile === 'string' ? loadPriceFile(options.priceFile) : options.priceFile;
    this.oracle = new PriceOracle({ seed: options.seed, startMs: options.startMs, stepMs: this.stepMs, volatilityPctPerHour: options.volatility ?? 1, replay });
    for (const m of PERPS_MARKETS) {
      this.custodies.set(m.mint, new Custody({ symbol: m.symbol, mint: m.mint, decimals: m.decimals, address: m.custody, ownedTokens: m.initialOwnedTokens, jumpRate: m.jumpRate, startMs: options.startMs, rng: new Prng(options.seed, `custody:${m.symbol}`) }));
    }
    for (const s of STABLE_CUSTODIES) {
      this.custodies.set(s.mint, new Custody({ symbol: s.symbol, mint: s.mint, decimals: s.decimals, address: s.custody, ownedTokens: s.initialOwnedTokens, jumpRate: s.jumpRate, startMs: options.startMs, rng: new Prng(options.seed, `custody:${s.symbol}`) }));
    }
    const env = {
      price: (mint: string) => this.price(mint),
      decimals: (mint: string) => this.decimals(mint),
      custody: (mint: string) => this.custody(mint),
      ledger: this.ledger,
      trades: this.trades,
      settings: this.settings,
    };
    this.perps = new PerpsBook(env);
    this.limitOrders = new LimitOrderBook(this.perps);
    this.tokens = new TokenUniverse(options.seed, options.startMs);
    this.lending = new Lending(() => [...this.custodies.values()], (mint) => this.price(mint), this.ledger, () => this.custody(MINTS.USDC));
    this.pricing = {
      priceOf: (mint) => this.swapPrice(mint),
      decimalsOf: (mint) => MINT_DECIMALS[mint] ?? this.tokens.byMint(mint)?.decimals,
    };
    this.triggers = new TriggerOrderBook(this.pricing, this.ledger);
    this.recurring = new RecurringOrderBook(this.pricing, this.ledger);
    this.studio = new StudioPools(this.ledger);
    this.ultra = new UltraOrders(this.pricing, this.ledger);
  }

  /** The time the model has been advanced to. */
  now(): number {
    return this.current;
  }

  /** USD x 10^6 per whole token of a perps mint (markets, stables, JLP). */
  price(mint: string): bigint {
    const market = marketSpec(mint);
    if (market) return this.oracle.price(market.symbol);
    if (mint === MINTS.USDC || mint === MINTS.USDT) return 1_000_000n;
    if (mint === MINTS.JLP) return this.lending.jlpPrice();
    throw invalidArgument(`no perps price for mint ${mint}`);
  }

  decimals(mint: string): number {
    const known = MINT_DECIMALS[mint];
    if (known === undefined) throw invalidArgument(`unknown mint ${mint}`);
    return known;
  }

  custody(mint: string): Custody {
    const custody = this.custodies.get(mint);
    if (!custody) throw invalidArgument(`no custody for mint ${mint}`);
    return custody;
  }

  /** Sets a market's oracle price now and lets the keeper react (triggers, liquidations). */
  setPrice(symbol: MarketSymbol, price: bigint): void {
    if (!marketBySymbol(symbol)) throw invalidArgument(`unknown market ${symbol}`);
    this.oracle.set(symbol, price);
    this.runTriggers(this.current);
  }

  /**
   * Moves the model to `nowMs`: price steps on the grid, pool utilisation, keeper requests in
   * due order, triggers and liquidations after each step, recurring cycles, the token universe.
   * The result does not depend on how often it is called.
   */
  advanceTo(nowMs: number): void {
    if (nowMs <= this.current) return;
    let next = (Math.floor(this.current / this.stepMs) + 1) * this.stepMs;
    while (next <= nowMs) {
      this.perps.runKeeper(next - 1);
      this.recurring.runCycles(next - 1);
      this.oracle.step(next);
      for (const custody of this.custodies.values()) custody.stepBackground(next);
      this.runTriggers(next);
      if (next % UNIVERSE_STEP_MS === 0) {
        this.tokens.advanceTo(next);
        this.studio.accrue();
      }
      this.current = next;
      next += this.stepMs;
    }
    this.perps.runKeeper(nowMs);
    this.recurring.runCycles(nowMs);
    this.current = nowMs;
  }

  /**
   * Applies a landed transaction's action. Throws MarketError when the program would fail the
   * transaction (insufficient funds, an order no longer open, an instant request refused).
   */
  land(action: VenueAction, meta: LandingMeta): void {
    this.advanceTo(meta.landedAtMs);
    const at = Math.max(meta.landedAtMs, this.current);
    switch (action.kind) {
      case 'perps.increase':
      case 'perps.decrease':
      case 'perps.createTpsl':
      case 'perps.updateTpsl':
      case 'perps.cancelTpsl':
        this.perps.land(action, { ...meta, landedAtMs: at });
        return;
      case 'perps.limitCreate':
      case 'perps.limitUpdate':
      case 'perps.limitCancel':
        this.limitOrders.land(action, at);
        return;
      case 'trigger.create':
      case 'trigger.cancel':
        this.triggers.land(action, meta.signature, at);
        return;
      case 'recurring.create':
      case 'recurring.cancel':
      case 'recurring.priceDeposit':
        this.recurring.land(action, meta.signature, at);
        this.recurring.runCycles(at);
        return;
      case 'lp.mint':
      case 'lending.depositBorrow':
        this.lending.land(action, at, (mint) => this.custody(mint));
        return;
      case 'studio.claimFee':
        this.studio.land(action);
        return;
      case 'ultra.swap':
        this.ultra.land(action);
        return;
    }
  }

  private runTriggers(atMs: number): void {
    runPriceTriggers(this.perps, atMs);
    this.limitOrders.runTriggers(atMs);
    this.triggers.runTriggers(atMs);
  }

  private swapPrice(mint: string): bigint | undefined {
    if (MINT_DECIMALS[mint] !== undefined) return this.price(mint) * (SWAP_PRICE_SCALE / 1_000_000n);
    const price = this.tokens.priceOf(mint);
    return price === null ? undefined : floatPriceToScaled(price);
  }
}


