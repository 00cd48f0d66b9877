import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainClient } from '../../src/chain/rpc-client.ts';
import type { RiskGate } from '../../src/pipeline/executor/ports.ts';
import type { ExecutorOptions } from '../../src/pipeline/executor/executor.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { ChainHarness, newAction } from './harness.ts';

/**
 * Two checks that stand between an action and a wrong outcome, each with a test that fails when
 * the check is removed: the risk gate asked again right before signing (a kill switch thrown
 * between accept and sign must stop the signature), and the final look for a landing when the
 * blockhash has expired (a transaction that landed just before expiry is landed, not expired).
 */
const redis = connectRedis(redisUrlFromEnv());
const h = new ChainHarness(redis, `stratd-test:{executor-last-checks-${process.pid}}:`);

beforeAll(async () => h.start());
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

/** Drives one action on `parts`: it must end refused by the halt at signing, the gate asked at accept and at sign, nothing signed. */
async function expectHaltedUnsigned(stages: readonly string[], parts: Partial<ExecutorOptions>): Promise<void> {
  const before = h.signCount;
  const ex = h.executor(parts);
  const action = newAction();
  await ex.accept(action);
  const final = await ex.drive(action.actionId);
  expect(final).toMatchObject({ state: 'rejected', reason: 'risk:halted' });
  expect(stages).toEqual(['accept', 'sign']);
  expect(h.signCount).toBe(before);
  expect(await h.statesOf(action.actionId)).not.toContain('signed');
}

describe('the risk gate at signing', () => {
  it('a refusal at sign time (after a clean accept) rejects the action with the rule and signs nothing', async () => {
    const stages: string[] = [];
    const risk: RiskGate = {
      check: async (stage) => {
        stages.push(stage);
        return stage === 'accept' ? { allowed: true } : { allowed: false, rule: 'halted', detail: 'an operator paused trading after the accept' };
      },
    };
    await expectHaltedUnsigned(stages, { risk });
  });
});

describe('the risk gate asked after the policy, right before the signature', () => {
  it('a halt that comes while the policy reads the chain stops the signature', async () => {
    let halted = false;
    const stages: string[] = [];
    const risk: RiskGate = {
      check: async (stage) => {
        stages.push(stage);
        return halted ? { allowed: false, rule: 'halted', detail: 'an operator paused trading during the inspection' } : { allowed: true };
      },
    };
    // The policy's chain reads take a while; the operator's pause lands in the middle of them.
    const inspector = { inspect: async (...args: Parameters<typeof h.inspector.inspect>) => {
      const verdict = await h.inspector.inspect(...args);
      halted = true;
      return verdict;
    } };
    await expectHaltedUnsigned(stages, { risk, inspector });
  });
});

describe('a refusal is booked only once it is written', () => {
  it('a refusal whose final write failed is not booked: the retry that lands books the landing', async () => {
    const booked: string[] = [];
    let halted = true;
    const risk: RiskGate = {
      check: async (stage) => (stage === 'sign' && halted ? { allowed: false, rule: 'halted', detail: 'paused' } : { allowed: true }),
      recordOutcome: async (r) => void booked.push(r.state),
    };
    const store = new ActionStore(redis, h.prefix);
    let failed = false;
    const flaky = Object.create(store) as ActionStore;
    flaky.save = async (record, version, entries) => {
      if (record.state === 'rejected' && !failed) {
        failed = true;
        // The operator resumes while Redis refuses the write: the retry finds trading active.
        halted = false;
        throw new Error('injected: the final write did not reach Redis');
      }
      return store.save(record, version, entries);
    };
    const ex = h.executor({ risk, store: flaky });
    const action = newAction();
    await ex.accept(action);
    const final = await ex.drive(action.actionId);
    expect(failed).toBe(true);
    expect(final).toMatchObject({ state: 'landed', finalSettled: true });
    expect(booked).toEqual(['landed']);
  });
});

describe('the final look before expiry', () => {
  it('a transaction the RPC first misses, with the block height past lastValidBlockHeight, ends landed, not expired', async () => {
    const real = h.chainClient;
    let pastExpiry = false;
    const looks = new Map<string, number>();
    // A lagging RPC: the first status query of a signature answers "unknown" although the
    // transaction has landed, and once the action is submitted the block height is past expiry.
    const lagging = Object.create(real) as ChainClient;
    lagging.blockHeight = async () => (await real.blockHeight()) + (pastExpiry ? 1_000_000 : 0);
    lagging.signatureStatus = async (signature: string) => {
      const n = (looks.get(signature) ?? 0) + 1;
      looks.set(signature, n);
      if (n > 1) return real.signatureStatus(signature);
      await expect.poll(() => real.signatureStatus(signature), { timeout: 10_000, interval: 20 }).not.toBeNull();
      return null;
    };
    const ex = h.executor({
      chain: lagging,
      onTransition: (r) => {
        if (r.state === 'submitted') pastExpiry = true;
      },
    });
    const action = newAction();
    await ex.accept(action);
    const final = await ex.drive(action.actionId);
    expect(final?.state).toBe('landed');
    expect(h.chain.landed().filter((l) => l.signature === final?.signature)).toHaveLength(1);
  });
});

