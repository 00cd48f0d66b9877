import { MINTS } from '../../api/mints.ts';
import type { Side } from '../../api/schemas/common.ts';
import { marketSpec, MAX_TPSL_PER_POSITION, type PerpsMarketSpec } from './assets.ts';
import type { Custody } from './custody.ts';
import { businessError, invalidArgument, MarketError } from './errors.ts';
import { perpsPositionRequestAddress } from '../../chain/programs/perps/addresses.ts';
import type { LandingMeta, PerpsAction, TpslSpec } from './perps-actions.ts';
import { allowedReceiveMints, fillDecrease, fillIncrease, type FillEnv } from './perps-fills.ts';
import { quoteDecrease, quoteIncrease, type DecreaseQuote, type IncreaseQuote } from './perps-quotes.ts';
import { collateralMintFor, isOpen, positionAddress, valuePosition, type Position } from './positions.ts';
import { BPS } from './units.ts';

export interface PerpsSettings {
  keeperDelayMs: number;
  maxRequestExecutionSec: number;
}

interface PerpsEnv extends FillEnv {
  custody(mint: string): Custody;
  readonly settings: PerpsSettings;
}

type IncreaseAction = Extract<PerpsAction, { kind: 'perps.increase' }>;
type DecreaseAction = Extract<PerpsAction, { kind: 'perps.decrease' }>;

export interface TpslState extends TpslSpec {
  readonly owner: string;
  readonly positionPubkey: string;
  readonly createdMs: number;
  triggerPrice: bigint;
  status: 'active' | 'executed' | 'cancelled';
}

/** A landed market request waiting for the keeper (api-facts 5, request and keeper flow). */
export interface PendingMarketRequest {
  readonly seq: number;
  readonly action: IncreaseAction | DecreaseAction;
  readonly signature: string;
  readonly landedAtMs: number;
  readonly dueMs: number;
  readonly feeLamports: bigint;
}

/** What the keeper has queued and how many requests it numbered (request addresses derive from the count). */
interface KeeperState {
  readonly seq: number;
  readonly requestCounter: number;
  readonly pending: readonly PendingMarketRequest[];
}

interface RequestOutcome {
  readonly requestPubkey: string;
  readonly kind: PerpsAction['kind'];
  readonly signature: string;
  readonly status: 'executed' | 'rejected';
  readonly reason: string | null;
  readonly atMs: number;
}

/**
 * Positions, TP/SL requests and the keeper queue of the perps product. Planning (quotes at build
 * time) never changes state; landing and the keeper do.
 */
export class PerpsBook {
  readonly positions = new Map<string, Position>();
  readonly tpsl = new Map<string, TpslState>();
  readonly outcomes: RequestOutcome[] = [];
  private pending: PendingMarketRequest[] = [];
  private seq = 0;
  private requestCounter = 0;

  constructor(readonly env: PerpsEnv) {}

  pendingRequests(): readonly PendingMarketRequest[] {
    return this.pending;
  }

  /** The keeper queue and the id counters: a resumed venue (src/venue/venue-state.ts) carries them on. */
  keeperState(): KeeperState {
    return { seq: this.seq, requestCounter: this.requestCounter, pending: [...this.pending] };
  }

  resumeKeeper(state: KeeperState): void {
    this.seq = Math.max(this.seq, state.seq);
    this.requestCounter = Math.max(this.requestCounter, state.requestCounter);
    this.pending = [...this.pending, ...state.pending];
  }

  /** The stored position, or a fresh empty one (not stored until something fills). */
  positionFor(owner: string, market: PerpsMarketSpec, side: Side, collateralMint: string): Position {
    const custody = this.env.custody(collateralMint);
    const pubkey = positionAddress(owner, market, side, custody.address);
    return this.positions.get(pubkey) ?? {
      pubkey,
      owner,
      market,
      side,
      collateralMint,
      collateralCustody: custody,
      sizeUsd: 0n,
      collateralUsd: 0n,
      entryPrice: 0n,
      lockedTokens: 0n,
      interestSnapshot: 0n,
      openFeesUsd: 0n,
      borrowFeesPaidUsd: 0n,
      realisedPnlUsd: 0n,
      openedMs: 0,
      updatedMs: 0,
    };
  }

