// SimulationCheck's own decisions, on answers a node could give: the pre-state and the simulation
// must come from one slot (a landing in between would blur the delta), and an answer that is not
// the accounts asked for is refused whatever onUnavailable says. The node here is a SimulationRpc
// answering from fixed accounts: the RPC wire itself is tested in test/chain/check-simulation.test.ts
// and against the venue in test/executor/simulation-venue.test.ts.
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { PROGRAMS } from '../../src/chain/programs.ts';
import type { AccountsAtSlot, SimulatedAtSlot, SimulationRpc } from '../../src/chain/simulate-transaction.ts';
import { SimulationCheck, SimulationUnavailable } from '../../src/pipeline/executor/simulation-check.ts';

const wallet = Keypair.generate().publicKey.toBase58();
const account = (lamports: bigint) => ({ lamports, owner: PROGRAMS.system, data: new Uint8Array(0) });

function node(slots: { simulate: number[]; accounts: number[] }, postLamports: bigint | bigint[] = 999_000n): SimulationRpc & { calls: number } {
  const posts = Array.isArray(postLamports) ? [...postLamports] : [];
  const rpc = {
    calls: 0,
    async simulate(): Promise<SimulatedAtSlot> {
      rpc.calls++;
      const post = Array.isArray(postLamports) ? (posts.shift() ?? 999_000n) : postLamports;
      return { slot: slots.simulate.shift() ?? 0, report: { err: null, logs: [], accounts: [account(post)] } };
    },
    async accounts(): Promise<AccountsAtSlot> {
      return { slot: slots.accounts.shift() ?? 0, accounts: [account(1_000_000n)] };
    },
  };
  return rpc;
}

const request = { unsignedTx: new Uint8Array(1), wallet, watched: [{ address: wallet, kind: 'wallet' as const }], bounds: { maxLamportsSpent: 1_000n, maxOutflow: {} }, protective: false };
const settings = { enabled: true, onUnavailable: 'alert' as const, timeoutMs: 1_000, protectiveTimeoutMs: 100 };

describe('SimulationCheck', () => {
  it('asks again when the pre-state came from another slot, and compares once both agree', async () => {
    const rpc = node({ simulate: [10, 11], accounts: [9, 11] });
    expect(await new SimulationCheck(rpc, () => settings).check(request)).toEqual([]);
    expect(rpc.calls).toBe(2);
  });

  it('states of two slots twice: no comparison (unavailable; signed with an alert here, held by default)', async () => {
    const alerts: string[] = [];
    const rpc = node({ simulate: [10, 12], accounts: [9, 11] });
    expect(await new SimulationCheck(rpc, () => settings, { outcome: () => undefined, signedUnchecked: (d) => alerts.push(d) }).check(request)).toEqual([]);
    expect(alerts).toEqual([expect.stringContaining('different slots')]);
    // Under refuse: no verdict at all (thrown, for the executor to hold the action), never a violation.
    const outcomes: string[] = [];
    const held = new SimulationCheck(node({ simulate: [10, 12], accounts: [9, 11] }), () => ({ ...settings, onUnavailable: 'refuse' }), { outcome: (o) => outcomes.push(o), signedUnchecked: () => undefined }).check(request);
    await expect(held).rejects.toBeInstanceOf(SimulationUnavailable);
    expect(outcomes).toEqual(['unavailable_held']);
  });

  it('a delta beyond the bound on every attempt is refused even with onUnavailable alert', async () => {
    const rpc = node({ simulate: [10, 11, 12], accounts: [10, 11, 12] }, 998_999n);
    const violations = await new SimulationCheck(rpc, () => settings).check(request);
    expect(violations).toEqual([expect.objectContaining({ rule: 'simulation_delta' })]);
    expect(rpc.calls).toBe(3);
  });

  it('a delta seen once (another landing of the wallet between the reads) is asked again, and passes', async () => {
    const rpc = node({ simulate: [10, 11], accounts: [10, 11] }, [998_999n, 999_000n]);
    expect(await new SimulationCheck(rpc, () => settings).check(request)).toEqual([]);
    expect(rpc.calls).toBe(2);
  });

  it('takes the answer begun beside the policy\'s other reads when it watched exactly these accounts: one simulation', async () => {
    const rpc = node({ simulate: [10], accounts: [10] });
    const check = new SimulationCheck(rpc, () => settings);
    const begun = check.begin(request.unsignedTx, request.watched);
    expect(await check.check({ ...request, begun })).toEqual([]);
    expect(rpc.calls).toBe(1);
  });

  it('a begun answer of other accounts or other bytes is not taken: the check simulates its own', async () => {
    const other = Keypair.generate().publicKey.toBase58();
    // The begun simulation says the transaction would fail (a verdict asked once, not again); the check's own passes.
    for (const [watched, unsignedTx] of [[[{ address: other, kind: 'wallet' as const }], request.unsignedTx], [request.watched, new Uint8Array([7])]] as const) {
      const rpc = node({ simulate: [10, 11], accounts: [10, 11] });
      const simulate = rpc.simulate.bind(rpc);
      rpc.simulate = async (tx, addresses) => {
        const answer = await simulate(tx, addresses);
        return rpc.calls === 1 ? { ...answer, report: { ...answer.report, err: { InstructionError: [0, 'Custom'] } } } : answer;
      };
      const check = new SimulationCheck(rpc, () => settings);
      const begun = check.begin(unsignedTx, watched);
      expect(await check.check({ ...request, begun })).toEqual([]);
      expect(rpc.calls).toBe(2);
    }
  });

  it('a begun simulation that failed and was never taken is no unhandled rejection', async () => {
    const rpc: SimulationRpc = { simulate: () => Promise.reject(new Error('node down')), accounts: () => Promise.reject(new Error('node down')) };
    new SimulationCheck(rpc, () => settings).begin(request.unsignedTx, request.watched);
    await new Promise((resolve) => setTimeout(resolve, 20));
  });
});
