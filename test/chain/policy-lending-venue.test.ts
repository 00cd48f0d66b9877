// LP mints and deposit-borrows as the simulated venue builds them (the perps program's
// addLiquidity2, depositCollateralForBorrows and borrowFromCustody), judged by the executor's
// inspector against the lp-mint and deposit-borrow intents: the benign builds pass, and variants
// made from them with web3.js (other amounts, a foreign LP or borrow account, a pre-swap, another
// custody, a missing or doubled instruction) are refused with the rule and a one-line detail.
import { Keypair, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { ApiClient } from '../../src/api/client.ts';
import type { OperationId } from '../../src/api/registry.ts';
import { decodePerpsInstruction } from '../../src/chain/decode/perps.ts';
import type { PerpsArgInput } from '../../src/chain/programs/perps/codec.ts';
import type { PerpsInstructionName } from '../../src/chain/programs/perps/instructions.ts';
import { DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, type PolicyRule, type Verdict } from '../../src/chain/policy/index.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../src/chain/programs.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { perpsInstruction, tokenAccountOf } from '../../src/venue/tx/perps-instructions.ts';
import { fundedWallet, testVenue } from '../venue/venue-fixture.ts';

let client: ApiClient;
let close: () => Promise<void>;
let wallet: Keypair;
let address: string;

beforeAll(async () => {
  const started = await testVenue();
  ({ client, close } = started);
  ({ wallet, address } = await fundedWallet(started.venue, { tokens: { [MINTS.JLP]: '50000000' } }));
});

afterAll(async () => {
  await close();
});

const base = { key: 'lending:test', reason: 'test', notionalUsd: '100000000' };
const lpIntent = (over: Partial<Extract<Intent, { type: 'lp-mint' }>> = {}): Intent => ({ type: 'lp-mint', ...base, depositToken: 'USDC', depositTokenAmount: '100000000', ...over });
const borrowIntent = (over: Partial<Extract<Intent, { type: 'deposit-borrow' }>> = {}): Intent => ({ type: 'deposit-borrow', ...base, depositTokenAmount: '25000000', borrowTokenAmount: '20000000', ...over });

async function verdict(tx: string | VersionedTransaction, intent: Intent, operationId: OperationId): Promise<Verdict> {
  const parsed = typeof tx === 'string' ? VersionedTransaction.deserialize(Buffer.from(tx, 'base64')) : tx;
  const inspector = new PolicyInspector({ wallet: wallet.publicKey, priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, slippageBps: 50 });
  return (await inspector.inspectDetailed(parsed, intent, { operationId, route: 'rpc' })).verdict;
}

const rules = (v: Verdict): PolicyRule[] => [...new Set(v.violations.map((x) => x.rule))];
const details = (v: Verdict): string => v.violations.map((x) => x.detail).join('\n');

/** The build with each perps instruction passed through `change` (return several to add, none to drop). */
function altered(base64: string, change: (name: PerpsInstructionName, accounts: Record<string, string>, args: Record<string, PerpsArgInput>) => TransactionInstruction[]): VersionedTransaction {
  const message = TransactionMessage.decompile(VersionedTransaction.deserialize(Buffer.from(base64, 'base64')).message);
  const instructions = message.instructions.flatMap((ix) => {
    if (ix.programId.toBase58() !== PROGRAMS.perps) return [ix];
    const decoded = decodePerpsInstruction(ix.keys.map((k) => k.pubkey.toBase58()), ix.data);
    if (!decoded) throw new Error('an unknown perps instruction in the build');
    const args = Object.fromEntries(Object.entries(decoded.args).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : v])) as Record<string, PerpsArgInput>;
    return change(decoded.type, { ...decoded.accounts }, args);
  });
  return new VersionedTransaction(new TransactionMessage({ payerKey: message.payerKey, recentBlockhash: message.recentBlockhash, instructions }).compileToV0Message());
}

