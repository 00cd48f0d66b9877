import type { ActionRecord } from '../../records/action-record.ts';

/**
 * What a product's execute reply proves (the post itself: routed-submitter.ts). A reply is never
 * the landing proof (the chain's status of the action's signature is); it can only prove that
 * nothing was sent, and only where the product documents it.
 */

/** What an execute reply says about the action. */
export interface ExecuteReply {
  /** For the ledger: a reply that settles nothing (Failed, "failed to land", another signature). */
  readonly detail?: string;
  /** The service proves it sent nothing: the action ends rejected with this reason. */
  readonly unsent?: { readonly reason: string; readonly detail: string };
  /** A swap's amounts as its Success reply gives them (raw integer strings): for the spot cost basis, not proof of landing. */
  readonly swapFill?: { readonly inAmount: string; readonly outAmount: string };
}

/**
 * How long after our first post a repeat of the same Ultra execute is still the same swap: the
 * service keeps an order for 2 minutes (api-facts 2.2), counted from its receipt, which follows
 * our `submitStartedAtMs`. The margin covers a receipt delayed by the network.
 */
export const ULTRA_REPEAT_WINDOW_MS = 110_000;

/**
 * Ultra's execute codes that prove the service did not send the transaction (api-facts 3): a
 * request it could not take (-1 … -5), a transaction it refused before sending (-1002 invalid,
 * -1003 not fully signed, -1004 invalid block height, -1007 gasless not supported), an RFQ it
 * never settled (-2002 invalid payload, -2003 quote expired, -2004 swap rejected). Not -1000
 * "failed to land", -1001 unknown, -1005 expired, -1006 timed out, -2000/-2001/-2005: those may
 * follow a send, and the chain settles them; a positive code is a program error of a landed
 * transaction, which the chain shows as failed.
 */
export const ULTRA_UNSENT_CODES: Readonly<Record<number, string>> = {
  [-1]: 'the order is missing or expired',
  [-2]: 'the signed transaction is invalid',
  [-3]: 'the message was modified',
  [-4]: 'the requestId is missing',
  [-5]: 'the signed transaction is missing',
  [-1002]: 'the transaction is invalid',
  [-1003]: 'the transaction is not fully signed',
  [-1004]: 'the block height is invalid',
  [-1007]: 'gasless is not supported for this wallet',
  [-2002]: 'the RFQ payload is invalid',
  [-2003]: 'the RFQ quote expired',
  [-2004]: 'the RFQ swap was rejected',
};

/** Whether an action whose bytes may already have been posted can be posted again as the same operation. */
export function repeatsSafely(r: Pick<ActionRecord, 'route' | 'submitStartedAtMs'>, nowMs: number): boolean {
  return r.route === 'ultra-execute' && r.submitStartedAtMs !== undefined && nowMs - r.submitStartedAtMs < ULTRA_REPEAT_WINDOW_MS;
}