  openPosition(pubkey: string): Position {
    const position = this.positions.get(pubkey);
    if (!position || !isOpen(position)) throw businessError('invalid_position', `position ${pubkey} does not exist or is closed`);
    return position;
  }

  positionsOf(owner: string, includeClosed: boolean): Position[] {
    return [...this.positions.values()].filter((p) => p.owner === owner && (includeClosed || isOpen(p)));
  }

  /**
   * A new position request, derived as the program derives it (position, counter, kind of change):
   * the pubkey the API reports is the account the instruction creates.
   */
  nextRequest(positionPubkey: string, change: 'increase' | 'decrease'): { pubkey: string; counter: bigint } {
    this.requestCounter++;
    const counter = BigInt(this.requestCounter);
    return { pubkey: perpsPositionRequestAddress(positionPubkey, counter, change), counter };
  }

  quoteIncreaseFor(position: Position, inputMint: string, inputAmount: bigint, size: { sizeUsdDelta?: bigint; leverageBps?: bigint }, nowMs: number): IncreaseQuote {
    const quote = quoteIncrease({
      position,
      inputMint,
      inputAmount,
      inputPrice: this.env.price(inputMint),
      inputDecimals: this.env.decimals(inputMint),
      collateralPrice: this.env.price(position.collateralMint),
      collateralDecimals: this.env.decimals(position.collateralMint),
      markPrice: this.env.price(position.market.mint),
      sizeUsdDelta: size.sizeUsdDelta,
      leverageBps: size.leverageBps,
      nowMs,
    });
    if (quote.lockedTokensDelta > position.collateralCustody.available()) {
      throw businessError('custody_amount_limit', `the ${position.collateralCustody.symbol} custody cannot lock that much`);
    }
    return quote;
  }

  quoteDecreaseFor(position: Position, a: Pick<DecreaseAction, 'sizeUsdDelta' | 'collateralUsdDelta' | 'entirePosition' | 'integratorFeeUsd'>, nowMs: number): DecreaseQuote {
    return quoteDecrease({
      position,
      markPrice: this.env.price(position.market.mint),
      sizeUsdDelta: a.sizeUsdDelta,
      collateralUsdDelta: a.collateralUsdDelta,
      entirePosition: a.entirePosition,
      integratorFeeUsd: a.integratorFeeUsd,
      nowMs,
    });
  }

  checkReceiveMint(position: Position, mint: string): void {
    if (!allowedReceiveMints(position).includes(mint)) {
      throw invalidArgument(`receiveToken must be the position's asset (${position.market.symbol}) or USDC`);
    }
  }

  /** Checks TP/SL trigger prices against the mark and the liquidation price (422 invalid_tp/sl_price). */
  checkTpsl(position: Position, requestType: 'tp' | 'sl', triggerPrice: bigint, markPrice: bigint, liquidation: bigint, desiredMint: string): void {
    if (desiredMint !== position.market.mint && desiredMint !== MINTS.USDC) {
      throw invalidArgument(`desiredMint must be the position's asset (${position.market.symbol}) or USDC`);
    }
    const long = position.side === 'long';
    if (requestType === 'tp') {
      const ok = long ? triggerPrice > markPrice : triggerPrice < markPrice && triggerPrice > 0n;
      if (!ok) throw businessError('invalid_tp_price', `a take-profit of a ${position.side} must trigger ${long ? 'above' : 'below'} the mark price ${markPrice.toString()}`);
    } else {
      const ok = long
        ? triggerPrice < markPrice && triggerPrice > liquidation
        : triggerPrice > markPrice && (liquidation === 0n || triggerPrice < liquidation);
      if (!ok) throw businessError('invalid_sl_price', `a stop-loss of a ${position.side} must trigger between the mark price and the liquidation price`);
    }
  }

