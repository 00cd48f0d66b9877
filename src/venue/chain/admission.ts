import { VersionedTransaction, type PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import type { BlockhashInfo } from './blockhashes.ts';
import { verifyEd25519 } from './ed25519.ts';
import { ChainRejection } from './rejection.ts';

/** Largest transaction a validator accepts (PACKET_DATA_SIZE). */
const MAX_TRANSACTION_BYTES = 1232;

export interface DecodedTransaction {
  readonly transaction: VersionedTransaction;
  /** The serialized message: what every signature signs. */
  readonly messageBytes: Uint8Array;
  /** The signers the message requires, fee payer first. */
  readonly requiredSigners: readonly PublicKey[];
}

/** The compact-u16 signature count at the start of a transaction and its encoded size. */
function shortVecLength(raw: Uint8Array): { value: number; size: number } | undefined {
  let value = 0;
  for (let size = 0; size < 3 && size < raw.length; size += 1) {
    const byte = raw[size] ?? 0;
    value |= (byte & 0x7f) << (7 * size);
    if ((byte & 0x80) === 0) return { value, size: size + 1 };
  }
  return undefined;
}

/**
 * Parses wire bytes into a transaction the chain can reason about. Signatures are checked
 * against the message bytes as received (as a validator's sigverify does), so a message
 * re-encoded or padded after signing fails verification, and byte-identity checks against
 * the message the venue built compare exactly what was signed.
 */
export function decodeTransaction(raw: Uint8Array): DecodedTransaction {
  if (raw.length > MAX_TRANSACTION_BYTES) {
    throw new ChainRejection('malformed', `transaction too large: ${String(raw.length)} bytes (max: ${String(MAX_TRANSACTION_BYTES)})`);
  }
  let transaction: VersionedTransaction;
  try {
    transaction = VersionedTransaction.deserialize(raw);
  } catch (cause) {
    throw new ChainRejection('malformed', `failed to deserialize VersionedTransaction: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  const signatureCount = shortVecLength(raw);
  const messageStart = signatureCount === undefined ? raw.length : signatureCount.size + 64 * signatureCount.value;
  if (messageStart >= raw.length) throw new ChainRejection('malformed', 'transaction has no message after its signatures');
  // A copy: the caller may reuse its buffer, and landed records keep these bytes.
  const messageBytes = raw.slice(messageStart);
  if (transaction.message.addressTableLookups.length > 0) {
    // The venue builds without lookup tables and keeps none (AddressLookupTableNotFound).
    throw new ChainRejection('malformed', 'transaction uses address lookup tables, which the venue chain does not hold');
  }
  const keys = transaction.message.staticAccountKeys;
  const count = transaction.message.header.numRequiredSignatures;
  if (count < 1 || keys.length < count || transaction.signatures.length !== count) {
    throw new ChainRejection('malformed', 'transaction header and signatures disagree on the number of signers');
  }
  return { transaction, messageBytes, requiredSigners: keys.slice(0, count) };
}

function isEmpty(signature: Uint8Array): boolean {
  return signature.every((byte) => byte === 0);
}

/** Index of `signer` among the required signers, or -1. */
export function signerIndex(decoded: DecodedTransaction, signer: PublicKey): number {
  return decoded.requiredSigners.findIndex((key) => key.equals(signer));
}

export function isSignatureSlotEmpty(decoded: DecodedTransaction, index: number): boolean {
  const signature = decoded.transaction.signatures[index];
  return signature === undefined || isEmpty(signature);
}

/** Checks every required signature against the message; throws on the first that fails. */
export function verifySignatures(decoded: DecodedTransaction): void {
  decoded.requiredSigners.forEach((signer, index) => {
    const signature = decoded.transaction.signatures[index];
    if (signature === undefined || isEmpty(signature)) {
      throw new ChainRejection('missing_signature', `Transaction signature verification failure: missing signature for ${signer.toBase58()}`);
    }
    if (!verifyEd25519(decoded.messageBytes, signature, signer.toBytes())) {
      throw new ChainRejection('signature_invalid', `Transaction signature verification failure: invalid signature for ${signer.toBase58()}`);
    }
  });
}

/** The transaction id: base58 of the fee payer's signature. */
export function transactionSignature(decoded: DecodedTransaction): string {
  const first = decoded.transaction.signatures[0];
  return first === undefined ? '' : bs58.encode(first);
}

/** The blockhash must be one this chain issued, and the block height not past its last valid one. */
export function checkBlockhash(decoded: DecodedTransaction, info: BlockhashInfo | undefined, blockHeight: number): void {
  const blockhash = decoded.transaction.message.recentBlockhash;
  if (!info) throw new ChainRejection('blockhash_not_found', `Transaction simulation failed: Blockhash not found (${blockhash} is unknown to this chain)`);
  if (blockHeight > info.lastValidBlockHeight) {
    throw new ChainRejection(
      'blockhash_expired',
      `Transaction simulation failed: Blockhash not found (${blockhash} expired: block height ${String(blockHeight)} > last valid block height ${String(info.lastValidBlockHeight)})`,
    );
  }
}

/** Every invoked program must exist on the chain. */
export function checkPrograms(decoded: DecodedTransaction, programs: ReadonlySet<string>): void {
  const keys = decoded.transaction.message.staticAccountKeys;
  for (const ix of decoded.transaction.message.compiledInstructions) {
    const program = keys[ix.programIdIndex]?.toBase58() ?? '';
    if (!programs.has(program)) {
      throw new ChainRejection('program_not_found', `Transaction simulation failed: Attempt to load a program that does not exist (${program})`);
    }
  }
}
