import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressLookupTableProgram, Connection, Keypair, PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import {
  decodeTransaction,
  LookupTableUnavailable,
  readTransaction,
  rpcLookupTableResolver,
  staticLookupTableResolver,
  TransactionDecodeError,
} from '../../src/chain/decode.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { ata, buildTx, computeBudget, lookupTable, lookupTableAccountData, productInstruction, randomKey, spl, toBase64 } from './fixtures.ts';

const wallet = Keypair.generate().publicKey;
const usdc = new PublicKey(MINTS.USDC);

describe('decodeTransaction', () => {
  for (const version of ['legacy', 0] as const) {
    it(`decodes a ${version} transaction into plain JSON with every known program parsed`, async () => {
      const recipient = randomKey();
      const tx = buildTx({
        payer: wallet,
        version,
        instructions: [
          ...computeBudget(250_000, 123_456_789n),
          SystemProgram.transfer({ fromPubkey: wallet, toPubkey: recipient, lamports: 42n }),
          spl.createAta(wallet, wallet, usdc),
          spl.transferChecked(ata(wallet, usdc), usdc, ata(recipient, usdc), wallet, 18_446_744_073_709_551_615n, 6),
          spl.memo('hello'),
          productInstruction(PROGRAMS.perps, wallet),
        ],
      });
      const decoded = await decodeTransaction(toBase64(tx));
      const json = JSON.parse(JSON.stringify(decoded)) as typeof decoded;

      expect(json.version).toBe(version);
      expect(json.feePayer).toBe(wallet.toBase58());
      expect(json.signers).toEqual([{ index: 0, pubkey: wallet.toBase58(), signed: false, writable: true }]);
      expect(json.messageSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(json.computeBudget).toMatchObject({ unitLimit: 250_000, unitPriceMicroLamports: '123456789' });
      expect(json.problems).toEqual([]);
      const parsed = json.instructions.map((ix) => ix.parsed);
      expect(parsed[2]).toEqual({ program: 'system', type: 'transfer', from: wallet.toBase58(), to: recipient.toBase58(), lamports: '42' });
      expect(parsed[3]).toMatchObject({ program: 'associatedToken', type: 'createIdempotent', owner: wallet.toBase58(), mint: MINTS.USDC });
      // u64 max survives exactly: amounts never pass through a float.
      expect(parsed[4]).toMatchObject({ program: 'token', type: 'transferChecked', amount: '18446744073709551615', decimals: 6 });
      expect(parsed[5]).toEqual({ program: 'memo', type: 'memo', text: 'hello' });
      expect(json.instructions[6]).toMatchObject({ programId: PROGRAMS.perps, programName: 'perps' });
      // Perps instructions decode through their IDL layout: accounts by role, arguments by name.
      expect(json.instructions[6]?.parsed).toMatchObject({ program: 'perps', type: 'createIncreasePositionMarketRequest', accounts: { owner: wallet.toBase58() }, args: { side: 'long', counter: '3' } });
      const recipientAccount = json.accounts.find((a) => a.pubkey === recipient.toBase58());
      expect(recipientAccount).toMatchObject({ signer: false, writable: true, source: 'static' });
      const perps = json.accounts.find((a) => a.pubkey === PROGRAMS.perps);
      expect(perps).toMatchObject({ signer: false, writable: false });
    });
  }

  it('reports a present signature, and a known-program instruction that does not decode', async () => {
    const signer = Keypair.generate();
    const tx = buildTx({
      payer: signer.publicKey,
      version: 0,
      instructions: [spl.transfer(ata(signer.publicKey, usdc), randomKey(), signer.publicKey, 5n)],
    });
    // Truncate the token transfer's amount to 3 bytes.
    const ix = tx.message.compiledInstructions[0];
    if (!ix) throw new Error('fixture has no instruction');
    ix.data = ix.data.subarray(0, 4);
    tx.sign([signer]);
    const decoded = await decodeTransaction(tx);
    expect(decoded.signers[0]?.signed).toBe(true);
    expect(decoded.instructions[0]?.parsed).toBeUndefined();
    expect(decoded.instructions[0]?.parseError).toMatch(/amount: needs 8 bytes/);
  });

  it('refuses bytes that are not exactly one transaction', () => {
    const good = toBase64(buildTx({ payer: wallet, version: 0, instructions: computeBudget() }));
    expect(() => readTransaction('not base64 at all!')).toThrow(TransactionDecodeError);
    expect(() => readTransaction('')).toThrow(/empty/);
    expect(() => readTransaction(Buffer.from([1, 2, 3]).toString('base64'))).toThrow(TransactionDecodeError);
    const withTrailing = Buffer.concat([Buffer.from(good, 'base64'), Buffer.from([0, 0, 0])]).toString('base64');
    expect(() => readTransaction(withTrailing)).toThrow(/beyond one transaction/);
    expect(() => readTransaction(good)).not.toThrow();
    // Each read of the same text is its own: changing one parse changes no other.
    const [first, second] = [readTransaction(good), readTransaction(good)];
    expect(first.message).not.toBe(second.message);
    const original = second.message.recentBlockhash;
    first.message.recentBlockhash = randomKey().toBase58();
    expect(second.message.recentBlockhash).toBe(original);
    expect(readTransaction(good).message.recentBlockhash).toBe(original);
    expect(() => readTransaction(withTrailing)).toThrow(/beyond one transaction/);
  });
});

describe('address lookup tables', () => {
  const tableKey = randomKey();
  const recipient = randomKey();
  const pool = randomKey();
  const table = lookupTable(tableKey, [randomKey(), recipient, pool]);
  const tx = buildTx({
    payer: wallet,
    version: 0,
    lookupTables: [table],
    instructions: [
      ...computeBudget(),
      SystemProgram.transfer({ fromPubkey: wallet, toPubkey: recipient, lamports: 7n }),
      new TransactionInstruction({
        programId: new PublicKey(PROGRAMS.perps),
        keys: [
          { pubkey: wallet, isSigner: true, isWritable: true },
          { pubkey: pool, isSigner: false, isWritable: false },
        ],
        data: Buffer.from([1]),
      }),
    ],
  });

  it('is what the fixture says: the recipient and the pool come from the table', () => {
    expect(tx.message.addressTableLookups).toHaveLength(1);
    expect(tx.message.staticAccountKeys.map((k) => k.toBase58())).not.toContain(recipient.toBase58());
  });

  it('resolves accounts through the injected resolver, writable ones first', async () => {
    const decoded = await decodeTransaction(tx, { resolveLookupTable: staticLookupTableResolver([table]) });
    expect(decoded.unresolved).toEqual([]);
    const loaded = decoded.accounts.filter((a) => a.source === 'lookup');
    expect(loaded).toEqual([
      expect.objectContaining({ pubkey: recipient.toBase58(), writable: true, lookupTable: tableKey.toBase58(), lookupIndex: 1 }),
      expect.objectContaining({ pubkey: pool.toBase58(), writable: false, lookupIndex: 2 }),
    ]);
    expect(decoded.instructions[2]?.parsed).toMatchObject({ type: 'transfer', to: recipient.toBase58(), lamports: '7' });
  });

  it('reports a table it cannot resolve, and leaves those accounts unknown', async () => {
    const missing = await decodeTransaction(tx, { resolveLookupTable: staticLookupTableResolver([]) });
    expect(missing.unresolved).toEqual([expect.objectContaining({ table: tableKey.toBase58(), reason: 'not_found' })]);
    expect(missing.accounts.filter((a) => a.source === 'lookup').map((a) => a.pubkey)).toEqual([null, null]);
    expect(missing.instructions[2]?.parsed).toBeUndefined();

    const none = await decodeTransaction(tx);
    expect(none.unresolved[0]?.reason).toBe('no_resolver');

    const short = await decodeTransaction(tx, { resolveLookupTable: staticLookupTableResolver([lookupTable(tableKey, [randomKey()])]) });
    expect(short.unresolved.map((u) => u.reason)).toContain('index_out_of_range');

    // An RPC that does not answer proves nothing either way: the decoder says so by throwing, and
    // the caller looks again later (the executor) or reports the fault (tx inspect).
    const failing = decodeTransaction(tx, {
      resolveLookupTable: async () => {
        throw new Error('rpc down');
      },
    });
    await expect(failing).rejects.toBeInstanceOf(LookupTableUnavailable);
    await expect(failing).rejects.toThrow(/rpc down/);
  });

  describe('through a JSON-RPC server', () => {
    let server: Server;
    let url = '';
    const accounts = new Map<string, { owner: string; data: Buffer }>();

    beforeAll(async () => {
      accounts.set(tableKey.toBase58(), { owner: AddressLookupTableProgram.programId.toBase58(), data: lookupTableAccountData(table.state.addresses) });
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        req.on('end', () => {
          const call = JSON.parse(body) as { id: number; method: string; params: [string] };
          const account = call.method === 'getAccountInfo' ? accounts.get(call.params[0]) : undefined;
          const value = account
            ? { data: [account.data.toString('base64'), 'base64'], executable: false, lamports: 1_000_000, owner: account.owner, rentEpoch: 0, space: account.data.length }
            : null;
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { context: { slot: 100 }, value } }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('resolves a table the RPC holds', async () => {
      const decoded = await decodeTransaction(tx, { resolveLookupTable: rpcLookupTableResolver(new Connection(url)) });
      expect(decoded.unresolved).toEqual([]);
      expect(decoded.accounts.filter((a) => a.source === 'lookup').map((a) => a.pubkey)).toEqual([recipient.toBase58(), pool.toBase58()]);
    });

    it('refuses an account that the lookup table program does not own', async () => {
      accounts.set(tableKey.toBase58(), { owner: PROGRAMS.system, data: lookupTableAccountData(table.state.addresses) });
      const decoded = await decodeTransaction(tx, { resolveLookupTable: rpcLookupTableResolver(new Connection(url)) });
      expect(decoded.unresolved[0]).toMatchObject({ reason: 'unprovable', detail: expect.stringContaining('not the lookup table program') });
      accounts.set(tableKey.toBase58(), { owner: AddressLookupTableProgram.programId.toBase58(), data: lookupTableAccountData(table.state.addresses) });
    });

    // The RPC answers for slot 100: a deactivated table proves nothing, for good.
    for (const [name, slots, kind] of [['deactivated', { deactivationSlot: 90n }, 'deactivated']] as const) {
      it(`refuses a table ${name}`, async () => {
        accounts.set(tableKey.toBase58(), { owner: AddressLookupTableProgram.programId.toBase58(), data: lookupTableAccountData(table.state.addresses, slots) });
        try {
          const decoded = await decodeTransaction(tx, { resolveLookupTable: rpcLookupTableResolver(new Connection(url)) });
          expect(decoded.unresolved[0]).toMatchObject({ reason: 'unprovable', detail: expect.stringContaining(kind) });
          expect(decoded.accounts.filter((a) => a.source === 'lookup').every((a) => a.pubkey === null)).toBe(true);
        } finally {
          accounts.set(tableKey.toBase58(), { owner: AddressLookupTableProgram.programId.toBase58(), data: lookupTableAccountData(table.state.addresses) });
        }
      });
    }

    // A table extended in that slot (or after it) is provable a slot later: not a verdict yet, a
    // transient state the executor retries, like an RPC that did not answer.
    for (const [name, slots] of [
      ['extended in the slot the RPC answered for', { lastExtendedSlot: 100n }],
      ['extended after that slot', { lastExtendedSlot: 101n }],
    ] as const) {
      it(`looks again later at a table ${name}`, async () => {
        accounts.set(tableKey.toBase58(), { owner: AddressLookupTableProgram.programId.toBase58(), data: lookupTableAccountData(table.state.addresses, slots) });
        try {
          const decoding = decodeTransaction(tx, { resolveLookupTable: rpcLookupTableResolver(new Connection(url)) });
          await expect(decoding).rejects.toThrow(LookupTableUnavailable);
          await expect(decoding).rejects.toThrow(/cannot be proven yet/);
        } finally {
          accounts.set(tableKey.toBase58(), { owner: AddressLookupTableProgram.programId.toBase58(), data: lookupTableAccountData(table.state.addresses) });
        }
      });
    }

    it('accepts a table last extended before the slot the RPC answered for', async () => {
      accounts.set(tableKey.toBase58(), { owner: AddressLookupTableProgram.programId.toBase58(), data: lookupTableAccountData(table.state.addresses, { lastExtendedSlot: 99n }) });
      const decoded = await decodeTransaction(tx, { resolveLookupTable: rpcLookupTableResolver(new Connection(url)) });
      expect(decoded.unresolved).toEqual([]);
      accounts.set(tableKey.toBase58(), { owner: AddressLookupTableProgram.programId.toBase58(), data: lookupTableAccountData(table.state.addresses) });
    });
  });
});
