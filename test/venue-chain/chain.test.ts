import { setTimeout as sleep } from 'node:timers/promises';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { VenueChain } from '../../src/venue/chain/chain.ts';
import { LandingFailure } from '../../src/venue/chain/landed.ts';
import { ChainArgumentError, ChainRejection } from '../../src/venue/chain/rejection.ts';
import { VenueClock, VenueClockError } from '../../src/venue/clock.ts';
import { buildRequestTransaction } from '../../src/venue/tx/builder.ts';
import { advanceSlots, frozenChain, perpsRequest, SLOT_MS, signedBytes, START_MS } from './fixtures.ts';

const user = Keypair.generate();

function rejectionOf(run: () => unknown): ChainRejection {
  try {
    run();
  } catch (error) {
    if (error instanceof ChainRejection) return error;
    throw error;
  }
  throw new Error('expected a ChainRejection');
}

describe('venue clock', () => {
  it('runs at its speed, jumps forward on advance and never backwards', async () => {
    const frozen = new VenueClock({ startMs: START_MS, speed: 0 });
    await sleep(20);
    expect(frozen.now()).toBe(START_MS);
    frozen.advance(1_500);
    expect(frozen.now()).toBe(START_MS + 1_500);
    expect(() => frozen.advance(-1)).toThrow(VenueClockError);
    const fast = new VenueClock({ startMs: START_MS, speed: 1_000 });
    await sleep(20);
    expect(fast.now() - START_MS).toBeGreaterThanOrEqual(15_000);
    expect(() => new VenueClock({ speed: -1 })).toThrow(VenueClockError);
  });
});

