import type { Product } from '../../../api/operation.ts';
import { businessError } from '../../market/errors.ts';
import type { VenueAction } from '../../market/market.ts';
import type { HandlerContext } from '../services.ts';
import type { IssuedTransaction, IssueRequest } from '../tx-issuer.ts';

interface IssueArgs {
  readonly wallet: string;
  readonly transactionType: 'legacy' | 'instant';
  readonly action: VenueAction;
  readonly accounts?: readonly string[];
  readonly accountRentLamports?: bigint;
  readonly priorityFeeMicroLamports?: bigint;
  readonly requestId?: string;
  readonly discriminator?: IssueRequest['discriminator'];
  readonly instructions?: IssueRequest['instructions'];
}

/** Builds and registers the transaction of the current operation (hostile when that fault is set). */
export function issueFor(ctx: HandlerContext, product: Exclude<Product, 'tokens'>, args: IssueArgs): IssuedTransaction {
  return ctx.services.issuer.issue({
    ...args,
    operationId: ctx.operationId,
    product,
    hostile: ctx.services.faults.hostileFor(ctx.operationId),
    staleBlockhash: ctx.services.faults.staleBlockhashFor(ctx.operationId),
    nowMs: ctx.nowMs,
  });
}

export function issuePerps(ctx: HandlerContext, args: IssueArgs): IssuedTransaction {
  return issueFor(ctx, 'perps', args);
}

/** Refuses a build the wallet cannot pay for (perps 422 insufficient_funds). */
export function requireBalance(ctx: HandlerContext, wallet: string, mint: string, amount: bigint): void {
  const balance = ctx.services.market.ledger.balanceOf(wallet, mint);
  if (balance < amount) {
    throw businessError('insufficient_funds', `wallet holds ${balance.toString()} of ${mint}, needs ${amount.toString()}`, {
      mint,
      balance: balance.toString(),
      required: amount.toString(),
    });
  }
}