describe('perps LP mint against the lp-mint intent', () => {
  let built: string;
  let quoted: bigint;
  beforeAll(async () => {
    const res = await client.call('perps.lpMint', { depositToken: 'USDC', depositTokenAmount: '100000000', walletAddress: address });
    built = res.serializedTxBase64 as string;
    quoted = BigInt(res.mintTokenAmount as string);
  });

  it('the benign build passes, with and without a minLpAmount it meets', async () => {
    expect(await verdict(built, lpIntent(), 'perps.lpMint')).toMatchObject({ ok: true, violations: [] });
    expect(await verdict(built, lpIntent({ minLpAmount: String((quoted * 99n) / 100n) }), 'perps.lpMint')).toMatchObject({ ok: true, violations: [] });
  });

  it('refuses a minimum LP out below the intent\'s minLpAmount', async () => {
    const v = await verdict(built, lpIntent({ minLpAmount: String(quoted) }), 'perps.lpMint');
    expect(rules(v)).toEqual(['intent_exceeded']);
    expect(details(v)).toMatch(new RegExp(`minLpAmountOut ${(quoted * 99n) / 100n} is below the intent's minLpAmount ${quoted}`));
  });

  it('refuses another deposit amount, a pre-swap, another custody, and LP to a foreign account', async () => {
    const more = altered(built, (name, a, args) => [perpsInstruction(name, a, { ...args, tokenAmountIn: 10_000_000_000n })]);
    expect(details(await verdict(more, lpIntent(), 'perps.lpMint'))).toMatch(/tokenAmountIn 10000000000 differs from the intent's 100000000/);
    const preSwap = altered(built, (name, a, args) => [perpsInstruction(name, a, { ...args, tokenAmountPreSwap: 5n })]);
    const pv = await verdict(preSwap, lpIntent(), 'perps.lpMint');
    expect(rules(pv)).toEqual(['intent_exceeded']);
    expect(details(pv)).toMatch(/swaps 5 before the deposit \(tokenAmountPreSwap\)/);
    // The intent deposits SOL; the build deposits USDC into the USDC custody.
    const otherMint = await verdict(built, lpIntent({ depositToken: 'SOL' }), 'perps.lpMint');
    expect(details(otherMint)).toMatch(/deposits into the custody of mint EPjF\w+; the intent deposits mint So1/);
    const thief = Keypair.generate().publicKey.toBase58();
    const foreignLp = altered(built, (name, a, args) => [perpsInstruction(name, { ...a, lpTokenAccount: tokenAccountOf(thief, MINTS.JLP) }, args)]);
    const fv = await verdict(foreignLp, lpIntent(), 'perps.lpMint');
    expect(rules(fv)).toEqual(['product_account']);
    expect(details(fv)).toMatch(/lpTokenAccount \w+ is not the wallet's associated token account of mint 27G8/);
  });
});

describe('perps deposit-borrow against the deposit-borrow intent', () => {
  let built: string;
  beforeAll(async () => {
    const res = await client.call('perps.depositBorrow', { walletAddress: address, depositTokenAmount: '25000000', borrowTokenAmount: '20000000' });
    built = res.serializedTxBase64 as string;
  });

  it('the benign build (deposit, then borrow) passes', async () => {
    expect(await verdict(built, borrowIntent(), 'perps.depositBorrow')).toMatchObject({ ok: true, violations: [] });
  });

  it('refuses other amounts: a deposit ×100, a borrow other than asked', async () => {
    const v = await verdict(built, borrowIntent({ depositTokenAmount: '250000', borrowTokenAmount: '10000000' }), 'perps.depositBorrow');
    expect(rules(v)).toEqual(['intent_exceeded']);
    expect(details(v)).toMatch(/deposits 25000000 JLP; the intent deposits 250000/);
    expect(details(v)).toMatch(/borrows 20000000 USDC; the intent borrows 10000000/);
  });

  it('refuses borrowed tokens landing in a foreign account, and a borrow from another custody', async () => {
    const thief = Keypair.generate().publicKey.toBase58();
    const foreign = altered(built, (name, a, args) => [perpsInstruction(name, name === 'borrowFromCustody' ? { ...a, userTokenAccount: tokenAccountOf(thief, MINTS.USDC) } : a, args)]);
    const v = await verdict(foreign, borrowIntent(), 'perps.depositBorrow');
    expect(rules(v)).toEqual(['product_account']);
    expect(details(v)).toMatch(/borrowFromCustody\): userTokenAccount \w+ is not the wallet's associated token account of mint EPjF/);
    const sol = altered(built, (name, a, args) => [perpsInstruction(name, name === 'borrowFromCustody' ? { ...a, custody: PERPS_ACCOUNTS.custody.SOL, userTokenAccount: tokenAccountOf(address, MINTS.SOL) } : a, args)]);
    expect(details(await verdict(sol, borrowIntent(), 'perps.depositBorrow'))).toMatch(/borrows from the custody of mint So1\w+; the intent borrows USDC/);
  });

  it('refuses a missing borrow and a doubled deposit', async () => {
    const noBorrow = altered(built, (name, a, args) => (name === 'borrowFromCustody' ? [] : [perpsInstruction(name, a, args)]));
    expect(details(await verdict(noBorrow, borrowIntent(), 'perps.depositBorrow'))).toMatch(/no borrowFromCustody instruction; the intent borrows 20000000/);
    const twice = altered(built, (name, a, args) => (name === 'depositCollateralForBorrows' ? [perpsInstruction(name, a, args), perpsInstruction(name, a, args)] : [perpsInstruction(name, a, args)]));
    const v = await verdict(twice, borrowIntent(), 'perps.depositBorrow');
    expect(details(v)).toMatch(/2 depositCollateralForBorrows instructions; the intent deposits once/);
  });

  it('a borrow-only intent takes a borrow-only transaction', async () => {
    const borrowOnly = altered(built, (name, a, args) => (name === 'depositCollateralForBorrows' ? [] : [perpsInstruction(name, a, args)]));
    expect(await verdict(borrowOnly, borrowIntent({ depositTokenAmount: '0' }), 'perps.depositBorrow')).toMatchObject({ ok: true, violations: [] });
  });
});