describe('the proof of an expiry: a load-balanced RPC answers from nodes ahead of and behind each other', () => {
  type ProofReads = Pick<ChainClient, 'tip' | 'blockhashValidSince' | 'signatureStatusAt'>;
  const BLIND_LOOKS = 3;

  /**
   * Drives an action whose transaction lands while the cached block height says its blockhash
   * expired, and whose first status looks (the poll's and the proof's last look) answer unseen:
   * only the proof's other reads, as `node` answers them, stand between it and a false expiry.
   */
  async function driveWithLandingUnseen(node: (real: ChainClient) => Partial<ProofReads>) {
    const real = h.chainClient;
    let pastExpiry = false;
    let looks = 0;
    const chain = Object.create(real) as ChainClient;
    Object.assign(chain, node(real));
    chain.blockHeight = async () => (await real.blockHeight()) + (pastExpiry ? 1_000_000 : 0);
    chain.signatureStatus = async (signature: string) => {
      if (++looks > BLIND_LOOKS) return real.signatureStatus(signature);
      await expect.poll(() => real.signatureStatus(signature), { timeout: 10_000, interval: 20 }).not.toBeNull();
      return null;
    };
    const statusAt = chain.signatureStatusAt.bind(chain);
    chain.signatureStatusAt = async (signature: string) => {
      const answer = await statusAt(signature);
      return looks > BLIND_LOOKS ? answer : { ...answer, seen: null };
    };
    const ex = h.executor({ chain, onTransition: (r) => void (r.state === 'submitted' && (pastExpiry = true)) });
    const action = newAction();
    await ex.accept(action);
    const final = await ex.drive(action.actionId);
    expect(h.chain.landed().filter((l) => l.signature === final?.signature)).toHaveLength(1);
    return final;
  }

  it('a height from a node ahead is no proof when the node asked now is not past lastValidBlockHeight', async () => {
    // A node that does not know the blockhash says it is invalid, and the last look answers from its slot: only the tip stands.
    const final = await driveWithLandingUnseen((real) => ({ blockhashValidSince: async (_blockhash, minContextSlot) => ({ slot: minContextSlot, valid: false }), signatureStatusAt: async (signature) => ({ ...(await real.signatureStatusAt(signature)), contextSlot: Number.MAX_SAFE_INTEGER }) }));
    expect(final?.state).toBe('landed');
  });

  it('a blockhash our RPC still holds valid is not expired, whatever lastValidBlockHeight the API reported', async () => {
    const final = await driveWithLandingUnseen((real) => ({ tip: async () => ({ ...(await real.tip()), blockHeight: Number.MAX_SAFE_INTEGER }) }));
    expect(final?.state).toBe('landed');
  });

  it('a last look answered by a node behind the one that proved the height proves nothing', async () => {
    const ahead = 1_000;
    const final = await driveWithLandingUnseen((real) => ({
      tip: async () => {
        const tip = await real.tip();
        return { slot: tip.slot + ahead, blockHeight: Number.MAX_SAFE_INTEGER };
      },
      blockhashValidSince: async (_blockhash, minContextSlot) => ({ slot: minContextSlot, valid: false }),
    }));
    expect(final?.state).toBe('landed');
  });
});

describe('the proof of an expiry does not chase a moving tip', () => {
  it('a status node that trails the tip node by a steady few slots still proves the expiry (held to the first slot past it)', async () => {
    const real = h.chainClient;
    let pastExpiry = false;
    const chain = Object.create(real) as ChainClient;
    chain.blockHeight = async () => (await real.blockHeight()) + (pastExpiry ? 1_000_000 : 0);
    // The tip node is always five slots ahead of the one answering the statuses; neither sees a landing.
    chain.tip = async () => ({ slot: (await real.tip()).slot + 5, blockHeight: Number.MAX_SAFE_INTEGER });
    chain.blockhashValidSince = async (_blockhash, minContextSlot) => ({ slot: minContextSlot, valid: false });
    chain.signatureStatus = async () => null;
    chain.signatureStatusAt = async (signature) => ({ ...(await real.signatureStatusAt(signature)), seen: null });
    const ex = h.executor({ chain, onTransition: (r) => void (r.state === 'submitted' && (pastExpiry = true)) });
    const action = newAction();
    await ex.accept(action);
    const timeout = new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 10_000).unref());
    const final = await Promise.race([ex.drive(action.actionId), timeout]);
    expect(final).toMatchObject({ state: 'expired', reason: 'blockhash_expired' });
  });
});

describe('a signer that answers no signature', () => {
  it('ends the action signing_failed at once (a retry would answer the same), with nothing stored signed', async () => {
    const ex = h.executor({ signer: { publicKey: h.wallet.publicKey, signMessage: async () => new Uint8Array(63) } });
    const action = newAction();
    await ex.accept(action);
    const final = await ex.drive(action.actionId);
    expect(final).toMatchObject({ state: 'rejected', reason: 'signing_failed' });
    expect(final?.detail).toContain('invalid_signature');
    expect(await h.statesOf(action.actionId)).not.toContain('signed');
  });
});
