// An operator's act (`stratd act`) on the venue: the executor builds and inspects it, holds it at
// `inspected`, and signs only the message the operator confirmed by its hash. A decline, a
// confirmation of other bytes, or no answer before the build expires ends it with nothing signed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { answerOperatorAction, readOperatorApproval, type OperatorApproval } from '../../src/records/operator-approval.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { until, VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const PREFIX = `stratd-test:{operator-confirm-${process.pid}}:`;
let h: VenueExecutorHarness;

beforeAll(async () => {
  // A build lives 750 blocks of 20 ms: longer than any wait here; the venue's clock is moved on to expire one.
  h = await VenueExecutorHarness.start(redis, PREFIX, { slotMs: 20, blockhashValidBlocks: 750 });
});
afterAll(async () => {
  await h.stop();
  const keys = await redis.keys(`${PREFIX.replace(/[{}]/g, (c) => `\\${c}`)}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

let n = 0;
async function stopLossOf(w: TestWallet): Promise<Intent> {
  const p = (await h.positions(w)).map(positionView).find((v) => v?.marketMint === MINTS.SOL)!;
  return { type: 'tpsl-create', key: `act:sl:${++n}`, reason: 'by hand', notionalUsd: '0', positionPubkey: p.positionPubkey, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: ((p.liquidationPriceUsd + p.markPriceUsd) / 2n).toString(), receiveToken: 'USDC' };
}

/**
 * Starts an operator's act and answers `answer(inspected hash)` once it is held at `inspected`;
 * 'expire': no answer, the venue's chain moves past the build's blockhash instead.
 */
async function act(w: TestWallet, answer: ((inspectedSha256: string) => OperatorApproval) | 'expire', withReader = true) {
  const ex = h.executor(w, withReader ? { operatorApproval: (id) => readOperatorApproval(redis, PREFIX, id) } : {});
  const job = { ...h.job(await stopLossOf(w)), strategy: 'operator', operator: { who: 'alice', why: 'test' } };
  await ex.accept(job);
  const driving = ex.drive(job.actionId, h.signal);
  if (withReader) {
    const held = await until('held at inspected', async () => {
      const r = (await h.store.load(job.actionId))?.record;
      return r?.state === 'inspected' ? r : undefined;
    }, 30_000);
    if (answer === 'expire') await h.control('advance', { ms: 30_000 });
    else await answerOperatorAction(redis, PREFIX, job.actionId, answer(held.inspectedMessageSha256!));
  }
  return driving;
}

describe("an operator's act is signed only as confirmed", () => {
  it('the confirmed message is signed and lands', async () => {
    const w = await h.fundedWallet();
    const done = await act(w, (sha) => ({ decision: 'sign', messageSha256: sha, by: 'alice' }));
    expect(done).toMatchObject({ state: 'landed', strategy: 'operator' });
    expect(w.signatures()).toBe(1);
  });

  it('a confirmation of other bytes, a decline, or no answer before the build expires: rejected, nothing signed', async () => {
    const w = await h.fundedWallet();
    const other = await act(w, () => ({ decision: 'sign', messageSha256: 'f'.repeat(64), by: 'alice' }));
    expect(other).toMatchObject({ state: 'rejected', reason: 'operator:not_confirmed' });
    const declined = await act(w, () => ({ decision: 'decline', why: 'changed my mind', by: 'alice' }));
    expect(declined).toMatchObject({ state: 'rejected', reason: 'operator:declined', detail: 'alice: changed my mind' });
    const unanswered = await act(w, 'expire');
    expect(unanswered).toMatchObject({ state: 'rejected', reason: 'operator:unconfirmed' });
    const unreadable = await act(w, (sha) => ({ decision: 'sign', messageSha256: sha, by: 'alice' }), false);
    expect(unreadable).toMatchObject({ state: 'rejected', reason: 'operator:unconfirmable' });
    expect(w.signatures()).toBe(0);
  });
});
