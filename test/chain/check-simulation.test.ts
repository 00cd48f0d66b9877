import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { JsonRpc } from '../../src/chain/json-rpc.ts';
import { checkSimulation, type ReportedAccount, type SimulationBounds, type WatchedAccount } from '../../src/chain/policy/index.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { jsonRpcSimulation, SimulationAnswerInvalid } from '../../src/chain/simulate-transaction.ts';
import { rpcFetch } from '../../src/chain/rpc-transport.ts';

// The pure comparison of the balance-delta check, and what it does with answers that are not the
// accounts asked for: each bad input is refused with a rule, never a crash, never a pass.

const wallet = Keypair.generate().publicKey.toBase58();
const usdcAccount = Keypair.generate().publicKey.toBase58();
const solAccount = Keypair.generate().publicKey.toBase58();
const watched: WatchedAccount[] = [
  { address: wallet, kind: 'wallet' },
  { address: usdcAccount, kind: 'token', mint: MINTS.USDC },
];
const FEE = 10_000n;

function walletAccount(lamports: bigint): ReportedAccount {
  return { lamports, owner: PROGRAMS.system, data: new Uint8Array(0) };
}

function tokenAccount(mint: string, owner: string, amount: bigint): ReportedAccount {
  const data = Buffer.alloc(165);
  new PublicKey(mint).toBuffer().copy(data, 0);
  new PublicKey(owner).toBuffer().copy(data, 32);
  data.writeBigUInt64LE(amount, 64);
  data[108] = 1;
  return { lamports: 2_039_280n, owner: PROGRAMS.token, data };
}

const pre = [walletAccount(1_000_000_000n), tokenAccount(MINTS.USDC, wallet, 500_000_000n)];
const bounds = (extra: Partial<SimulationBounds> = {}): SimulationBounds => ({ maxLamportsSpent: FEE, maxOutflow: {}, ...extra });
const post = (lamports: bigint, usdc: bigint | null) => [walletAccount(lamports), usdc === null ? null : tokenAccount(MINTS.USDC, wallet, usdc)];
const rules = (v: Array<{ rule: string }>) => v.map((x) => x.rule);