  activeTpslOf(positionPubkey: string): TpslState[] {
    return [...this.tpsl.values()].filter((t) => t.positionPubkey === positionPubkey && t.status === 'active');
  }

  checkTpslRoom(positionPubkey: string, adding: number): void {
    if (this.activeTpslOf(positionPubkey).length + adding > MAX_TPSL_PER_POSITION) {
      throw businessError('maximum_tpsl_requests_exceeded', `a position holds at most ${String(MAX_TPSL_PER_POSITION)} TP/SL requests`);
    }
  }

  /** Applies a landed perps transaction. Throws MarketError when the program would fail it. */
  land(action: PerpsAction, meta: LandingMeta): void {
    switch (action.kind) {
      case 'perps.increase':
      case 'perps.decrease': {
        if (action.kind === 'perps.increase') this.env.ledger.debit(action.owner, action.inputMint, action.inputAmount);
        const request: PendingMarketRequest = {
          seq: this.seq++,
          action,
          signature: meta.signature,
          landedAtMs: meta.landedAtMs,
          dueMs: meta.landedAtMs + (meta.transactionType === 'instant' ? 0 : this.env.settings.keeperDelayMs),
          feeLamports: meta.feeLamports,
        };
        if (meta.transactionType === 'instant') {
          // The keeper co-signed: the request executes in the same transaction or the tx fails.
          const failure = this.execute(request, meta.landedAtMs);
          if (failure) throw failure;
          return;
        }
        this.pending.push(request);
        return;
      }
      case 'perps.createTpsl': {
        const position = this.openPosition(action.positionPubkey);
        this.checkTpslRoom(position.pubkey, action.items.length);
        if ((action.integratorFeeUsd ?? 0n) > 0n) this.env.ledger.debit(action.owner, MINTS.USDC, action.integratorFeeUsd ?? 0n);
        for (const item of action.items) {
          this.tpsl.set(item.requestPubkey, { ...item, owner: action.owner, positionPubkey: position.pubkey, createdMs: meta.landedAtMs, status: 'active' });
        }
        return;
      }
      case 'perps.updateTpsl': {
        const request = this.tpsl.get(action.requestPubkey);
        if (!request || request.status !== 'active') throw businessError('invalid_position_request', `TP/SL request ${action.requestPubkey} is not active`);
        if (action.integratorFeeUsd > 0n) this.env.ledger.debit(action.owner, MINTS.USDC, action.integratorFeeUsd);
        request.triggerPrice = action.triggerPrice;
        return;
      }
      case 'perps.cancelTpsl': {
        const request = this.tpsl.get(action.requestPubkey);
        if (!request || request.status !== 'active') throw businessError('invalid_position_request', `TP/SL request ${action.requestPubkey} is not active`);
        if (action.integratorFeeUsd > 0n) this.env.ledger.debit(action.owner, MINTS.USDC, action.integratorFeeUsd);
        request.status = 'cancelled';
        return;
      }
    }
  }

  /** Runs every keeper request due at or before `uptoMs`, in order. */
  runKeeper(uptoMs: number): void {
    if (this.pending.length === 0) return;
    const due = this.pending.filter((r) => r.dueMs <= uptoMs).sort((a, b) => a.dueMs - b.dueMs || a.seq - b.seq);
    if (due.length === 0) return;
    this.pending = this.pending.filter((r) => r.dueMs > uptoMs);
    for (const request of due) this.execute(request, request.dueMs);
  }

