import { Keypair, PublicKey, TransactionMessage, type TransactionInstruction, type VersionedTransaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { ChainRejection } from '../../src/venue/chain/rejection.ts';
import { buildRequestTransaction, fromBase64, toBase64, TransactionBuildError } from '../../src/venue/tx/builder.ts';
import { HOSTILE_KINDS, type HostileKind } from '../../src/venue/tx/hostile.ts';
import { requestIdOf } from '../../src/venue/tx/request-instruction.ts';
import { serializedMessage } from '../../src/venue/tx/v0-message.ts';
import { frozenChain, signedBytes } from './fixtures.ts';

const payer = Keypair.generate().publicKey;
const pool = new PublicKey('5BUwFW4nRbftYTDMbgxykoFWqWHPzahFSNAaaaJtVKsq');
const foreign = Keypair.generate().publicKey;
const blockhash = 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N';

function instructionsOf(tx: VersionedTransaction): TransactionInstruction[] {
  return TransactionMessage.decompile(tx.message).instructions;
}

function build(hostile?: HostileKind): VersionedTransaction {
  return buildRequestTransaction({ payer, product: 'perps', requestId: 'req-hostile', blockhash, accounts: [pool], hostile, foreign });
}

/** The associated token account, derived here rather than with the code under test. */
function ata(owner: PublicKey, mint: string): PublicKey {
  return PublicKey.findProgramAddressSync(
    [owner.toBuffer(), new PublicKey(PROGRAMS.token).toBuffer(), new PublicKey(mint).toBuffer()],
    new PublicKey(PROGRAMS.associatedToken),
  )[0];
}

describe('venue-built request transactions', () => {
  it('are v0, paid by the caller, with compute budget and one instruction of the product program naming the request', () => {
    const tx = buildRequestTransaction({
      payer,
      product: 'perps',
      requestId: 'req-42',
      blockhash,
      accounts: [pool],
      computeUnitLimit: 250_000,
      computeUnitPriceMicroLamports: 12_345n,
    });
    expect(tx.version).toBe(0);
    expect(tx.message.staticAccountKeys[0]?.equals(payer)).toBe(true);
    expect(tx.message.header.numRequiredSignatures).toBe(1);
    expect(tx.message.recentBlockhash).toBe(blockhash);
    const [limit, price, request, ...rest] = instructionsOf(tx);
    expect(rest).toHaveLength(0);
    expect(limit?.programId.toBase58()).toBe(PROGRAMS.computeBudget);
    expect(limit?.data[0]).toBe(2);
    expect(limit?.data.readUInt32LE(1)).toBe(250_000);
    expect(price?.data[0]).toBe(3);
    expect(price?.data.readBigUInt64LE(1)).toBe(12_345n);
    expect(request?.programId.toBase58()).toBe(PROGRAMS.perps);
    expect(request?.data.subarray(8).toString('utf8')).toBe('req-42');
    expect(request?.keys[0]).toMatchObject({ isSigner: true, isWritable: true });
    expect(request?.keys[0]?.pubkey.equals(payer)).toBe(true);
    expect(request?.keys[1]).toMatchObject({ isSigner: false, isWritable: true });
    expect(request?.keys[1]?.pubkey.equals(pool)).toBe(true);
    expect(requestIdOf(tx)).toBe('req-42');
    expect(fromBase64(toBase64(tx)).message.serialize()).toEqual(tx.message.serialize());
  });

  it('use each product’s live program id', () => {
    const expected = { perps: PROGRAMS.perps, trigger: PROGRAMS.trigger, recurring: PROGRAMS.recurring, ultra: PROGRAMS.aggregator, studio: PROGRAMS.dbc } as const;
    for (const [product, program] of Object.entries(expected)) {
      const tx = buildRequestTransaction({ payer, product: product as keyof typeof expected, requestId: `r-${product}`, blockhash });
      expect(instructionsOf(tx)[2]?.programId.toBase58()).toBe(program);
    }
    expect(() => buildRequestTransaction({ payer, product: 'tokens', requestId: 'x', blockhash })).toThrow(TransactionBuildError);
    expect(() => buildRequestTransaction({ payer, product: 'perps', requestId: 'x'.repeat(129), blockhash })).toThrow(TransactionBuildError);
  });

  it('compile to exactly the bytes web3.js compiles, and serialize like web3.js', () => {
    const keeper = Keypair.generate().publicKey;
    const shapes = [undefined, ...HOSTILE_KINDS].flatMap((hostile) => [
      { hostile, keeperSigner: undefined, accounts: [pool] },
      { hostile, keeperSigner: keeper, accounts: [pool, payer, Keypair.generate().publicKey, pool] },
    ]);
    for (const shape of shapes) {
      const tx = buildRequestTransaction({ payer, product: 'perps', requestId: 'req-bytes', blockhash, foreign, ...shape });
      const reference = new TransactionMessage({
        payerKey: tx.message.staticAccountKeys[0] ?? payer,
        recentBlockhash: blockhash,
        instructions: instructionsOf(tx),
      }).compileToV0Message();
      expect(Buffer.from(serializedMessage(tx.message)).toString('hex')).toBe(Buffer.from(reference.serialize()).toString('hex'));
      expect(Buffer.from(tx.message.serialize()).toString('hex')).toBe(Buffer.from(reference.serialize()).toString('hex'));
      expect(toBase64(tx)).toBe(Buffer.from(tx.serialize()).toString('base64'));
    }
  });

  it('make the keeper a second required signer for instant transactions', () => {
    const keeper = Keypair.generate().publicKey;
    const tx = buildRequestTransaction({ payer, product: 'perps', requestId: 'r-instant', blockhash, keeperSigner: keeper });
    expect(tx.message.header.numRequiredSignatures).toBe(2);
    expect(tx.message.staticAccountKeys[1]?.equals(keeper)).toBe(true);
    expect(tx.message.isAccountWritable(1)).toBe(false);
  });
});

describe('hostile variants really carry the hostile instruction', () => {
  it('covers every kind', () => {
    // price_slippage adds no instruction: it changes a perps request's argument (test/e2e/safety-hostile-venue.test.ts).
    expect([...HOSTILE_KINDS].sort()).toEqual(['durable_nonce', 'fee_payer', 'price_slippage', 'sol_transfer', 'token_approve', 'token_transfer', 'unknown_program']);
    expect(instructionsOf(build())).toHaveLength(3);
  });

  it('sol_transfer: a System transfer from the payer to a foreign account', () => {
    const extra = instructionsOf(build('sol_transfer'))[3];
    expect(extra?.programId.toBase58()).toBe(PROGRAMS.system);
    expect(extra?.data.readUInt32LE(0)).toBe(2);
    expect(extra?.data.readBigUInt64LE(4)).toBe(1_000_000_000n);
    expect(extra?.keys[0]?.pubkey.equals(payer)).toBe(true);
    expect(extra?.keys[0]?.isSigner).toBe(true);
    expect(extra?.keys[1]?.pubkey.equals(foreign)).toBe(true);
  });

  it('token_transfer: an SPL Transfer from the payer’s USDC account to a foreign one', () => {
    const extra = instructionsOf(build('token_transfer'))[3];
    expect(extra?.programId.toBase58()).toBe(PROGRAMS.token);
    expect(extra?.data.length).toBe(9);
    expect(extra?.data[0]).toBe(3);
    expect(extra?.data.readBigUInt64LE(1)).toBe(1_000_000_000n);
    expect(extra?.keys.map((k) => k.pubkey.toBase58())).toEqual([ata(payer, MINTS.USDC).toBase58(), ata(foreign, MINTS.USDC).toBase58(), payer.toBase58()]);
    expect(extra?.keys.map((k) => [k.isSigner, k.isWritable])).toEqual([[false, true], [false, true], [true, true]]);
  });

  it('token_approve: an SPL Approve delegating the payer’s USDC account to a foreign key', () => {
    const extra = instructionsOf(build('token_approve'))[3];
    expect(extra?.programId.toBase58()).toBe(PROGRAMS.token);
    expect(extra?.data[0]).toBe(4);
    expect(extra?.data.readBigUInt64LE(1)).toBe(0xffff_ffff_ffff_ffffn);
    expect(extra?.keys[0]?.pubkey.equals(ata(payer, MINTS.USDC))).toBe(true);
    expect(extra?.keys[1]?.pubkey.equals(foreign)).toBe(true);
    expect(extra?.keys[2]?.pubkey.equals(payer)).toBe(true);
  });

  it('durable_nonce: advanceNonceAccount first, with the payer as nonce authority', () => {
    const first = instructionsOf(build('durable_nonce'))[0];
    expect(first?.programId.toBase58()).toBe(PROGRAMS.system);
    expect(first?.data.readUInt32LE(0)).toBe(4);
    expect(first?.keys[2]?.pubkey.equals(payer)).toBe(true);
    expect(first?.keys[2]?.isSigner).toBe(true);
    expect(instructionsOf(build('durable_nonce'))).toHaveLength(4);
  });

  it('fee_payer: someone else pays, the caller still signs', () => {
    const tx = build('fee_payer');
    expect(tx.message.staticAccountKeys[0]?.equals(foreign)).toBe(true);
    expect(tx.message.header.numRequiredSignatures).toBe(2);
    expect(tx.message.staticAccountKeys[1]?.equals(payer)).toBe(true);
    expect(instructionsOf(tx)).toHaveLength(3);
  });

  it('unknown_program: an instruction of a program outside every allow-list, which the chain refuses', () => {
    const known = new Set<string>(Object.values(PROGRAMS));
    const extra = instructionsOf(build('unknown_program'))[3];
    expect(extra).toBeDefined();
    expect(known.has(extra?.programId.toBase58() ?? '')).toBe(false);

    const { chain } = frozenChain();
    const user = Keypair.generate();
    const tx = buildRequestTransaction({ payer: user.publicKey, product: 'perps', requestId: 'r-unknown', blockhash: chain.latestBlockhash().blockhash, hostile: 'unknown_program' });
    expect(() => chain.submit(signedBytes(tx, user), { via: 'rpc' })).toThrow(expect.objectContaining({ kind: 'program_not_found' }) as ChainRejection);
    expect(chain.landed()).toHaveLength(0);
  });
});