describe('checkSimulation', () => {
  it('passes a decrease that spends only the fee, and refuses one that moves USDC out (naming account, mint, amount, bound)', () => {
    expect(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: post(1_000_000_000n - FEE, 500_000_000n) }, bounds())).toEqual([]);
    const out = checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: post(1_000_000_000n - FEE, 499_000_000n) }, bounds());
    expect(out).toEqual([
      expect.objectContaining({ rule: 'simulation_delta', evidence: { account: usdcAccount, mint: MINTS.USDC, amount: '1000000', bound: '0', relation: 'at_most' } }),
    ]);
    expect(out[0]?.detail).toContain(usdcAccount);
  });

  it('allows the fee the intent names, not a unit more', () => {
    const feeBound = bounds({ maxOutflow: { [MINTS.USDC]: 1_000_000n } });
    expect(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: post(1_000_000_000n - FEE, 499_000_000n) }, feeBound)).toEqual([]);
    expect(rules(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: post(1_000_000_000n - FEE, 498_999_999n) }, feeBound))).toEqual(['simulation_delta']);
  });

  it('bounds the lamports spent by fee and rent', () => {
    expect(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: post(1_000_000_000n - FEE, 500_000_000n) }, bounds())).toEqual([]);
    const over = checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: post(1_000_000_000n - FEE - 1n, 500_000_000n) }, bounds());
    expect(over).toEqual([expect.objectContaining({ rule: 'simulation_delta', evidence: expect.objectContaining({ account: wallet, mint: MINTS.SOL, amount: String(FEE + 1n) }) })]);
  });

  it('an escrow must be exactly the making amount', () => {
    const exact = bounds({ exactOutflow: { [MINTS.USDC]: 25_000_000n } });
    expect(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: post(1_000_000_000n - FEE, 475_000_000n) }, exact)).toEqual([]);
    expect(rules(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: post(1_000_000_000n - FEE, 474_999_999n) }, exact))).toEqual(['simulation_delta']);
    expect(rules(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: post(1_000_000_000n - FEE, 475_000_001n) }, exact))).toEqual(['simulation_delta']);
  });

  it('a swap: input at most the amount, output at least the minimum (an account absent before counts as 0)', () => {
    const swapWatched: WatchedAccount[] = [...watched, { address: solAccount, kind: 'token', mint: MINTS.JLP }];
    const swapPre = [...pre, null];
    const swap = bounds({ maxOutflow: { [MINTS.USDC]: 10_000_000n }, minInflow: { [MINTS.JLP]: 3_000_000n } });
    const after = (usdc: bigint, jlp: bigint) => [...post(1_000_000_000n - FEE, usdc), tokenAccount(MINTS.JLP, wallet, jlp)];
    expect(checkSimulation(wallet, swapWatched, swapPre, { err: null, logs: [], accounts: after(490_000_000n, 3_000_000n) }, swap)).toEqual([]);
    expect(rules(checkSimulation(wallet, swapWatched, swapPre, { err: null, logs: [], accounts: after(490_000_000n, 2_999_999n) }, swap))).toEqual(['simulation_delta']);
    expect(rules(checkSimulation(wallet, swapWatched, swapPre, { err: null, logs: [], accounts: after(489_999_999n, 3_000_000n) }, swap))).toEqual(['simulation_delta']);
    // A minimum out on a mint no watched account holds cannot be seen: refused.
    expect(rules(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: post(1_000_000_000n - FEE, 490_000_000n) }, swap))).toEqual(['simulation_invalid']);
  });

  it('a simulation that says the transaction would fail is refused (simulation_failed)', () => {
    const failed = checkSimulation(wallet, watched, pre, { err: { InstructionError: [2, { Custom: 1 }] }, logs: ['Program log: Error: insufficient funds'], accounts: [] }, bounds());
    expect(failed).toEqual([expect.objectContaining({ rule: 'simulation_failed' })]);
    expect(failed[0]?.detail).toContain('Custom');
  });

  it('bad input: fewer accounts, accounts in another order, data that is no token account, a foreign token account', () => {
    const fine = post(1_000_000_000n - FEE, 500_000_000n);
    expect(rules(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: fine.slice(0, 1) }, bounds()))).toEqual(['simulation_invalid']);
    expect(rules(checkSimulation(wallet, watched, pre.slice(0, 1), { err: null, logs: [], accounts: fine }, bounds()))).toEqual(['simulation_invalid']);
    const reversed = [...fine].reverse();
    expect(rules(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: reversed }, bounds()))).toContain('simulation_invalid');
    const short = { ...tokenAccount(MINTS.USDC, wallet, 1n), data: new Uint8Array(7) };
    expect(rules(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: [fine[0]!, short] }, bounds()))).toEqual(['simulation_invalid']);
    const otherMint = tokenAccount(MINTS.USDT, wallet, 500_000_000n);
    expect(rules(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: [fine[0]!, otherMint] }, bounds()))).toEqual(['simulation_invalid']);
    const foreign = tokenAccount(MINTS.USDC, Keypair.generate().publicKey.toBase58(), 500_000_000n);
    expect(rules(checkSimulation(wallet, watched, pre, { err: null, logs: [], accounts: [fine[0]!, foreign] }, bounds()))).toEqual(['simulation_invalid']);
  });
});

describe('jsonRpcSimulation: replies that cannot be read', () => {
  let server: Server;
  let answer: unknown;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: answer }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('account data that is not base64, an account without an owner, no accounts at all: SimulationAnswerInvalid, never an account', async () => {
    const rpc = jsonRpcSimulation(new JsonRpc(url, rpcFetch(2_000)));
    const value = (accounts: unknown) => ({ context: { slot: 5 }, value: { err: null, logs: [], accounts } });
    answer = value([{ lamports: 1, owner: PROGRAMS.system, data: ['%%%not base64', 'base64'] }]);
    await expect(rpc.simulate(new Uint8Array(1), [wallet])).rejects.toBeInstanceOf(SimulationAnswerInvalid);
    answer = value([{ lamports: 1, data: ['', 'base64'] }]);
    await expect(rpc.simulate(new Uint8Array(1), [wallet])).rejects.toBeInstanceOf(SimulationAnswerInvalid);
    answer = value(null);
    await expect(rpc.simulate(new Uint8Array(1), [wallet])).rejects.toBeInstanceOf(SimulationAnswerInvalid);
    answer = value([null, { lamports: 7, owner: PROGRAMS.system, data: ['', 'base64'] }]);
    expect((await rpc.simulate(new Uint8Array(1), [wallet, wallet])).report.accounts).toEqual([null, { lamports: 7n, owner: PROGRAMS.system, data: Buffer.alloc(0) }]);
  });
});