  /** Executes one market request; a refusal refunds the escrow and is returned, not thrown. */
  private execute(request: PendingMarketRequest, atMs: number): MarketError | undefined {
    const { action } = request;
    try {
      const ageMs = atMs - request.landedAtMs;
      if (ageMs > this.env.settings.maxRequestExecutionSec * 1000) {
        throw businessError('stale_request', `request is ${String(ageMs)} ms old, over maxRequestExecutionSec ${String(this.env.settings.maxRequestExecutionSec)}`);
      }
      const mark = this.env.price(this.marketOf(action).mint);
      this.checkSlippage(action, mark);
      const meta = { atMs, orderType: 'Market' as const, txHash: request.signature, feeLamports: request.feeLamports, positionRequestPubkey: action.requestPubkey };
      if (action.kind === 'perps.increase') {
        const position = this.positionFor(action.owner, this.marketOf(action), action.side, action.collateralMint);
        const quote = this.quoteIncreaseFor(position, action.inputMint, action.inputAmount, action, atMs);
        this.positions.set(position.pubkey, position);
        fillIncrease(this.env, position, quote, meta);
        for (const item of action.tpsl) {
          this.tpsl.set(item.requestPubkey, { ...item, owner: action.owner, positionPubkey: position.pubkey, createdMs: atMs, status: 'active' });
        }
      } else {
        const position = this.openPosition(action.positionPubkey);
        const quote = this.quoteDecreaseFor(position, action, atMs);
        fillDecrease(this.env, position, quote, action.receiveMint, meta);
        if (quote.closesPosition) this.cancelTpslOf(position.pubkey);
      }
      this.record({ requestPubkey: action.requestPubkey, kind: action.kind, signature: request.signature, status: 'executed', reason: null, atMs });
      return undefined;
    } catch (error) {
      if (!(error instanceof MarketError)) throw error;
      if (action.kind === 'perps.increase') this.env.ledger.credit(action.owner, action.inputMint, action.inputAmount);
      this.record({ requestPubkey: action.requestPubkey, kind: action.kind, signature: request.signature, status: 'rejected', reason: `${error.code}: ${error.message}`, atMs });
      return error;
    }
  }

  /** Keeps the latest outcomes (the control API shows them); a long run must stay bounded. */
  private record(outcome: RequestOutcome): void {
    this.outcomes.push(outcome);
    if (this.outcomes.length > 20_000) this.outcomes.splice(0, 10_000);
  }

  cancelTpslOf(positionPubkey: string): void {
    for (const t of this.activeTpslOf(positionPubkey)) t.status = 'cancelled';
  }

  private marketOf(action: IncreaseAction | DecreaseAction): PerpsMarketSpec {
    const mint = action.kind === 'perps.increase' ? action.marketMint : this.openPosition(action.positionPubkey).market.mint;
    const market = marketSpec(mint);
    if (!market) throw invalidArgument(`unknown market ${mint}`);
    return market;
  }

  /** The keeper refuses a fill whose price moved against the request by more than maxSlippageBps. */
  private checkSlippage(action: IncreaseAction | DecreaseAction, mark: bigint): void {
    const side = action.kind === 'perps.increase' ? action.side : this.openPosition(action.positionPubkey).side;
    const buying = (action.kind === 'perps.increase') === (side === 'long');
    const limit = buying
      ? (action.quotedPrice * (BPS + action.maxSlippageBps)) / BPS
      : (action.quotedPrice * (BPS - action.maxSlippageBps)) / BPS;
    const ok = buying ? mark <= limit : mark >= limit;
    if (!ok) {
      throw businessError('simulation_error', `price ${mark.toString()} moved beyond maxSlippageBps ${action.maxSlippageBps.toString()} of the quoted ${action.quotedPrice.toString()}`);
    }
  }

  /** The mark, borrow and liquidation figures of a position at `nowMs`. */
  valuation(position: Position, nowMs: number) {
    return valuePosition(position, this.env.price(position.market.mint), nowMs);
  }

  defaultCollateral(market: PerpsMarketSpec, side: Side): string {
    return collateralMintFor(market, side);
  }
}
