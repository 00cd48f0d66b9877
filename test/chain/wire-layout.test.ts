import { AddressLookupTableAccount, Keypair, PublicKey, SystemProgram, TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { TransactionDecodeError } from '../../src/chain/decode.ts';
import { MAX_TRANSACTION_BYTES, readWireLayout, type WireLayout } from '../../src/chain/decode/wire-layout.ts';
import { needsShared, sharedDir, sharedJsonNames, sharedText } from '../support/shared-data.ts';
import { buildTx, computeBudget, randomKey } from './fixtures.ts';

/** What web3.js's deserialize reads from the same bytes, in the reader's terms. */
function web3Layout(bytes: Uint8Array): Omit<WireLayout, 'messageOffset'> {
  const tx = VersionedTransaction.deserialize(bytes);
  const m = tx.message;
  return {
    signed: tx.signatures.map((s) => s.some((b) => b !== 0)),
    message: {
      version: m.version as 'legacy' | 0,
      header: { ...m.header },
      staticAccountKeys: m.staticAccountKeys.map((k) => k.toBase58()),
      recentBlockhash: m.recentBlockhash,
      compiledInstructions: m.compiledInstructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accountKeyIndexes: [...ix.accountKeyIndexes], data: Uint8Array.from(ix.data) })),
      addressTableLookups: m.addressTableLookups.map((l) => ({ accountKey: l.accountKey.toBase58(), writableIndexes: [...l.writableIndexes], readonlyIndexes: [...l.readonlyIndexes] })),
    },
  };
}

function withoutOffset(layout: WireLayout): Omit<WireLayout, 'messageOffset'> {
  const { messageOffset: _offset, ...rest } = layout;
  return rest;
}

function lookupTable(key: PublicKey, addresses: PublicKey[]): AddressLookupTableAccount {
  return new AddressLookupTableAccount({ key, state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, authority: undefined, addresses } });
}

/** Transactions of every shape the reader meets: legacy and v0, one and two signers, lookups, empty data, a signed slot. */
function samples(): Uint8Array[] {
  const payer = Keypair.generate();
  const cosigner = Keypair.generate();
  const coSigned = new TransactionInstruction({ programId: randomKey(), keys: [{ pubkey: cosigner.publicKey, isSigner: true, isWritable: false }], data: Buffer.alloc(0) });
  const recipient = randomKey();
  const table = lookupTable(randomKey(), [randomKey(), recipient, randomKey()]);
  const big = new TransactionInstruction({ programId: randomKey(), keys: [], data: Buffer.alloc(300, 7) });
  const out: Uint8Array[] = [];
  for (const version of ['legacy', 0] as const) {
    out.push(buildTx({ payer: payer.publicKey, version, instructions: computeBudget() }).serialize());
    out.push(buildTx({ payer: payer.publicKey, version, instructions: [...computeBudget(), coSigned, big] }).serialize());
    const signed = buildTx({ payer: payer.publicKey, version, instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 5n })] });
    signed.sign([payer]);
    out.push(signed.serialize());
  }
  out.push(buildTx({ payer: payer.publicKey, version: 0, lookupTables: [table], instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 5n })] }).serialize());
  return out;
}