describe('venue chain', () => {
  it('derives slots, heights and blockhashes from the clock and the seed alone', () => {
    const make = (seed: number): VenueChain => new VenueChain({ clock: new VenueClock({ startMs: START_MS, speed: 0 }), seed, slotMs: SLOT_MS });
    const a = make(11);
    const b = make(11);
    const other = make(12);
    const seen = new Set<string>();
    for (let i = 0; i < 5; i += 1) {
      expect(a.latestBlockhash()).toEqual(b.latestBlockhash());
      expect(a.latestBlockhash().blockhash).not.toBe(other.latestBlockhash().blockhash);
      seen.add(a.latestBlockhash().blockhash);
      for (const chain of [a, b, other]) chain.clock.advance(SLOT_MS);
    }
    expect(seen.size).toBe(5);
    expect(a.slot()).toBe(b.slot());
    expect(a.keeper.publicKey.equals(b.keeper.publicKey)).toBe(true);
    expect(a.keeper.publicKey.equals(other.keeper.publicKey)).toBe(false);
    expect(a.genesisHash).toBe(b.genesisHash);
    // Within one slot the blockhash does not change; the next slot brings a new one.
    const within = a.latestBlockhash();
    a.clock.advance(SLOT_MS - 1);
    expect(a.latestBlockhash()).toEqual(within);
    a.clock.advance(1);
    expect(a.latestBlockhash().blockhash).not.toBe(within.blockhash);
  });

  it('keeps blockhashes valid for 150 blocks, then reports them expired', () => {
    const { chain, clock } = frozenChain();
    const { blockhash, lastValidBlockHeight } = chain.latestBlockhash();
    expect(lastValidBlockHeight).toBe(chain.blockHeight() + 150);
    advanceSlots(clock, 150);
    expect(chain.isBlockhashValid(blockhash)).toBe(true);
    advanceSlots(clock, 1);
    expect(chain.isBlockhashValid(blockhash)).toBe(false);
    expect(chain.blockhashInfo(blockhash)?.lastValidBlockHeight).toBe(lastValidBlockHeight);
    expect(chain.isBlockhashValid('11111111111111111111111111111111')).toBe(false);
  });

  it('tells apart malformed, oversized, unknown-blockhash and expired submissions', () => {
    const { chain, clock, requests } = frozenChain();
    expect(rejectionOf(() => chain.submit(new Uint8Array([1, 2, 3]), { via: 'rpc' })).kind).toBe('malformed');
    expect(rejectionOf(() => chain.submit(new Uint8Array(1300), { via: 'rpc' })).message).toMatch(/too large/);
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    const bytes = signedBytes(tx, user);
    // Bytes appended after signing are part of what a validator verifies: the signature fails.
    expect(rejectionOf(() => chain.submit(Buffer.concat([bytes, Buffer.from([0])]), { via: 'rpc' })).kind).toBe('signature_invalid');
    const stranger = buildRequestTransaction({ payer: user.publicKey, product: 'perps', requestId: 'r', blockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N' });
    expect(rejectionOf(() => chain.submit(signedBytes(stranger, user), { via: 'rpc' })).kind).toBe('blockhash_not_found');
    advanceSlots(clock, 151);
    const expired = rejectionOf(() => chain.submit(bytes, { via: 'rpc' }));
    expect(expired.kind).toBe('blockhash_expired');
    expect(expired.signature).toBe(bs58.encode(tx.signatures[0] ?? new Uint8Array()));
    expect(chain.landed()).toHaveLength(0);
  });

  it('drops a seeded share of transactions, the same ones for the same seed', () => {
    const outcomes = (): boolean[] => {
      const { chain, requests } = frozenChain();
      chain.setDropRate(0.5);
      return Array.from({ length: 40 }, () => chain.submit(signedBytes(perpsRequest(chain, requests, user.publicKey).tx, user), { via: 'rpc' }).landed);
    };
    const first = outcomes();
    const landed = first.filter(Boolean).length;
    expect(landed).toBeGreaterThan(5);
    expect(landed).toBeLessThan(35);
    // Same seed and the same sequence of (valid) submissions: the same decisions.
    const { chain: replay, requests } = frozenChain();
    replay.setDropRate(0.5);
    const decisions = first.map(() => replay.submit(signedBytes(perpsRequest(replay, requests, user.publicKey).tx, user), { via: 'rpc' }).landed);
    expect(decisions).toEqual(first);
    expect(() => replay.setDropRate(1.5)).toThrow(ChainArgumentError);
  });

  it('reports statuses growing with slots; old ones only with searchTransactionHistory', () => {
    const { chain, clock, requests } = frozenChain();
    const { signature } = chain.submit(signedBytes(perpsRequest(chain, requests, user.publicKey).tx, user), { via: 'rpc' });
    const slot = chain.slot();
    expect(chain.getSignatureStatus(signature)).toEqual({ slot, confirmations: 0, err: null, confirmationStatus: 'processed' });
    advanceSlots(clock, 31);
    expect(chain.getSignatureStatus(signature)).toEqual({ slot, confirmations: 31, err: null, confirmationStatus: 'confirmed' });
    advanceSlots(clock, 1);
    expect(chain.getSignatureStatus(signature)).toEqual({ slot, confirmations: null, err: null, confirmationStatus: 'finalized' });
    advanceSlots(clock, 300);
    expect(chain.getSignatureStatus(signature, { searchTransactionHistory: false })).toBeNull();
    expect(chain.getSignatureStatus(signature, { searchTransactionHistory: true })?.confirmationStatus).toBe('finalized');
    expect(chain.getSignatureStatus('1'.repeat(64))).toBeNull();
  });

  it('calls each landing handler once; a LandingFailure lands the tx with its custom code', () => {
    const { chain, requests } = frozenChain();
    const seen: string[] = [];
    const unsubscribe = chain.onLand((landed) => {
      seen.push(landed.signature);
      if (landed.request?.requestId.endsWith('-fail') === true) throw new LandingFailure(6001, 'slippage tolerance exceeded');
    });
    const ok = chain.submit(signedBytes(perpsRequest(chain, requests, user.publicKey).tx, user), { via: 'rpc' });
    expect(ok.err).toBeNull();
    const failing = buildRequestTransaction({ payer: user.publicKey, product: 'perps', requestId: 'r-fail', blockhash: chain.latestBlockhash().blockhash });
    requests.register(failing, { requestId: 'r-fail', operationId: 'perps.increasePosition', wallet: user.publicKey.toBase58(), createdAtMs: 0, transactionType: 'legacy', payload: null });
    const bytes = signedBytes(failing, user);
    const failed = chain.submit(bytes, { via: 'rpc' });
    expect(failed).toMatchObject({ landed: true, duplicate: false, err: { InstructionError: [2, { Custom: 6001 }] } });
    expect(chain.submit(bytes, { via: 'rpc' })).toMatchObject({ duplicate: true, err: { InstructionError: [2, { Custom: 6001 }] } });
    expect(seen).toEqual([ok.signature, failed.signature]);
    expect(chain.getSignatureStatus(failed.signature)?.err).toEqual({ InstructionError: [2, { Custom: 6001 }] });
    unsubscribe();
    chain.submit(signedBytes(perpsRequest(chain, requests, user.publicKey).tx, user), { via: 'rpc' });
    expect(seen).toHaveLength(2);
    expect(chain.landed().map((l) => l.signature)).toEqual([ok.signature, failed.signature, chain.landed()[2]?.signature]);
  });

  it('a landing handler that runs out of funds fails the tx with SPL InsufficientFunds', () => {
    const { chain, requests } = frozenChain();
    chain.onLand((landed) => chain.debitToken(landed.transaction.message.staticAccountKeys[0]?.toBase58() ?? '', MINTS.USDC, 5_000_000n));
    chain.creditToken(user.publicKey.toBase58(), MINTS.USDC, 7_000_000n);
    const first = chain.submit(signedBytes(perpsRequest(chain, requests, user.publicKey).tx, user), { via: 'rpc' });
    const second = chain.submit(signedBytes(perpsRequest(chain, requests, user.publicKey).tx, user), { via: 'rpc' });
    expect(first.err).toBeNull();
    expect(second.err).toEqual({ InstructionError: [2, { Custom: 1 }] });
    expect(chain.getTokenBalance(user.publicKey.toBase58(), MINTS.USDC)).toBe(2_000_000n);
    expect(() => chain.creditToken(user.publicKey.toBase58(), MINTS.USDC, -1n)).toThrow(ChainArgumentError);
    chain.credit(user.publicKey.toBase58(), 42n);
    expect(chain.state()).toMatchObject({
      landedCount: 2,
      lamports: { [user.publicKey.toBase58()]: '42' },
      tokens: { [user.publicKey.toBase58()]: { [MINTS.USDC]: '2000000' } },
      faults: { dropRate: 0, dropAll: false, simulatedOutflow: null },
      keeper: chain.keeper.publicKey.toBase58(),
    });
  });

  it('charges fees when asked: 5000 per signature plus the priority fee, refusing an unfunded payer', () => {
    const { chain, requests } = frozenChain({ fees: 'charge' });
    const wallet = user.publicKey.toBase58();
    const { tx } = perpsRequest(chain, requests, user.publicKey, { computeUnitLimit: 300_000, computeUnitPriceMicroLamports: 50_000n });
    const bytes = signedBytes(tx, user);
    expect(rejectionOf(() => chain.submit(bytes, { via: 'rpc' })).kind).toBe('insufficient_funds');
    chain.credit(wallet, 1_000_000n);
    const outcome = chain.submit(bytes, { via: 'rpc' });
    // 5,000 × 1 signature + ceil(50,000 µlamports × 300,000 CU / 10^6) = 5,000 + 15,000.
    expect(chain.getBalance(wallet)).toBe(1_000_000n - 20_000n);
    expect(chain.landedTransaction(outcome.signature)?.feeLamports).toBe(20_000n);
    chain.submit(bytes, { via: 'rpc' });
    expect(chain.getBalance(wallet)).toBe(980_000n);
  });
});
