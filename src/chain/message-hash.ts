import { createHash } from 'node:crypto';
import type { VersionedMessage, VersionedTransaction } from '@solana/web3.js';

/** SHA-256 (hex) of a transaction's message bytes: what the policy's verdict is bound to. */
export function messageSha256(tx: VersionedTransaction): string {
  return messageBytesSha256(tx.message);
}

/** The same, of a message: the decoder, the policy and the signer all bind to this one digest. */
function messageBytesSha256(message: VersionedMessage): string {
  return createHash('sha256').update(message.serialize()).digest('hex');
}
