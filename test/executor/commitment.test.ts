// A transaction seen in a block is landed only at the configured commitment (rpc.commitment,
// default confirmed): at `processed` a fork may still drop it and the same bytes land later, so
// the executor keeps watching. Through the real venue, whose chain reports a landing as
// `processed` during its own slot and `confirmed` one slot later (slots of 1.5 s here).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { ChainClient, type SignatureSeen } from '../../src/chain/rpc-client.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { VenueExecutorHarness } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
let h: VenueExecutorHarness;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, `stratd-test:{commitment-${process.pid}}:`, { slotMs: 1_500, blockhashValidBlocks: 150, decreaseInstantShare: 1 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

/** The real client, remembering every status it answered and when. */
class RecordingChain extends ChainClient {
  readonly seen: Array<{ atMs: number; status: SignatureSeen | null }> = [];
  override async signatureStatus(signature: string): Promise<SignatureSeen | null> {
    const status = await super.signatureStatus(signature);
    this.seen.push({ atMs: Date.now(), status });
    return status;
  }
}

describe('landing at the configured commitment', () => {
  it('an instant decrease seen at processed is not landed until the RPC reports it confirmed', async () => {
    const w = await h.fundedWallet();
    const position = (await h.positions(w)).map(positionView).find((v) => v?.marketMint === MINTS.SOL);
    const intent: Intent = { type: 'decrease', key: `trim:${position!.positionPubkey}`, reason: 'trim', notionalUsd: '50000000', positionPubkey: position!.positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '50000000' };
    const chain = new RecordingChain(h.venue.rpcUrl, 'confirmed');
    let landedAtMs = 0;
    const ex = h.executor(w, { chain, onTransition: (record: ActionRecord) => void (record.state === 'landed' && (landedAtMs = Date.now())) });
    const job = h.job(intent);
    await ex.accept(job);
    const final = await ex.drive(job.actionId, h.signal);
    expect(final).toMatchObject({ state: 'landed' });
    const processed = chain.seen.filter((s) => s.status?.confirmationStatus === 'processed');
    const confirmed = chain.seen.filter((s) => s.status?.confirmationStatus === 'confirmed');
    // The path was exercised: the executor looked while the landing was only processed …
    expect(processed.length).toBeGreaterThan(0);
    expect(processed.every((s) => s.status?.committed === false)).toBe(true);
    // … and landed the action only after a confirmed status.
    expect(confirmed.length).toBeGreaterThan(0);
    expect(landedAtMs).toBeGreaterThanOrEqual(confirmed[0]!.atMs);
  });
});
