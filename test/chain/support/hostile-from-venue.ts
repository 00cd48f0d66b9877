// Hostile transactions made from a real venue transaction: the venue's own decrease build,
// decompiled with web3.js, tampered with, compiled again. Plus a tiny JSON-RPC that serves the
// accounts the policy reads (mints, token accounts), so the executor's inspector and
// `stratd tx inspect --rpc` see the same chain.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction, type MessageV0 } from '@solana/web3.js';
import type { ChainAccount } from '../../../src/chain/policy/index.ts';
import { MINTS } from '../../../src/api/mints.ts';
import { perpsPositionRequestAddress } from '../../../src/chain/programs/perps/addresses.ts';
import { PERPS_ACCOUNTS } from '../../../src/chain/programs.ts';
import { buildRequestTransaction } from '../../../src/venue/tx/builder.ts';
import { decreaseInstruction } from '../../../src/venue/tx/perps-instructions.ts';

export interface VenueBuild {
  readonly payer: PublicKey;
  readonly blockhash: string;
  readonly position: PublicKey;
  readonly keeper?: PublicKey;
}

/**
 * The venue's decrease transaction closing a SOL long into USDC, with the perps program's real
 * instruction (legacy request, or instant with the keeper's slot). `position` must be the wallet's
 * SOL long PDA for the product rules to accept it.
 */
export function venueDecrease(build: VenueBuild): VersionedTransaction {
  const position = build.position.toBase58();
  const keys = { owner: build.payer.toBase58(), position, custody: PERPS_ACCOUNTS.custody.SOL, collateralCustody: PERPS_ACCOUNTS.custody.SOL };
  const args = { desiredMint: MINTS.USDC, sizeUsdDelta: 0n, collateralUsdDelta: 0n, entirePosition: true, priceSlippage: 140_000_000n };
  const route = build.keeper
    ? { keeper: build.keeper.toBase58(), requestTimeSec: 1_800_000_000n }
    : { request: { counter: 11n, pubkey: perpsPositionRequestAddress(position, 11n, 'decrease') } };
  return buildRequestTransaction({
    payer: build.payer,
    product: 'perps',
    requestId: `decrease-${position.slice(0, 8)}`,
    blockhash: build.blockhash,
    instructions: [decreaseInstruction(keys, args, route)],
  });
}

/** The same transaction with instructions put before and after the venue's own. */
export function tamper(tx: VersionedTransaction, change: { first?: TransactionInstruction[]; last?: TransactionInstruction[] }): VersionedTransaction {
  const message = TransactionMessage.decompile(tx.message);
  const instructions = [...(change.first ?? []), ...message.instructions, ...(change.last ?? [])];
  return new VersionedTransaction(new TransactionMessage({ payerKey: message.payerKey, recentBlockhash: message.recentBlockhash, instructions }).compileToV0Message());
}

export function base64Of(tx: VersionedTransaction): string {
  return Buffer.from(tx.serialize()).toString('base64');
}

/**
 * The wire bytes of the same message as a version-1 transaction (message first, then the empty
 * signatures): web3.js reads it, cannot serialize it again, and the policy was not written for it.
 */
export function asVersion1(tx: VersionedTransaction): Uint8Array {
  const m = tx.message as MessageV0;
  const header = [0x81, m.header.numRequiredSignatures, m.header.numReadonlySignedAccounts, m.header.numReadonlyUnsignedAccounts, 0, 0, 0, 0];
  const ixs = m.compiledInstructions;
  const parts: number[] = [...header, ...new PublicKey(m.recentBlockhash).toBytes(), ixs.length, m.staticAccountKeys.length];
  for (const key of m.staticAccountKeys) parts.push(...key.toBytes());
  for (const ix of ixs) parts.push(ix.programIdIndex, ix.accountKeyIndexes.length, ix.data.length & 0xff, ix.data.length >> 8);
  for (const ix of ixs) parts.push(...ix.accountKeyIndexes, ...ix.data);
  return Uint8Array.from([...parts, ...new Array<number>(64 * m.header.numRequiredSignatures).fill(0)]);
}

/** An SPL token account's data: mint, owner, amount, no delegate, initialized. */
export function tokenAccountData(mint: PublicKey, owner: PublicKey, amount: bigint): Uint8Array {
  const data = Buffer.alloc(165);
  mint.toBuffer().copy(data, 0);
  owner.toBuffer().copy(data, 32);
  data.writeBigUInt64LE(amount, 64);
  data[108] = 1; // state: initialized
  return data;
}

export interface FakeChain {
  readonly url: string;
  close(): Promise<void>;
}

/** getAccountInfo / getMultipleAccounts over HTTP, answered from `accounts` (base64). */
export async function serveAccounts(accounts: ReadonlyMap<string, ChainAccount>): Promise<FakeChain> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string; params: [string | string[]] };
      const info = (key: string) => {
        const account = accounts.get(key);
        if (!account) return null;
        return { data: [Buffer.from(account.data).toString('base64'), 'base64'], executable: false, lamports: 2_039_280, owner: account.owner, rentEpoch: 0, space: account.data.length };
      };
      const [keys] = call.params;
      const value = Array.isArray(keys) ? keys.map(info) : info(keys);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { context: { slot: 1 }, value } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
