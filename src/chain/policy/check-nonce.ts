import type { DecodedTransaction } from '../decode.ts';
import type { Violation } from './verdict.ts';

/**
 * System instructions that work on nonce accounts (indexes 4–7 and 12 of the System program).
 * `advanceNonceAccount` turns a transaction into a durable one that never expires; the others
 * have no place in a trade either.
 */
const NONCE_INSTRUCTIONS: ReadonlySet<string> = new Set([
  'advanceNonceAccount',
  'withdrawNonceAccount',
  'initializeNonceAccount',
  'authorizeNonceAccount',
  'upgradeNonceAccount',
]);

/**
 * Rule durable_nonce: no nonce instruction anywhere. A transaction without one can land only while
 * its blockhash is recent, which is what makes the executor's proof of expiry (block height past
 * lastValidBlockHeight) and its reading of a refused execute as "never lands" true. A durable
 * transaction could land any time later, after a retry already executed: double execution.
 */
export function checkNonce(decoded: DecodedTransaction): Violation[] {
  const violations: Violation[] = [];
  for (const ix of decoded.instructions) {
    const parsed = ix.parsed;
    if (parsed?.program !== 'system' || !NONCE_INSTRUCTIONS.has(parsed.type)) continue;
    const nonce = 'nonceAccount' in parsed ? ` on nonce account ${parsed.nonceAccount}` : '';
    violations.push({
      rule: 'durable_nonce',
      detail: `instruction ${ix.index}: System ${parsed.type}${nonce}; a durable-nonce transaction never expires, so its expiry could not be proven`,
    });
  }
  return violations;
}
