// Ultra swaps as the simulated venue builds them: a real aggregator `route` instruction with the
// taker's own token accounts. The executor's inspector accepts the benign build against the swap
// intent and the build's quote, and refuses each hostile variant of the venue with the rule and a
// one-line detail naming the account or the amount and its bound; variants the venue does not
// build (exact-out and token-ledger routes, foreign mints, AMM accounts) are made from its route.
import { Keypair, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { MINTS } from '../../src/api/mints.ts';
import type { ApiClient } from '../../src/api/client.ts';
import { decodeTransaction, type AggregatorInstruction } from '../../src/chain/decode.ts';
import { encodeAggregatorInstructionData, type AggregatorArgInput } from '../../src/chain/programs/aggregator/codec.ts';
import type { AggregatorInstructionName } from '../../src/chain/programs/aggregator/instructions.ts';
import { AGGREGATOR_LAYOUTS } from '../../src/chain/programs/aggregator/layouts.ts';
import { DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, type PolicyRule, type Verdict } from '../../src/chain/policy/index.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import type { SwapQuote } from '../../src/pipeline/executor/swap-bounds.ts';
import { intentSchema, type Intent } from '../../src/sdk/intent.ts';
import { HOSTILE_SWAP_FACTOR } from '../../src/venue/tx/aggregator-instructions.ts';
import { foreignAccountFor, SWAP_HOSTILE_KINDS, type SwapHostileKind } from '../../src/venue/tx/hostile.ts';
import { tokenAccountOf } from '../../src/venue/tx/perps-instructions.ts';
import { control, fundedWallet, testVenue } from '../venue/venue-fixture.ts';
import type { Venue } from '../../src/venue/venue.ts';

let client: ApiClient;
let venue: Venue;
let close: () => Promise<void>;
let wallet: Keypair;
let address: string;

beforeAll(async () => {
  const started = await testVenue();
  ({ client, close, venue } = started);
  ({ wallet, address } = await fundedWallet(venue));
});

afterAll(async () => {
  await close();
});

const AMOUNT = '1000000000'; // 1 SOL

interface Order {
  readonly base64: string;
  readonly quote: SwapQuote;
  readonly requestId: string;
}

async function order(hostile?: SwapHostileKind, amount = AMOUNT): Promise<Order> {
  await control(venue, 'faults', { operations: { 'ultra.order': hostile ? { hostile } : null } });
  const res = await client.call('ultra.order', { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount, taker: address });
  if (!res.transaction) throw new Error('the venue built no transaction');
  return { base64: res.transaction, quote: { inAmount: res.inAmount, outAmount: res.outAmount }, requestId: res.requestId };
}

function swapIntent(over: Partial<Extract<Intent, { type: 'swap' }>> = {}): Intent {
  return { type: 'swap', key: 'swap:test', reason: 'test', notionalUsd: '150000000', inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: AMOUNT, maxSlippageBps: '100', ...over };
}

function inspector(platformFeeAccount?: string, maxFeeBps?: number): PolicyInspector {
  return new PolicyInspector({ wallet: wallet.publicKey, priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, slippageBps: 50, ultraPlatformFeeAccount: platformFeeAccount, ultraMaxFeeBps: maxFeeBps });
}

async function verdict(tx: string | VersionedTransaction, opts: { intent?: Intent; quote?: SwapQuote; platformFeeAccount?: string; maxFeeBps?: number } = {}): Promise<Verdict> {
  const parsed = typeof tx === 'string' ? VersionedTransaction.deserialize(Buffer.from(tx, 'base64')) : tx;
  const { verdict: v } = await inspector(opts.platformFeeAccount, opts.maxFeeBps).inspectDetailed(parsed, 'intent' in opts ? opts.intent : swapIntent(), { operationId: 'ultra.order', route: 'rpc', swapQuote: opts.quote });
  return v;
}

const rules = (v: Verdict): PolicyRule[] => [...new Set(v.violations.map((x) => x.rule))];

/** The route instruction of a build, decoded. */
async function routeOf(base64: string): Promise<AggregatorInstruction> {
  const decoded = await decodeTransaction(base64);
  const route = decoded.instructions.find((ix) => ix.parsed?.program === 'aggregator')?.parsed;
  if (route?.program !== 'aggregator') throw new Error('no route in the build');
  return route;
}

/** The build with its route replaced by `name` with these accounts by role and arguments (compute budget kept). */
function rebuilt(base64: string, name: AggregatorInstructionName, roles: Record<string, string>, args: Record<string, AggregatorArgInput>, extra: string[] = []): VersionedTransaction {
  const tx = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
  const message = TransactionMessage.decompile(tx.message);
  const keys = AGGREGATOR_LAYOUTS[name].accounts.map((spec) => {
    const pubkey = roles[spec.name] ?? PROGRAMS.aggregator;
    return { pubkey: new PublicKey(pubkey), isSigner: spec.signer && pubkey !== PROGRAMS.aggregator, isWritable: spec.writable && pubkey !== PROGRAMS.aggregator };
  });
  keys.push(...extra.map((a) => ({ pubkey: new PublicKey(a), isSigner: false, isWritable: true })));
  const route = new TransactionInstruction({ programId: new PublicKey(PROGRAMS.aggregator), keys, data: encodeAggregatorInstructionData(name, args) });
  const instructions = message.instructions.map((ix) => (ix.programId.toBase58() === PROGRAMS.aggregator ? route : ix));
  return new VersionedTransaction(new TransactionMessage({ payerKey: message.payerKey, recentBlockhash: message.recentBlockhash, instructions }).compileToV0Message());
}

const PLAN = [{ swap: 'TokenSwap', share: 100, inputIndex: 0, outputIndex: 1 }];

describe('Ultra swaps of the venue: the route, decoded and judged', () => {
  it('the benign build carries a real route with the taker\'s accounts, and passes with the intent and the quote', async () => {
    const built = await order();
    const route = await routeOf(built.base64);
    expect(route.type).toBe('route');
    expect(route.accounts).toMatchObject({
      user_transfer_authority: address,
      user_source_token_account: tokenAccountOf(address, MINTS.SOL),
      user_destination_token_account: tokenAccountOf(address, MINTS.USDC),
      destination_mint: MINTS.USDC,
    });
    expect(route.accounts.platform_fee_account).toBeUndefined();
    expect(route.args).toMatchObject({ in_amount: AMOUNT, quoted_out_amount: built.quote.outAmount, slippage_bps: '50' });
    expect(await verdict(built.base64, { quote: built.quote })).toMatchObject({ ok: true, violations: [] });
    // Two identical orders are two messages: the venue tells them apart by bytes.
    expect((await order()).base64).not.toBe(built.base64);
  });

  const EXPECTED: Record<SwapHostileKind, { rule: PolicyRule; detail: RegExp }> = {
    swap_in_amount: { rule: 'intent_exceeded', detail: new RegExp(`in_amount ${BigInt(AMOUNT) * HOSTILE_SWAP_FACTOR} of mint ${MINTS.SOL} is above the intent's amount ${AMOUNT}`) },
    swap_min_out: { rule: 'intent_exceeded', detail: /settles for 1 of mint .* \(quoted_out_amount 1 less slippage_bps 0\), below \d+, the quote's \d+ less 100 bps/ },
    swap_foreign_destination: { rule: 'product_account', detail: /destination_token_account \w+ is neither the wallet nor its associated token account of mint EPjF\w+: the output would go to someone else/ },
    swap_foreign_platform_fee: { rule: 'product_account', detail: /platform_fee_account \w+ is not the configured one \(none configured\)/ },
    aggregator_unknown_instruction: { rule: 'product_instruction', detail: /carries an instruction of the aggregator program with discriminator [0-9a-f]{16}, none stratd knows/ },
  };

  for (const kind of SWAP_HOSTILE_KINDS) {
    it(`refuses the hostile variant ${kind} with ${EXPECTED[kind].rule}`, async () => {
      const built = await order(kind);
      const v = await verdict(built.base64, { quote: built.quote });
      expect(v.ok).toBe(false);
      expect(rules(v)).toEqual([EXPECTED[kind].rule]);
      expect(v.violations.map((x) => x.detail).join('\n')).toMatch(EXPECTED[kind].detail);
    });
  }

  it('the configured platform fee account is the one a route may name', async () => {
    const built = await order('swap_foreign_platform_fee');
    const fee = tokenAccountOf(foreignAccountFor(built.requestId).toBase58(), MINTS.USDC);
    expect(await verdict(built.base64, { quote: built.quote, platformFeeAccount: fee })).toMatchObject({ ok: true });
    expect(rules(await verdict(built.base64, { quote: built.quote, platformFeeAccount: Keypair.generate().publicKey.toBase58() }))).toEqual(['product_account']);
  });

  it('binds the route to the intent: its amount, its mints, a quote for its amount', async () => {
    const built = await order();
    const less = await verdict(built.base64, { quote: built.quote, intent: swapIntent({ amount: '999999999' }) });
    expect(rules(less)).toEqual(['intent_exceeded']);
    expect(less.violations.map((x) => x.detail).join('\n')).toMatch(/in_amount 1000000000 of mint So1\w+ is above the intent's amount 999999999/);
    const otherOut = await verdict(built.base64, { quote: built.quote, intent: swapIntent({ outputMint: MINTS.USDT }) });
    expect(rules(otherOut)).toEqual(['product_account']);
    expect(otherOut.violations.map((x) => x.detail).join('\n')).toMatch(/destination_mint is EPjF\w+; the intent buys Es9v/);
    // The quote is the only bound on the minimum out: without one, or for another amount, no signature.
    for (const quote of [undefined, { inAmount: '1', outAmount: built.quote.outAmount }]) {
      const v = await verdict(built.base64, { quote });
      expect(rules(v)).toEqual(['intent_exceeded']);
      expect(v.violations[0]?.detail).toMatch(/no quote is known to bound the minimum out of mint EPjF/);
    }
    // A tighter slippage than the route's own 50 bps: its minimum out is below the bound.
    expect(rules(await verdict(built.base64, { quote: built.quote, intent: swapIntent({ maxSlippageBps: '10' }) }))).toEqual(['intent_exceeded']);
    // No intent: nothing of the wallet's may move, so the route's input is refused.
    const none = await verdict(built.base64, { intent: undefined });
    expect(none.violations.map((x) => x.detail).join('\n')).toMatch(/moves 1000000000 of mint So1\w+, which the intent does not name/);
  });

  it("the intent's own minOutAmount: the bound is the larger of it and the quote's floor, so a quote of 1 unit bounds nothing below it", async () => {
    const built = await order();
    const route = await routeOf(built.base64);
    // A token no snapshot prices (a fresh launch): a hostile order quotes 1 unit out for 1 SOL.
    const token = Keypair.generate().publicKey.toBase58();
    const roles = { ...route.accounts, user_destination_token_account: tokenAccountOf(address, token), destination_mint: token };
    const oneUnit = rebuilt(built.base64, 'route', roles, { route_plan: PLAN, in_amount: BigInt(AMOUNT), quoted_out_amount: 1n, slippage_bps: 0, platform_fee_bps: 0 }, [...route.extraAccounts]);
    const hostileQuote = { inAmount: AMOUNT, outAmount: '1' };
    const v = await verdict(oneUnit, { quote: hostileQuote, intent: swapIntent({ outputMint: token, minOutAmount: '5000000' }) });
    expect(rules(v)).toEqual(['intent_exceeded']);
    expect(v.violations[0]?.detail).toMatch(/settles for 1 of mint \w+ \(quoted_out_amount 1 less slippage_bps 0\), below 5000000, the intent's minOutAmount/);
    // The floor alone bounds a route (no quote needed for it); a route keeping it passes.
    const keeps = rebuilt(built.base64, 'route', roles, { route_plan: PLAN, in_amount: BigInt(AMOUNT), quoted_out_amount: 5_000_000n, slippage_bps: 0, platform_fee_bps: 0 }, [...route.extraAccounts]);
    expect(await verdict(keeps, { intent: swapIntent({ outputMint: token, minOutAmount: '5000000' }) })).toMatchObject({ ok: true });
    // Below the quote's floor the quote still binds: the larger of both.
    const low = await verdict(built.base64, { quote: { inAmount: AMOUNT, outAmount: String(BigInt(built.quote.outAmount) * 2n) }, intent: swapIntent({ minOutAmount: '1' }) });
    expect(rules(low)).toEqual(['intent_exceeded']);
  });

  it('a slippage of 10,000 bps or more keeps nothing of the quote: refused, not bounded at 0', async () => {
    const built = await order();
    const route = await routeOf(built.base64);
    const zeroFloor = rebuilt(built.base64, 'route', route.accounts, { route_plan: PLAN, in_amount: BigInt(AMOUNT), quoted_out_amount: BigInt(built.quote.outAmount), slippage_bps: 10_000, platform_fee_bps: 0 }, [...route.extraAccounts]);
    // execution.slippageBps at its ceiling, an intent naming none (the intent's own field stops at 9999).
    const wide = new PolicyInspector({ wallet: wallet.publicKey, priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, slippageBps: 10_000 });
    const { verdict: v } = await wide.inspectDetailed(zeroFloor, swapIntent({ maxSlippageBps: undefined }), { operationId: 'ultra.order', route: 'rpc', swapQuote: built.quote });
    expect(rules(v)).toEqual(['intent_exceeded']);
    expect(v.violations[0]?.detail).toMatch(/nothing bounds the minimum out of mint EPjF\w+: a slippage of 10000 bps keeps nothing of the quote/);
    expect(intentSchema.safeParse(swapIntent({ maxSlippageBps: '10000' })).success).toBe(false);
    expect(intentSchema.safeParse(swapIntent({ maxSlippageBps: '9999' })).success).toBe(true);
  });

  it('exact-out routes: the most they may take (quoted in plus slippage) within the intent\'s amount, the exact out above the bound', async () => {
    const built = await order();
    const route = await routeOf(built.base64);
    const roles = { ...route.accounts, source_mint: MINTS.SOL };
    const out = BigInt(built.quote.outAmount);
    const within = rebuilt(built.base64, 'exact_out_route', roles, { route_plan: PLAN, out_amount: out, quoted_in_amount: 990_000_000n, slippage_bps: 100, platform_fee_bps: 0 });
    expect(await verdict(within, { quote: built.quote })).toMatchObject({ ok: true });
    const above = rebuilt(built.base64, 'exact_out_route', roles, { route_plan: PLAN, out_amount: out, quoted_in_amount: 999_000_000n, slippage_bps: 200, platform_fee_bps: 0 });
    const v = await verdict(above, { quote: built.quote });
    expect(rules(v)).toContain('intent_exceeded');
    expect(v.violations.map((x) => x.detail).join('\n')).toMatch(/quoted_in_amount 999000000 plus slippage_bps 200 may take 1018980000 of mint So1\w+, above the intent's amount 1000000000/);
    const short = rebuilt(built.base64, 'exact_out_route', roles, { route_plan: PLAN, out_amount: 1n, quoted_in_amount: 990_000_000n, slippage_bps: 0, platform_fee_bps: 0 });
    expect((await verdict(short, { quote: built.quote })).violations.map((x) => x.detail).join('\n')).toMatch(/settles for 1 of mint EPjF\w+ \(out_amount 1\)/);
  });

  it('route_v2 is judged as route; a token-ledger route (its input is no argument) is refused', async () => {
    const built = await order();
    const route = await routeOf(built.base64);
    const v2Roles = { ...route.accounts, source_mint: MINTS.SOL, source_token_program: PROGRAMS.token, destination_token_program: PROGRAMS.token, event_authority: 'D8cy77BBepLMngZx6ZukaTff5hCt1HrWyKk3Hnd9oitf', program: PROGRAMS.aggregator };
    const v2 = rebuilt(built.base64, 'route_v2', v2Roles, { in_amount: BigInt(AMOUNT), quoted_out_amount: BigInt(built.quote.outAmount), slippage_bps: 50, platform_fee_bps: 0, positive_slippage_bps: 0, route_plan: PLAN.map((s) => ({ ...s, share: 10_000 })) });
    expect(await verdict(v2, { quote: built.quote })).toMatchObject({ ok: true });
    const badProgram = rebuilt(built.base64, 'route_v2', { ...v2Roles, source_token_program: Keypair.generate().publicKey.toBase58() }, { in_amount: BigInt(AMOUNT), quoted_out_amount: BigInt(built.quote.outAmount), slippage_bps: 50, platform_fee_bps: 0, positive_slippage_bps: 0, route_plan: PLAN });
    expect((await verdict(badProgram, { quote: built.quote })).violations.map((x) => x.detail).join('\n')).toMatch(/source_token_program is \w+, expected TokenkegQ/);
    const ledger = rebuilt(built.base64, 'route_with_token_ledger', { ...route.accounts, token_ledger: Keypair.generate().publicKey.toBase58() }, { route_plan: PLAN, quoted_out_amount: BigInt(built.quote.outAmount), slippage_bps: 50, platform_fee_bps: 0 });
    expect((await verdict(ledger, { quote: built.quote })).violations.map((x) => x.detail).join('\n')).toMatch(/whatever the token ledger records/);
  });

  it("fees: a route naming no platform fee account (every v2 route) takes at most the service's own fee (execution.ultraMaxFeeBps), no positive slippage; a v1 route naming the configured account may take its fee", async () => {
    const built = await order();
    const route = await routeOf(built.base64);
    const thief = Keypair.generate().publicKey.toBase58();
    const thiefFee = tokenAccountOf(thief, MINTS.USDC);
    const out = BigInt(built.quote.outAmount);
    const v2Roles = { ...route.accounts, source_mint: MINTS.SOL, source_token_program: PROGRAMS.token, destination_token_program: PROGRAMS.token, event_authority: 'D8cy77BBepLMngZx6ZukaTff5hCt1HrWyKk3Hnd9oitf', program: PROGRAMS.aggregator };
    const v2 = (fees: { platform_fee_bps: number; positive_slippage_bps: number }) =>
      rebuilt(built.base64, 'route_v2', v2Roles, { in_amount: BigInt(AMOUNT), quoted_out_amount: out, slippage_bps: 50, ...fees, route_plan: PLAN.map((s) => ({ ...s, share: 10_000 })) }, [...route.extraAccounts, thiefFee]);
    // The largest fee and all positive slippage to an account among the AMM accounts: refused,
    // whether or not a fee account is configured (a v2 route cannot name it).
    for (const platformFeeAccount of [undefined, thiefFee]) {
      const v = await verdict(v2({ platform_fee_bps: 65_535, positive_slippage_bps: 10_000 }), { quote: built.quote, platformFeeAccount, maxFeeBps: 10 });
      expect(rules(v)).toEqual(['intent_exceeded']);
      const details = v.violations.map((x) => x.detail).join('\n');
      expect(details).toMatch(/platform_fee_bps 65535 takes more than the 10 bps allowed/);
      expect(details).toMatch(/positive_slippage_bps 10000 takes a fee/);
    }
    expect(rules(await verdict(v2({ platform_fee_bps: 0, positive_slippage_bps: 1 }), { quote: built.quote, maxFeeBps: 10 }))).toEqual(['intent_exceeded']);
    expect(await verdict(v2({ platform_fee_bps: 0, positive_slippage_bps: 0 }), { quote: built.quote })).toMatchObject({ ok: true });
    // The service's own fee, as the published orders carry it (feeBps 2 to 10): up to the configured cap, not one bps more.
    expect(await verdict(v2({ platform_fee_bps: 10, positive_slippage_bps: 0 }), { quote: built.quote, maxFeeBps: 10 })).toMatchObject({ ok: true });
    expect(rules(await verdict(v2({ platform_fee_bps: 11, positive_slippage_bps: 0 }), { quote: built.quote, maxFeeBps: 10 }))).toEqual(['intent_exceeded']);
    expect(rules(await verdict(v2({ platform_fee_bps: 2, positive_slippage_bps: 0 }), { quote: built.quote }))).toEqual(['intent_exceeded']);
    // And never more than the order's own disclosed feeBps (which its quote counts): 50 bps of a new token, 2 of SOL-USDC.
    expect(await verdict(v2({ platform_fee_bps: 50, positive_slippage_bps: 0 }), { quote: { ...built.quote, feeBps: 50 }, maxFeeBps: 50 })).toMatchObject({ ok: true });
    expect(await verdict(v2({ platform_fee_bps: 2, positive_slippage_bps: 0 }), { quote: { ...built.quote, feeBps: 2 }, maxFeeBps: 50 })).toMatchObject({ ok: true });
    // By default the disclosure is trusted to 10 bps: an order that says 50 (or nothing) on any pair takes no more.
    const defaultCap = loadConfig({ env: {} }).config.execution.ultraMaxFeeBps;
    expect(rules(await verdict(v2({ platform_fee_bps: 50, positive_slippage_bps: 0 }), { quote: { ...built.quote, feeBps: 50 }, maxFeeBps: defaultCap }))).toEqual(['intent_exceeded']);
    expect(rules(await verdict(v2({ platform_fee_bps: 11, positive_slippage_bps: 0 }), { quote: built.quote, maxFeeBps: defaultCap }))).toEqual(['intent_exceeded']);
    const undisclosed = await verdict(v2({ platform_fee_bps: 5, positive_slippage_bps: 0 }), { quote: { ...built.quote, feeBps: 2 }, maxFeeBps: 50 });
    expect(undisclosed.violations.map((x) => x.detail).join('\n')).toMatch(/platform_fee_bps 5 takes more than/);
    // v1 without a fee account: no fee either; with the configured one named, its fee is allowed.
    const v1 = (roles: Record<string, string>) => rebuilt(built.base64, 'route', roles, { route_plan: PLAN, in_amount: BigInt(AMOUNT), quoted_out_amount: out, slippage_bps: 50, platform_fee_bps: 255 }, [...route.extraAccounts]);
    const unnamed = await verdict(v1(route.accounts), { quote: built.quote });
    expect(rules(unnamed)).toEqual(['intent_exceeded']);
    expect(unnamed.violations[0]?.detail).toMatch(/platform_fee_bps 255 takes more than the 0 bps allowed/);
    expect(await verdict(v1({ ...route.accounts, platform_fee_account: thiefFee }), { quote: built.quote, platformFeeAccount: thiefFee })).toMatchObject({ ok: true });
  });

  it('the route\'s own accounts: the wallet as authority, its input account, no other token account of the wallet among the AMM accounts', async () => {
    const built = await order();
    const route = await routeOf(built.base64);
    const args = { route_plan: PLAN, in_amount: BigInt(AMOUNT), quoted_out_amount: BigInt(built.quote.outAmount), slippage_bps: 50, platform_fee_bps: 0 };
    const foreignSource = rebuilt(built.base64, 'route', { ...route.accounts, user_source_token_account: tokenAccountOf(address, MINTS.USDT) }, args);
    expect((await verdict(foreignSource, { quote: built.quote })).violations.map((x) => x.detail).join('\n')).toMatch(/user_source_token_account \w+ is not the wallet's associated token account of mint So1/);
    const stranger = Keypair.generate().publicKey.toBase58();
    const foreignAuthority = rebuilt(built.base64, 'route', { ...route.accounts, user_transfer_authority: stranger }, args);
    expect((await verdict(foreignAuthority, { quote: built.quote })).violations.map((x) => x.detail).join('\n')).toMatch(new RegExp(`user_transfer_authority is ${stranger}, not the wallet`));
    const usdtAta = tokenAccountOf(address, MINTS.USDT);
    const sweeps = rebuilt(built.base64, 'route', route.accounts, args, [...route.extraAccounts, usdtAta]);
    const v = await verdict(sweeps, { quote: built.quote });
    expect(rules(v)).toEqual(['product_account']);
    expect(v.violations[0]?.detail).toContain(`hands the wallet's token account ${usdtAta} to the AMMs`);
  });

  it('one route per swap', async () => {
    const built = await order();
    const tx = VersionedTransaction.deserialize(Buffer.from(built.base64, 'base64'));
    const message = TransactionMessage.decompile(tx.message);
    const route = message.instructions.find((ix) => ix.programId.toBase58() === PROGRAMS.aggregator)!;
    const twice = new VersionedTransaction(new TransactionMessage({ payerKey: message.payerKey, recentBlockhash: message.recentBlockhash, instructions: [...message.instructions, route] }).compileToV0Message());
    const v = await verdict(twice, { quote: built.quote });
    expect(v.violations.map((x) => x.detail)).toContain('2 aggregator routes in one swap; the intent asks for one');
  });

  it('a route whose data does not decode is malformed, never judged on a guess', async () => {
    const built = await order();
    const tx = VersionedTransaction.deserialize(Buffer.from(built.base64, 'base64'));
    const ix = tx.message.compiledInstructions.find((c) => tx.message.staticAccountKeys[c.programIdIndex]?.toBase58() === PROGRAMS.aggregator)!;
    ix.data = ix.data.subarray(0, ix.data.length - 1);
    const v = await verdict(tx, { quote: built.quote });
    expect(v.violations.find((x) => x.rule === 'malformed')?.detail).toMatch(/instruction \d \(aggregator\): route: arguments do not decode/);
    // An account index past the message's accounts: malformed, and the route is not judged by role.
    const tx2 = VersionedTransaction.deserialize(Buffer.from(built.base64, 'base64'));
    const ix2 = tx2.message.compiledInstructions.find((c) => tx2.message.staticAccountKeys[c.programIdIndex]?.toBase58() === PROGRAMS.aggregator)!;
    ix2.accountKeyIndexes = [...ix2.accountKeyIndexes.slice(0, -1), 200];
    const v2 = await verdict(tx2, { quote: built.quote });
    expect(v2.ok).toBe(false);
    expect(v2.violations.find((x) => x.rule === 'malformed')?.detail).toMatch(/account index 200 is out of range/);
  });
});

/** The venue's benign swap with these instructions added after its route. */
async function withExtra(extra: (wallet: PublicKey) => Promise<TransactionInstruction[]>): Promise<{ tx: VersionedTransaction; quote: SwapQuote }> {
  const built = await order();
  const message = TransactionMessage.decompile(VersionedTransaction.deserialize(Buffer.from(built.base64, 'base64')).message);
  const instructions = [...message.instructions, ...(await extra(wallet.publicKey))];
  return { tx: new VersionedTransaction(new TransactionMessage({ payerKey: message.payerKey, recentBlockhash: message.recentBlockhash, instructions }).compileToV0Message()), quote: built.quote };
}

/** SPL Token InitializeAccount3: [account (w), mint], data 18 + owner. */
function initializeAccount3(account: PublicKey, mint: PublicKey, owner: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(PROGRAMS.token),
    keys: [{ pubkey: account, isSigner: false, isWritable: true }, { pubkey: mint, isSigner: false, isWritable: false }],
    data: Buffer.concat([Buffer.from([18]), owner.toBuffer()]),
  });
}

describe('System instructions a swap does not explain', () => {
  const thief = new PublicKey(PROGRAMS.perps);
  const seed = 'stratd-swap';
  const cases: Array<[string, (w: PublicKey) => Promise<TransactionInstruction[]>, RegExp]> = [
    ['allocate on the wallet', async (w) => [SystemProgram.allocate({ accountPubkey: w, space: 64 })], /System allocate allocates 64 bytes in the wallet account; no operation explains it/],
    ['assign of the wallet', async (w) => [SystemProgram.assign({ accountPubkey: w, programId: thief })], /System assign gives the wallet account to program PERPH/],
    [
      'allocateWithSeed on an account derived from the wallet',
      async (w) => {
        const derived = await PublicKey.createWithSeed(w, seed, thief);
        return [SystemProgram.allocate({ accountPubkey: derived, basePubkey: w, seed, space: 64, programId: thief })];
      },
      /System allocateWithSeed allocates 64 bytes in \w+ \(derived from the wallet with seed "stratd-swap"\)/,
    ],
    [
      'assignWithSeed of an account derived from the wallet',
      async (w) => {
        const derived = await PublicKey.createWithSeed(w, seed, thief);
        return [SystemProgram.assign({ accountPubkey: derived, basePubkey: w, seed, programId: thief })];
      },
      /System assignWithSeed gives \w+ \(derived from the wallet with seed "stratd-swap"\) to program PERPH/,
    ],
  ];
  for (const [name, extra, detail] of cases) {
    it(`refuses ${name} (authority_change)`, async () => {
      const { tx, quote } = await withExtra(extra);
      const v = await verdict(tx, { quote });
      expect(rules(v)).toEqual(['authority_change']);
      expect(v.violations[0]?.detail).toMatch(detail);
    });
  }

  it('a token account the wallet creates with a seed and initializes for itself stays allowed', async () => {
    const { tx, quote } = await withExtra(async (w) => {
      const account = await PublicKey.createWithSeed(w, seed, new PublicKey(PROGRAMS.token));
      return [
        SystemProgram.createAccountWithSeed({ fromPubkey: w, newAccountPubkey: account, basePubkey: w, seed, lamports: 2_039_280, space: 165, programId: new PublicKey(PROGRAMS.token) }),
        initializeAccount3(account, new PublicKey(MINTS.SOL), w),
      ];
    });
    expect(await verdict(tx, { quote })).toMatchObject({ ok: true, violations: [] });
  });

  it('refuses an assign of an account the transaction creates with the wallet\'s lamports', async () => {
    const fresh = Keypair.generate();
    const { tx, quote } = await withExtra(async (w) => [
      SystemProgram.createAccount({ fromPubkey: w, newAccountPubkey: fresh.publicKey, lamports: 2_039_280, space: 165, programId: SystemProgram.programId }),
      SystemProgram.assign({ accountPubkey: fresh.publicKey, programId: thief }),
    ]);
    const v = await verdict(tx, { quote });
    expect(v.violations.map((x) => x.detail).join('\n')).toMatch(/System assign gives \w+ \(created with the wallet's lamports\) to program PERPH/);
  });
});
