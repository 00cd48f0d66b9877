// End-to-end: `stratd run` against a venue whose next decrease build is a durable-nonce
// transaction (advanceNonceAccount first, the wallet as nonce authority). Nothing may be signed for
// it, its action must end `rejected` with policy:durable_nonce, and the liquidation guard's next
// decision must go out normally and land: one policy rejection does not stop trading.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyPrefix } from '../../src/pipeline/queues.ts';
import { connectRedis } from '../../src/kernel/redis.ts';
import { TradingStateStore } from '../../src/risk/trading-state.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { VenueControl } from '../support/venue-control.ts';
import { DaemonExited, startDaemonProcess, type DaemonProcess } from '../support/daemon-process.ts';
import { storedActionRecords } from './support/deployment-records.ts';
import { carriesNoSignature, hostileContentOf } from './support/hostile-content.ts';
import { deleteEverythingContaining } from './support/redis-values.ts';
import { createTestWallet, type TestWallet } from './support/test-wallet.ts';
import { waitUntil } from '../support/wait-until.ts';
import { PublicKey } from '@solana/web3.js';

const redisPrefix = `stratd-test-e2e-safety-nonce-${process.pid}`;
const prefix = keyPrefix(redisPrefix);
const redis: Redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
let venue: Venue | undefined;
let wallet: TestWallet | undefined;
let daemon: DaemonProcess | undefined;

function daemonOutput(): string {
  return `--- daemon stdout (tail) ---\n${(daemon?.stdout() ?? '').slice(-10_000)}\n--- stderr ---\n${(daemon?.stderr() ?? '').slice(-2_000)}`;
}

beforeAll(async () => {
  await deleteEverythingContaining(redis, redisPrefix);
  // Only the next write build is hostile; the venue builds honestly after it.
  venue = await startVenue({ seed: 202, faults: { operations: { '*': { hostile: 'durable_nonce', hostileNext: 1 } } } });
  wallet = await createTestWallet('nonce');
  await new VenueControl(venue.apiUrl).fundWithPositionNearLiquidation(wallet.publicKey);
  daemon = startDaemonProcess({
    'rpc.url': venue.rpcUrl,
    'api.baseUrl': venue.apiUrl,
    'redis.prefix': redisPrefix,
    'wallet.paperKeyFile': wallet.keyFile,
    'pollers.positions.cron': '* * * * * *',
  });
}, 30_000);

afterAll(async () => {
  await daemon?.stop(5_000);
  await venue?.close();
  await wallet?.remove();
  await deleteEverythingContaining(redis, redisPrefix);
  await redis.quit();
}, 30_000);

describe('a venue serving a durable-nonce decrease', () => {
  it('nothing is signed for it, it ends rejected with policy:durable_nonce, and the next decision lands', async () => {
    const records = await waitUntil(
      async () => {
        if (!daemon?.running) throw new DaemonExited(`the daemon exited early\n${daemonOutput()}`);
        const all = await storedActionRecords(redis, prefix);
        return all.some((r) => r.state === 'landed') && all.some((r) => r.state === 'rejected') ? all : undefined;
      },
      { timeoutMs: 60_000, what: 'a rejected durable-nonce action and a landed decrease after it', context: daemonOutput, retryErrors: false },
    );
    const owner = new PublicKey(wallet!.publicKey);
    const rejected = records.filter((r) => r.state === 'rejected');
    expect(rejected).toHaveLength(1);
    const [nonce] = rejected;
    expect(nonce!.reason).toBe('policy:durable_nonce');
    expect(hostileContentOf(nonce!.unsignedTx!, owner)).toEqual(['durable_nonce']);
    expect(nonce!.signature).toBeUndefined();
    expect(nonce!.signedTx).toBeUndefined();
    expect(carriesNoSignature(nonce!.unsignedTx!)).toBe(true);

    const landed = records.filter((r) => r.state === 'landed');
    expect(landed.length).toBeGreaterThanOrEqual(1);
    // A signed action's record keeps the signed bytes only (the same message as the built ones).
    expect(landed.every((r) => r.decidedAtMs >= nonce!.decidedAtMs && r.unsignedTx === undefined && hostileContentOf(r.signedTx!, owner).length === 0)).toBe(true);
    // No durable transaction reached the chain, and trading was never halted. The guard keeps
    // deciding while this runs, so a later decrease may be on chain while its record still says
    // `submitted`: read the chain first, then the records, and require every transaction on chain
    // to be the signed bytes of a clean action (its record holds the signature before it is sent).
    const onChain = await new VenueControl(venue!.apiUrl).landed();
    const after = await storedActionRecords(redis, prefix);
    const bySignature = new Map(after.filter((r) => r.signature !== undefined).map((r) => [r.signature!, r]));
    for (const tx of onChain) {
      const record = bySignature.get(tx.signature);
      expect(record, `on chain but no action signed it: ${tx.signature}`).toBeDefined();
      expect(record!.actionId).not.toBe(nonce!.actionId);
      expect(hostileContentOf(record!.signedTx!, owner)).toEqual([]);
    }
    const onChainSignatures = new Set(onChain.map((t) => t.signature));
    expect(landed.every((r) => onChainSignatures.has(r.signature!))).toBe(true);
    expect((await new TradingStateStore(redis, prefix).get()).state).toBe('active');
  }, 90_000);
});