describe('the wire layout reader', () => {
  it('reads what web3.js reads, for legacy and v0, lookups, co-signers and signed slots', () => {
    for (const bytes of samples()) {
      const layout = readWireLayout(bytes);
      expect(withoutOffset(layout)).toEqual(web3Layout(bytes));
      expect(Buffer.from(bytes.subarray(layout.messageOffset)).equals(Buffer.from(VersionedTransaction.deserialize(bytes).message.serialize()))).toBe(true);
    }
  });

  it('refuses every truncation of a transaction, and a byte after it', () => {
    for (const bytes of samples()) {
      for (let cut = 0; cut < bytes.length; cut++) expect(() => readWireLayout(bytes.subarray(0, cut)), `cut at ${cut}`).toThrow(TransactionDecodeError);
      expect(() => readWireLayout(Buffer.concat([bytes, Buffer.from([0])]))).toThrow(/beyond one transaction/);
    }
  });

  it('refuses a length in a longer form than its shortest (web3.js reads it, and would sign other bytes than it serializes)', () => {
    const bytes = buildTx({ payer: Keypair.generate().publicKey, version: 'legacy', instructions: computeBudget() }).serialize();
    // The key count (after one signature slot and the 3-byte header), n written as n | 0x80, 0x00.
    const keyCountAt = 1 + 64 + 3;
    const keys = bytes[keyCountAt]!;
    const longKeys = Buffer.concat([bytes.subarray(0, keyCountAt), Buffer.from([keys | 0x80, 0x00]), bytes.subarray(keyCountAt + 1)]);
    expect(VersionedTransaction.deserialize(longKeys).message.staticAccountKeys.length).toBe(keys);
    expect(() => readWireLayout(longKeys)).toThrow(/account key count at byte 68 is not in its shortest form/);
  });

  it('refuses a signature count that is not the header’s, a version above 0, and more than a packet', () => {
    const bytes = Buffer.from(buildTx({ payer: Keypair.generate().publicKey, version: 0, instructions: computeBudget() }).serialize());
    const twoSlots = Buffer.concat([Buffer.from([2]), bytes.subarray(1, 65), Buffer.alloc(64), bytes.subarray(65)]);
    expect(() => readWireLayout(twoSlots)).toThrow(/2 signature slots but its message requires 1/);
    const v1 = Buffer.from(bytes);
    v1[65] = 0x81;
    expect(() => readWireLayout(v1)).toThrow(/version 1 is not supported/);
    expect(() => readWireLayout(Buffer.concat([Buffer.from([0x81]), bytes]))).toThrow(/version 1 is not supported/);
    const tooLong = Buffer.concat([bytes, Buffer.alloc(MAX_TRANSACTION_BYTES)]);
    expect(() => readWireLayout(tooLong)).toThrow(/at most 1232/);
  });

  it('answers a new object each read: a reader cannot change what another reads', () => {
    const bytes = samples()[1]!;
    const first = readWireLayout(bytes);
    first.message.compiledInstructions[0]!.data[0] = 99;
    first.message.staticAccountKeys.pop();
    expect(withoutOffset(readWireLayout(bytes))).toEqual(web3Layout(bytes));
  });
});

describe(`the wire layout reader on the transactions the service's docs publish ${needsShared('fixtures')}`, () => {
  const dirs = ['api-bodies', 'api-bodies-more'].map((d) => sharedDir('fixtures', d)).filter((d): d is string => d !== undefined);
  it.skipIf(dirs.length === 0)('reads every whole published transaction as web3.js does, and refuses what web3.js cannot read', () => {
    let read = 0;
    for (const dir of dirs) {
      for (const name of sharedJsonNames(dir)) {
        const texts = [...sharedText(dir, name).matchAll(/"(?:transaction|swapTransaction)"\s*:\s*"([^"]+)"/g)].map((m) => m[1]!);
        for (const text of texts) {
          if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) continue; // elided in the docs ("AQAA......")
          const bytes = Buffer.from(text, 'base64');
          let reference: Omit<WireLayout, 'messageOffset'> | undefined;
          try {
            const tx = VersionedTransaction.deserialize(bytes);
            // The old rule: what web3.js reads must serialize back to exactly the bytes.
            if (Buffer.from(tx.serialize()).equals(bytes) && (tx.message.version === 'legacy' || tx.message.version === 0)) reference = web3Layout(bytes);
          } catch {
            reference = undefined;
          }
          if (reference) {
            expect(withoutOffset(readWireLayout(bytes)), name).toEqual(reference);
            read++;
          } else {
            expect(() => readWireLayout(bytes), name).toThrow(TransactionDecodeError);
          }
        }
      }
    }
    expect(read).toBeGreaterThan(0);
  });
});
