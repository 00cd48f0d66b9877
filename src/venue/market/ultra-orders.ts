import { MINTS } from '../../api/mints.ts';
import { invalidArgument } from './errors.ts';
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
  readonly outAmount: bigint;
}

export interface UltraQuote {
  readonly requestId: string;
  readonly quote: SwapQuote;
  /** Set when the taker cannot pay: the order carries no transaction (api-facts 3, errorCode 1). */
  readonly insufficientFunds: boolean;
}

/** Ultra swap orders: quotes at market prices, executed as one swap when the signed tx lands. */
export class UltraOrders {
  private counter = 0;

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

  land(action: UltraSwapAction): void {
    this.ledger.debit(action.taker, action.inputMint, action.inAmount);
    this.ledger.credit(action.taker, action.outputMint, action.outAmount);
  }
}
