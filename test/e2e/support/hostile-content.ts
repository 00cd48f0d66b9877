import { PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { PROGRAMS } from '../../../src/chain/programs.ts';
import { HOSTILE_APPROVE_AMOUNT, HOSTILE_LAMPORTS, HOSTILE_TOKEN_AMOUNT, UNKNOWN_PROGRAM_ID, type HostileKind } from '../../../src/venue/tx/hostile.ts';

const SYSTEM_TRANSFER = 2;
const SYSTEM_ADVANCE_NONCE = 4;
const SPL_TRANSFER = 3;
const SPL_APPROVE = 4;
// The perps decreases whose priceSlippage (u64 LE) follows collateralUsdDelta and sizeUsdDelta:
// createDecreasePositionMarketRequest and instantDecreasePosition (discriminators from the IDL).
const DECREASES_WITH_PRICE_AT_24 = new Set(['4ac6c356c163014f', '2e17f02c1e8a5e8c']);
const ANY_PRICE = new Set([0n, 0xffff_ffff_ffff_ffffn]);

/**
 * Which tampering a built transaction carries, read from its bytes with web3.js alone (not with
 * the policy under test): the hostile fee payer, the unknown program, a nonce advance, or the
 * drain instruction with the venue's exact hostile amount, or a decrease that accepts any price. Every kind found is listed; an honest build gives [].
 */
export function hostileContentOf(unsignedTxBase64: string, wallet: PublicKey): HostileKind[] {
  const tx = VersionedTransaction.deserialize(Buffer.from(unsignedTxBase64, 'base64'));
  // The venue's builds use no lookup tables, so the static keys are all the keys.
  const message = TransactionMessage.decompile(tx.message);
  const found: HostileKind[] = [];
  if (!message.payerKey.equals(wallet)) found.push('fee_payer');
  for (const ix of message.instructions) {
    const program = ix.programId.toBase58();
    if (ix.programId.equals(UNKNOWN_PROGRAM_ID)) found.push('unknown_program');
    if (ix.programId.equals(SystemProgram.programId) && ix.data.length === 12 && ix.data.readUInt32LE(0) === SYSTEM_TRANSFER && ix.data.readBigUInt64LE(4) === HOSTILE_LAMPORTS) {
      found.push('sol_transfer');
    }
    if (ix.programId.equals(SystemProgram.programId) && ix.data.length === 4 && ix.data.readUInt32LE(0) === SYSTEM_ADVANCE_NONCE) found.push('durable_nonce');
    if (program === PROGRAMS.perps && ix.data.length >= 32 && DECREASES_WITH_PRICE_AT_24.has(ix.data.subarray(0, 8).toString('hex')) && ANY_PRICE.has(ix.data.readBigUInt64LE(24))) {
      found.push('price_slippage');
    }
    if (program === PROGRAMS.token && ix.data.length === 9) {
      const amount = ix.data.readBigUInt64LE(1);
      if (ix.data[0] === SPL_TRANSFER && amount === HOSTILE_TOKEN_AMOUNT) found.push('token_transfer');
      if (ix.data[0] === SPL_APPROVE && amount === HOSTILE_APPROVE_AMOUNT) found.push('token_approve');
    }
  }
  return found;
}

/** True when no signature slot of the serialized transaction holds a signature. */
export function carriesNoSignature(txBase64: string): boolean {
  const tx = VersionedTransaction.deserialize(Buffer.from(txBase64, 'base64'));
  return tx.signatures.every((signature) => signature.every((byte) => byte === 0));
}
