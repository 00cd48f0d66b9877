import { toBigInt } from '../../../api/amounts.ts';
import { MINTS } from '../../../api/mints.ts';
import { MINT_OF_SYMBOL } from '../../market/assets.ts';
import { ratioString } from '../../market/units.ts';
import type { Handler } from '../services.ts';
import { addLiquidityInstruction, depositBorrowInstructions } from '../../tx/perps-instructions.ts';
import { issuePerps, requireBalance } from './issue.ts';

/** LP-token mint (spec 4.6, always legacy) and deposit-borrow (spec 4.3). */

export const perpsLpMint: Handler<'perps.lpMint'> = (req, ctx) => {
  const { market } = ctx.services;
  const depositMint = MINT_OF_SYMBOL[req.depositToken] as string;
  const amount = toBigInt(req.depositTokenAmount);
  const quote = market.lending.quoteMint(depositMint, amount, market.decimals(depositMint));
  requireBalance(ctx, req.walletAddress, depositMint, amount);
  const issued = issuePerps(ctx, {
    wallet: req.walletAddress,
    transactionType: 'legacy',
    action: { kind: 'lp.mint', owner: req.walletAddress, depositMint, depositAmount: amount, mintAmount: quote.mintAmount },
    // The least JLP accepted: the quote less 1 % (the live service's bound is not documented).
    instructions: [addLiquidityInstruction(req.walletAddress, market.custody(depositMint).address, depositMint, amount, (quote.mintAmount * 99n) / 100n)],
    accountRentLamports: 2_039_280n,
  });
  return {
    mintFeeBps: quote.feeBps.toString(),
    mintFeePercent: ratioString(quote.feeBps, 100n, 2),
    mintTokenAmount: quote.mintAmount.toString(),
    serializedTxBase64: issued.base64,
    transactionType: 'legacy',
    txMetadata: issued.txMetadata,
  };
};

export const perpsDepositBorrow: Handler<'perps.depositBorrow'> = (req, ctx) => {
  const { market } = ctx.services;
  const deposit = toBigInt(req.depositTokenAmount);
  const borrow = toBigInt(req.borrowTokenAmount);
  const quote = market.lending.quoteDepositBorrow(req.walletAddress, deposit, borrow, ctx.nowMs);
  requireBalance(ctx, req.walletAddress, MINTS.JLP, deposit);
  const issued = issuePerps(ctx, {
    wallet: req.walletAddress,
    transactionType: 'legacy',
    action: { kind: 'lending.depositBorrow', owner: req.walletAddress, depositJlp: deposit, borrowUsdc: borrow },
    instructions: depositBorrowInstructions(req.walletAddress, quote.positionPubkey, deposit, borrow),
    accountRentLamports: market.lending.positions.has(quote.positionPubkey) ? 0n : 2_039_280n,
  });
  const text = (v: bigint) => v.toString();
  return {
    borrowSizeUsd: text(quote.borrowSizeUsd),
    borrowSizeTokenAmount: text(quote.borrowSizeTokenAmount),
    borrowTokenMint: quote.borrowTokenMint,
    collateralTokenAmount: text(quote.collateralTokenAmount),
    collateralTokenUsd: text(quote.collateralTokenUsd),
    maxBorrowTokenAmount: text(quote.maxBorrowTokenAmount),
    maxBorrowTokenAmountBeforeBorrow: text(quote.maxBorrowTokenAmountBeforeBorrow),
    maxBorrowUsd: text(quote.maxBorrowUsd),
    maxWithdrawUsd: text(quote.maxWithdrawUsd),
    maxWithdrawTokenAmount: text(quote.maxWithdrawTokenAmount),
    maxRepayTokenAmount: text(quote.maxRepayTokenAmount),
    liquidationPriceUsd: text(quote.liquidationPriceUsd),
    ltvBps: text(quote.ltvBps),
    ltvPercentage: quote.ltvPercentage,
    positionPubkey: quote.positionPubkey,
    serializedTxBase64: issued.base64,
    requireKeeperSignature: false,
    transactionType: 'legacy',
    txMetadata: issued.txMetadata,
  };
};
