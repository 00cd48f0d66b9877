import { MINTS } from '../../api/mints.ts';
import { businessError, invalidArgument } from './errors.ts';
import { derivedRequestId } from './keys.ts';
import type { BalanceLedger } from './ledger.ts';
import { quoteSwap, type SwapQuote, type TokenPricing } from './swap-pricing.ts';

export interface UltraSwapAction {
  readonly kind: 'ultra.swap';
  readonly requestId: string;
  readonly taker: string;
  readonly inputMint: string;
  readonly outputMint: string;
  readonly inAmount: bigint;
  /** The quoted out amount. */
  readonly outAmount: bigint;
  /** The least out the transaction accepts (the order's otherAmountThreshold): below it the swap fails. */
  readonly minOutAmount: bigint;
}

/** Most swap fills kept for execute replies; a long paper run must not keep them all. */
const MAX_FILLS = 50_000;

interface UltraQuote {
  readonly requestId: string;
  readonly quote: SwapQuote;
  /** Set when the taker cannot pay: the order carries no transaction (api-facts 3, errorCode 1). */
  readonly insufficientFunds: boolean;
}

/** Ultra swap orders: quotes at market prices, executed as one swap when the signed tx lands. */
export class UltraOrders {
  private counter = 0;
  /** Out amounts of landed swaps, by request id: what the execute reply reports. */
  private readonly fills = new Map<string, bigint>();

  constructor(
    private readonly pricing: TokenPricing,
    private readonly ledger: BalanceLedger,
  ) {}

  /** Keys handed out so far; a resumed venue (src/venue/venue-state.ts) continues after them, so none is issued twice. */
  get issued(): number {
    return this.counter;
  }

  continueAfter(issued: number): void {
    this.counter = Math.max(this.counter, issued);
  }

  quote(inputMint: string, outputMint: string, amount: bigint, taker: string | undefined): UltraQuote | undefined {
    if (inputMint === outputMint) throw invalidArgument('inputMint and outputMint must differ');
    if (amount <= 0n) throw invalidArgument('amount must be above zero');
    const quote = quoteSwap(this.pricing, inputMint, outputMint, amount, [MINTS.USDC, MINTS.USDT]);
    if (!quote || quote.outAmount <= 0n) return undefined;
    this.counter++;
    const requestId = derivedRequestId('ultra-order', inputMint, outputMint, amount, taker ?? '', this.counter);
    const insufficientFunds = taker !== undefined && this.ledger.balanceOf(taker, inputMint) < amount;
    return { requestId, quote, insufficientFunds };
  }

  /**
   * A swap fills at the venue's price when it lands, not the quote's: the route pays what the
   * market gives now, and the transaction fails (Jupiter v6's 6001, "slippage tolerance
   * exceeded") when that is below the order's threshold. Nothing moves on a failure.
   */
  land(action: UltraSwapAction): void {
    const now = quoteSwap(this.pricing, action.inputMint, action.outputMint, action.inAmount, [MINTS.USDC, MINTS.USDT]);
    const out = now?.outAmount ?? 0n;
    if (out < action.minOutAmount) {
      throw businessError('slippage_tolerance_exceeded', `Slippage tolerance exceeded: the swap pays ${out.toString()}, the transaction accepts at least ${action.minOutAmount.toString()}`);
    }
    this.ledger.debit(action.taker, action.inputMint, action.inAmount);
    this.ledger.credit(action.taker, action.outputMint, out);
    if (this.fills.size >= MAX_FILLS) this.fills.delete(this.fills.keys().next().value as string);
    this.fills.set(action.requestId, out);
  }

  /** The out amount a landed swap paid, if this venue landed it. */
  filledOut(requestId: string): bigint | undefined {
    return this.fills.get(requestId);
  }
}
