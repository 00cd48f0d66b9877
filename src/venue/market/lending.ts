import { MINTS } from '../../api/mints.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import type { Custody } from './custody.ts';
import { businessError, invalidArgument } from './errors.ts';
import { programAddress, pubkeyBytes } from './keys.ts';
import type { BalanceLedger } from './ledger.ts';
import { BPS, divCeil, percentString, pow10, RATE_POWER, tokenToUsd, usdToToken } from './units.ts';

const JLP_DECIMALS = 6;
/** Borrowing against JLP: up to 75% LTV, liquidated at 85%. */
const MAX_LTV_BPS = 7_500n;
const LIQUIDATION_LTV_BPS = 8_500n;
const MINT_FEE_BPS: Readonly<Record<string, bigint>> = { [MINTS.SOL]: 10n, [MINTS.ETH]: 10n, [MINTS.BTC]: 10n, [MINTS.USDC]: 5n };

interface LendingPosition {
  readonly pubkey: string;
  readonly owner: string;
  collateralJlp: bigint;
  /** Borrowed USDC including interest at the last settlement. */
  borrowed: bigint;
  interestSnapshot: bigint;
  updatedMs: number;
}

export type LendingAction =
  | { readonly kind: 'lp.mint'; readonly owner: string; readonly depositMint: string; readonly depositAmount: bigint; readonly mintAmount: bigint }
  | { readonly kind: 'lending.depositBorrow'; readonly owner: string; readonly depositJlp: bigint; readonly borrowUsdc: bigint };

/**
 * The LP token (JLP) and borrowing against it. JLP's price is the pool's assets under
 * management over its supply; minting adds the deposit to its custody and the minted tokens to
 * the supply. A deposit-borrow locks JLP and lends USDC at the USDC custody's borrow rate.
 */
export class Lending {
  supply: bigint;
  readonly positions = new Map<string, LendingPosition>();

  constructor(
    private readonly custodies: () => readonly Custody[],
    private readonly price: (mint: string) => bigint,
    private readonly ledger: BalanceLedger,
    private readonly usdcCustody: () => Custody,
  ) {
    // Start at about 4 USD per JLP.
    this.supply = (this.aumUsd() * pow10(JLP_DECIMALS)) / 4_000_000n;
  }

  aumUsd(): bigint {
    let total = 0n;
    for (const c of this.custodies()) total += tokenToUsd(c.owned, c.decimals, this.price(c.mint));
    return total;
  }

  /** USD x 10^6 per whole JLP. */
  jlpPrice(): bigint {
    if (this.supply <= 0n) return 1_000_000n;
    return (this.aumUsd() * pow10(JLP_DECIMALS)) / this.supply;
  }

  quoteMint(depositMint: string, depositAmount: bigint, decimals: number) {
    const feeBps = MINT_FEE_BPS[depositMint];
    if (feeBps === undefined) throw invalidArgument(`cannot mint JLP from ${depositMint}`);
    if (depositAmount <= 0n) throw invalidArgument('depositTokenAmount must be above zero');
    const depositUsd = tokenToUsd(depositAmount, decimals, this.price(depositMint));
    const afterFee = (depositUsd * (BPS - feeBps)) / BPS;
    const mintAmount = usdToToken(afterFee, JLP_DECIMALS, this.jlpPrice());
    if (mintAmount <= 0n) throw businessError('trade_size_below_minimum', 'the deposit is too small to mint any JLP');
    return { feeBps, mintAmount };
  }

  positionAddress(owner: string): string {
    return programAddress(PROGRAMS.perps, ['borrow_position', pubkeyBytes(owner), pubkeyBytes(MINTS.JLP)]);
  }

  /** Settled borrow of a position at `nowMs` (interest from the USDC custody's rate). */
  borrowedAt(position: LendingPosition, nowMs: number): bigint {
    const cumulative = this.usdcCustody().cumulativeInterestAt(nowMs);
    const delta = cumulative - position.interestSnapshot;
    return position.borrowed + (delta > 0n ? divCeil(delta * position.borrowed, RATE_POWER) : 0n);
  }

  /** The summary of spec 2.4 after depositing `depositJlp` and borrowing `borrowUsdc`. */
  quoteDepositBorrow(owner: string, depositJlp: bigint, borrowUsdc: bigint, nowMs: number) {
    const existing = this.positions.get(this.positionAddress(owner));
    const collateral = (existing?.collateralJlp ?? 0n) + depositJlp;
    const borrowedBefore = existing ? this.borrowedAt(existing, nowMs) : 0n;
    const price = this.jlpPrice();
    const collateralUsd = tokenToUsd(collateral, JLP_DECIMALS, price);
    const maxBorrowUsd = (collateralUsd * MAX_LTV_BPS) / BPS;
    const borrowed = borrowedBefore + borrowUsdc;
    if (collateral <= 0n) throw invalidArgument('depositTokenAmount must be above zero when no JLP is deposited yet');
    if (borrowed > maxBorrowUsd) {
      throw businessError('borrow_exceeds_margin_limits', `borrowing ${borrowed.toString()} exceeds the limit ${maxBorrowUsd.toString()} (USDC x 10^6)`);
    }
    const lockedUsd = (borrowed * BPS) / MAX_LTV_BPS;
    const maxWithdrawUsd = collateralUsd > lockedUsd ? collateralUsd - lockedUsd : 0n;
    return {
      borrowSizeUsd: borrowed,
      borrowSizeTokenAmount: borrowed,
      borrowTokenMint: MINTS.USDC,
      collateralTokenAmount: collateral,
      collateralTokenUsd: collateralUsd,
      maxBorrowTokenAmount: maxBorrowUsd - borrowed,
      maxBorrowTokenAmountBeforeBorrow: maxBorrowUsd > borrowedBefore ? maxBorrowUsd - borrowedBefore : 0n,
      maxBorrowUsd,
      maxWithdrawUsd,
      maxWithdrawTokenAmount: usdToToken(maxWithdrawUsd, JLP_DECIMALS, price),
      maxRepayTokenAmount: borrowed,
      liquidationPriceUsd: collateral > 0n ? (borrowed * BPS * pow10(JLP_DECIMALS)) / (LIQUIDATION_LTV_BPS * collateral) : 0n,
      ltvBps: collateralUsd > 0n ? (borrowed * BPS) / collateralUsd : 0n,
      ltvPercentage: percentString(borrowed, collateralUsd),
      positionPubkey: this.positionAddress(owner),
    };
  }

  land(action: LendingAction, nowMs: number, custodyOf: (mint: string) => Custody): void {
    if (action.kind === 'lp.mint') {
      this.ledger.debit(action.owner, action.depositMint, action.depositAmount);
      custodyOf(action.depositMint).owned += action.depositAmount;
      this.supply += action.mintAmount;
      this.ledger.credit(action.owner, MINTS.JLP, action.mintAmount);
      return;
    }
    const quote = this.quoteDepositBorrow(action.owner, action.depositJlp, action.borrowUsdc, nowMs);
    if (action.depositJlp > 0n) this.ledger.debit(action.owner, MINTS.JLP, action.depositJlp);
    if (action.borrowUsdc > 0n) this.ledger.credit(action.owner, MINTS.USDC, action.borrowUsdc);
    this.positions.set(quote.positionPubkey, {
      pubkey: quote.positionPubkey,
      owner: action.owner,
      collateralJlp: quote.collateralTokenAmount,
      borrowed: quote.borrowSizeUsd,
      interestSnapshot: this.usdcCustody().cumulativeInterestAt(nowMs),
      updatedMs: nowMs,
    });
  }
}
