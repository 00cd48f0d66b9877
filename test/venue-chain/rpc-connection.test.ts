import { createPublicKey, verify } from 'node:crypto';
import { Connection, Keypair, PublicKey, SendTransactionError } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROGRAMS } from '../../src/chain/programs.ts';
import type { VenueChain } from '../../src/venue/chain/chain.ts';
import { ed25519Signer } from '../../src/venue/chain/ed25519.ts';
import type { LandedTransaction } from '../../src/venue/chain/landed.ts';
import { startRpcServer, type RpcServer } from '../../src/venue/chain/rpc-server.ts';
import type { VenueClock } from '../../src/venue/clock.ts';
import type { RequestBook } from '../../src/venue/tx/request-book.ts';
import { advanceSlots, frozenChain, perpsRequest, rpcCall, signedBytes } from './fixtures.ts';

let chain: VenueChain;
let clock: VenueClock;
let requests: RequestBook;
let server: RpcServer;
let connection: Connection;
let landings: LandedTransaction[];
const user = Keypair.generate();

beforeEach(async () => {
  ({ chain, clock, requests } = frozenChain());
  landings = [];
  chain.onLand((landed) => landings.push(landed));
  server = await startRpcServer(chain, { port: 0 });
  connection = new Connection(server.url, 'confirmed');
});

afterEach(async () => {
  await server.close();
});

/** Verifies an Ed25519 signature with a JWK-imported key: independent of the chain's DER path. */
function independentlyVerified(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' });
  return verify(null, message, key, signature);
}

async function expectSendRefused(bytes: Uint8Array, code: number, text: string): Promise<void> {
  await expect(connection.sendRawTransaction(bytes)).rejects.toSatisfy(
    (error: unknown) => error instanceof SendTransactionError && error.message.includes(text),
  );
  const raw = await rpcCall(server.url, 'sendTransaction', [Buffer.from(bytes).toString('base64'), { encoding: 'base64' }]);
  expect(raw.error?.code).toBe(code);
  expect(raw.error?.message).toContain(text);
}

