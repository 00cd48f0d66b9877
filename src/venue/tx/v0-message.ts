import { MessageV0, PublicKey, type TransactionInstruction, type VersionedMessage, type VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';

/**
 * A direct v0 message compiler and serializer. web3.js's compileToV0Message and serialize
 * spend ~250 µs per transaction (base58 round trips, generic layouts); the venue builds one
 * transaction per write request and must serve thousands per second. The output is the
 * same message web3.js compiles (the builder test compares the bytes).
 */

// Wire bytes of messages this module compiled; messages are not mutated after building.
const wireCache = new WeakMap<VersionedMessage, Uint8Array>();

function shortVec(n: number): number[] {
  const out: number[] = [];
  let rest = n;
  for (;;) {
    let byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(byte);
      return out;
    }
    byte |= 0x80;
    out.push(byte);
  }
}

/** A map key for a public key: its raw bytes as text (base58 encoding dominated a build). */
function keyId(key: PublicKey): string {
  return key.toBuffer().toString('latin1');
}

interface KeyMeta {
  key: PublicKey;
  signer: boolean;
  writable: boolean;
}

/** Keys in the runtime's order: payer, writable signers, readonly signers, writable, readonly. */
function orderedKeys(payer: PublicKey, instructions: readonly TransactionInstruction[]): KeyMeta[] {
  const metas = new Map<string, KeyMeta>();
  const note = (key: PublicKey, signer: boolean, writable: boolean): void => {
    const id = keyId(key);
    const meta = metas.get(id);
    if (meta) {
      meta.signer ||= signer;
      meta.writable ||= writable;
    } else {
      metas.set(id, { key, signer, writable });
    }
  };
  note(payer, true, true);
  for (const ix of instructions) {
    // Program first, then its accounts: the insertion order web3.js compiles with.
    note(ix.programId, false, false);
    for (const account of ix.keys) note(account.pubkey, account.isSigner, account.isWritable);
  }
  const all = [...metas.values()];
  const group = (signer: boolean, writable: boolean): KeyMeta[] => all.filter((m) => m.signer === signer && m.writable === writable && m.key !== payer);
  return [all[0] as KeyMeta, ...group(true, true), ...group(true, false), ...group(false, true), ...group(false, false)];
}

/** Compiles `instructions` into a v0 message without lookup tables. */
export function compileV0Message(payer: PublicKey, recentBlockhash: string, instructions: readonly TransactionInstruction[]): MessageV0 {
  const keys = orderedKeys(payer, instructions);
  const index = new Map(keys.map((meta, i) => [keyId(meta.key), i]));
  const indexOf = (key: PublicKey): number => index.get(keyId(key)) ?? -1;
  const compiledInstructions = instructions.map((ix) => ({
    programIdIndex: indexOf(ix.programId),
    accountKeyIndexes: ix.keys.map((account) => indexOf(account.pubkey)),
    data: new Uint8Array(ix.data),
  }));
  const signers = keys.filter((m) => m.signer);
  const header = {
    numRequiredSignatures: signers.length,
    numReadonlySignedAccounts: signers.filter((m) => !m.writable).length,
    numReadonlyUnsignedAccounts: keys.filter((m) => !m.signer && !m.writable).length,
  };
  const message = new MessageV0({
    header,
    staticAccountKeys: keys.map((m) => m.key),
    recentBlockhash,
    compiledInstructions,
    addressTableLookups: [],
  });
  const parts: Uint8Array[] = [
    Uint8Array.from([0x80, header.numRequiredSignatures, header.numReadonlySignedAccounts, header.numReadonlyUnsignedAccounts, ...shortVec(keys.length)]),
    ...keys.map((m) => m.key.toBytes()),
    bs58.decode(recentBlockhash),
    Uint8Array.from(shortVec(compiledInstructions.length)),
  ];
  for (const ix of compiledInstructions) {
    parts.push(Uint8Array.from([ix.programIdIndex, ...shortVec(ix.accountKeyIndexes.length), ...ix.accountKeyIndexes, ...shortVec(ix.data.length)]), ix.data);
  }
  parts.push(Uint8Array.from(shortVec(0)));
  wireCache.set(message, Buffer.concat(parts));
  return message;
}

/** The message's wire bytes (cached for messages compiled here). */
export function serializedMessage(message: VersionedMessage): Uint8Array {
  return wireCache.get(message) ?? message.serialize();
}

/** The transaction's wire bytes: signature count, signatures, message. */
export function serializedTransaction(tx: VersionedTransaction): Uint8Array {
  return Buffer.concat([Uint8Array.from(shortVec(tx.signatures.length)), ...tx.signatures, serializedMessage(tx.message)]);
}
