import { createHash } from 'node:crypto';
import type { VersionedTransaction } from '@solana/web3.js';

/** SHA-256 (hex) of a transaction's message bytes: what the policy's verdict is bound to. */
export function messageSha256(tx: VersionedTransaction): string {
  return createHash('sha256').update(tx.message.serialize()).digest('hex');
}