describe('a plain web3.js Connection against the venue chain', () => {
  it('reads slot, block height and a fresh blockhash', async () => {
    const first = await connection.getLatestBlockhash();
    expect(first.blockhash).toBe(chain.latestBlockhash().blockhash);
    expect(first.lastValidBlockHeight).toBe(chain.blockHeight() + 150);
    expect(await connection.getSlot()).toBe(chain.slot());
    expect(await connection.getBlockHeight()).toBe(chain.blockHeight());
    expect(chain.slot()).not.toBe(chain.blockHeight());
    advanceSlots(clock, 5);
    expect(await connection.getSlot()).toBe(chain.slot());
    const second = await connection.getLatestBlockhash();
    expect(second.blockhash).not.toBe(first.blockhash);
    expect(second.lastValidBlockHeight).toBe(first.lastValidBlockHeight + 5);
    expect((await connection.isBlockhashValid(first.blockhash)).value).toBe(true);
    expect((await connection.isBlockhashValid(bs58.encode(Buffer.alloc(32, 9)))).value).toBe(false);
  });

  it('lands a signed venue-built transaction and reports it confirmed, then finalized', async () => {
    const { tx, requestId } = perpsRequest(chain, requests, user.publicKey);
    const bytes = signedBytes(tx, user);
    const signature = await connection.sendRawTransaction(bytes);
    expect(signature).toBe(bs58.encode(tx.signatures[0] ?? new Uint8Array()));
    const processed = await connection.getSignatureStatuses([signature]);
    expect(processed.value[0]).toMatchObject({ confirmationStatus: 'processed', confirmations: 0, err: null });
    advanceSlots(clock, 1);
    const confirmed = await connection.getSignatureStatuses([signature]);
    expect(confirmed.value[0]).toMatchObject({ confirmationStatus: 'confirmed', confirmations: 1, err: null, slot: chain.slot() - 1 });
    advanceSlots(clock, 40);
    const finalized = await connection.getSignatureStatus(signature);
    expect(finalized.value).toMatchObject({ confirmationStatus: 'finalized', confirmations: null });
    expect(landings).toHaveLength(1);
    expect(landings[0]?.request?.requestId).toBe(requestId);
    expect(landings[0]?.via).toBe('rpc');
    expect(Buffer.from(landings[0]?.message ?? []).equals(Buffer.from(tx.message.serialize()))).toBe(true);
  });

  it('refuses a signature made by the wrong key', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    const intruder = Keypair.generate();
    tx.addSignature(user.publicKey, ed25519Signer(intruder.secretKey.subarray(0, 32))(tx.message.serialize()));
    await expectSendRefused(tx.serialize(), -32003, 'signature verification failure');
    expect(landings).toHaveLength(0);
  });

  it('refuses a tampered message (one flipped byte after signing)', async () => {
    const { tx, requestId } = perpsRequest(chain, requests, user.publicKey);
    const bytes = Buffer.from(signedBytes(tx, user));
    const at = bytes.indexOf(Buffer.from(requestId, 'utf8'));
    expect(at).toBeGreaterThan(64);
    bytes[at] = (bytes[at] ?? 0) ^ 0x01;
    await expectSendRefused(bytes, -32003, 'signature verification failure');
    expect(landings).toHaveLength(0);
  });

  it('refuses an expired blockhash (block height past lastValidBlockHeight)', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    const bytes = signedBytes(tx, user);
    const { lastValidBlockHeight } = chain.blockhashInfo(tx.message.recentBlockhash) ?? { lastValidBlockHeight: -1 };
    advanceSlots(clock, lastValidBlockHeight - chain.blockHeight() + 1);
    expect(await connection.getBlockHeight()).toBe(lastValidBlockHeight + 1);
    await expectSendRefused(bytes, -32002, 'Blockhash not found');
    expect(landings).toHaveLength(0);
  });

  it('still accepts a blockhash at exactly its last valid block height', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    advanceSlots(clock, 150);
    await connection.sendRawTransaction(signedBytes(tx, user));
    expect(landings).toHaveLength(1);
  });

  it('refuses a blockhash this chain never produced', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey, { blockhash: bs58.encode(Buffer.alloc(32, 3)) });
    await expectSendRefused(signedBytes(tx, user), -32002, 'Blockhash not found');
  });

  it('lands the same bytes once however often they are sent', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    const bytes = signedBytes(tx, user);
    const first = await connection.sendRawTransaction(bytes);
    const second = await connection.sendRawTransaction(bytes, { skipPreflight: true, maxRetries: 0 });
    const third = await connection.sendRawTransaction(bytes);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(chain.landed()).toHaveLength(1);
    expect(landings).toHaveLength(1);
  });

  it('drop fault: accepted but never landed; a rebroadcast after clearing it lands', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    const bytes = signedBytes(tx, user);
    chain.setDropAll(true);
    const signature = await connection.sendRawTransaction(bytes, { maxRetries: 0 });
    advanceSlots(clock, 3);
    expect((await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0]).toBeNull();
    expect(chain.landed()).toHaveLength(0);
    chain.setDropAll(false);
    expect(await connection.sendRawTransaction(bytes)).toBe(signature);
    expect((await connection.getSignatureStatuses([signature])).value[0]).toMatchObject({ err: null });
    expect(landings).toHaveLength(1);
  });

  it('a keeper-co-signed instant transaction lands through execute; RPC refuses it unsigned by the keeper', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey, { keeperSigner: chain.keeper.publicKey });
    expect(tx.message.header.numRequiredSignatures).toBe(2);
    const bytes = signedBytes(tx, user);
    await expectSendRefused(bytes, -32003, `missing signature for ${chain.keeper.publicKey.toBase58()}`);
    const outcome = chain.submit(bytes, { via: 'execute' });
    expect(outcome).toMatchObject({ duplicate: false, landed: true, err: null });
    const landed = chain.landedTransaction(outcome.signature);
    const keeperSignature = landed?.transaction.signatures[1] ?? new Uint8Array();
    expect(keeperSignature.some((byte) => byte !== 0)).toBe(true);
    expect(independentlyVerified(tx.message.serialize(), keeperSignature, chain.keeper.publicKey.toBytes())).toBe(true);
    expect(landed?.via).toBe('execute');
    expect(landed?.request?.transactionType).toBe('instant');
    expect(chain.submit(bytes, { via: 'execute' })).toMatchObject({ signature: outcome.signature, duplicate: true });
    expect(landings).toHaveLength(1);
    const status = await connection.getSignatureStatus(outcome.signature);
    expect(status.value?.err).toBeNull();
  });

  it('skipPreflight: a bad transaction gets its signature back but never lands', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    tx.addSignature(user.publicKey, ed25519Signer(Keypair.generate().secretKey.subarray(0, 32))(tx.message.serialize()));
    const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    expect(signature).toBe(bs58.encode(tx.signatures[0] ?? new Uint8Array()));
    expect((await connection.getSignatureStatus(signature, { searchTransactionHistory: true })).value).toBeNull();
    expect(landings).toHaveLength(0);
  });

  it('simulates an unsigned venue transaction and verifies signatures when asked', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    const simulated = await connection.simulateTransaction(tx, { sigVerify: false });
    expect(simulated.value.err).toBeNull();
    expect(simulated.value.logs?.some((line) => line.includes('PERPHjGBqRHArX4DySjwM6UJHiR3sWAatqfdBS2qQJu invoke'))).toBe(true);
    expect(simulated.value.unitsConsumed).toBeGreaterThan(0);
    const unsigned = Buffer.from(tx.serialize()).toString('base64');
    const verified = await rpcCall(server.url, 'simulateTransaction', [unsigned, { encoding: 'base64', sigVerify: true }]);
    expect(verified.error?.code).toBe(-32003);
    advanceSlots(clock, 200);
    const expired = await connection.simulateTransaction(tx);
    expect(expired.value.err).toBe('BlockhashNotFound');
    const replaced = await connection.simulateTransaction(tx, { replaceRecentBlockhash: true });
    expect(replaced.value.err).toBeNull();
    expect(landings).toHaveLength(0);
  });

  it('a failing landing handler lands the transaction with an error that statuses report', async () => {
    chain.onLand(() => {
      throw new Error('market model refused');
    });
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    const signature = await connection.sendRawTransaction(signedBytes(tx, user));
    const status = await connection.getSignatureStatus(signature);
    expect(status.value?.err).toEqual({ InstructionError: [2, { Custom: 0 }] });
    expect(chain.landed()[0]?.err).toEqual({ InstructionError: [2, { Custom: 0 }] });
  });

  it('answers balances, accounts, epoch, version, rent, fees and lookup tables', async () => {
    chain.credit(user.publicKey.toBase58(), 2_500_000_000n);
    expect(await connection.getBalance(user.publicKey)).toBe(2_500_000_000);
    const account = await connection.getAccountInfo(user.publicKey);
    expect(account?.lamports).toBe(2_500_000_000);
    expect(account?.owner.toBase58()).toBe('11111111111111111111111111111111');
    expect(await connection.getAccountInfo(Keypair.generate().publicKey)).toBeNull();
    const [wallet, keeper, program] = await connection.getMultipleAccountsInfo([user.publicKey, chain.keeper.publicKey, new PublicKey(PROGRAMS.perps)]);
    expect(wallet?.lamports).toBe(2_500_000_000);
    expect(keeper).toBeNull();
    expect(program?.executable).toBe(true);
    expect((await connection.getAddressLookupTable(Keypair.generate().publicKey)).value).toBeNull();
    const epoch = await connection.getEpochInfo();
    expect(epoch.absoluteSlot).toBe(chain.slot());
    expect(epoch.blockHeight).toBe(chain.blockHeight());
    expect((await connection.getVersion())['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await connection.getGenesisHash()).toBe(chain.genesisHash);
    expect(await connection.getMinimumBalanceForRentExemption(0)).toBe(890_880);
    expect(await connection.getMinimumBalanceForRentExemption(165)).toBe(2_039_280);
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    expect((await connection.getFeeForMessage(tx.message)).value).toBe(0);
    expect((await connection.getRecentPrioritizationFees()).length).toBeGreaterThan(0);
  });

  it('refuses to answer from a slot older than minContextSlot', async () => {
    await expect(connection.getSlot({ minContextSlot: chain.slot() + 10 })).rejects.toThrow(/Minimum context slot/);
  });
});
