// Perps transactions as the simulated venue builds them for every write operation: they carry the
// program's real instructions (decoded here with layouts built from the IDL alone), the signing
// policy accepts each one with the roles it expects, and refuses hostile variants made from them
// with web3.js. Each hostile variant is refused by the executor's inspector and by `stratd tx inspect`.
import { AddressLookupTableProgram, Connection, Keypair, PublicKey, TransactionMessage, VersionedTransaction, type AddressLookupTableAccount } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { ApiClient } from '../../src/api/client.ts';
import type { OperationId } from '../../src/api/registry.ts';
import { decodeTransaction, LookupTableUnavailable, rpcLookupTableResolver, staticLookupTableResolver } from '../../src/chain/decode.ts';
import { perpsPositionAddress } from '../../src/chain/programs/perps/addresses.ts';
import { encodePerpsInstructionData } from '../../src/chain/programs/perps/codec.ts';
import { DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, inspectTransaction, mintAccountData, rpcAccountReader, type ChainAccount, type PolicyRule } from '../../src/chain/policy/index.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../src/chain/programs.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import type { DecreaseIntent } from '../../src/sdk/intent.ts';
import { perpsInstruction, tokenAccountOf } from '../../src/venue/tx/perps-instructions.ts';
import { runCli } from '../support/cli.ts';
import { venueMarkPrice } from '../support/venue-mark-price.ts';
import { decodeWithIdl, perpsIdlAvailable } from '../support/perps-idl.ts';
import { needsShared } from '../support/shared-data.ts';
import { control, fundedWallet, sign, testVenue, type FundedPosition } from '../venue/venue-fixture.ts';
import { lookupTable, lookupTableAccountData, randomKey } from './fixtures.ts';
import { serveAccounts, type FakeChain } from './support/hostile-from-venue.ts';

// The IDL cross-checks (live instruction names and account roles) need the perps IDL, which is
// kept beside the checkout, not in it; the policy assertions run either way.
if (!perpsIdlAvailable()) console.warn(`policy-perps-venue: IDL cross-checks ${needsShared('idl')}`);

let client: ApiClient;
let close: () => Promise<void>;
let wallet: Keypair;
let address: string;
let solLong: FundedPosition;
let ethShort: FundedPosition;
let venueControl: (share: number) => Promise<unknown>;

beforeAll(async () => {
  const started = await testVenue();
  ({ client, close } = started);
  const funded = await fundedWallet(started.venue, {
    positions: [
      { market: 'SOL', side: 'long', leverage: '5', collateralUsd: '200000000' },
      { market: 'ETH', side: 'short', leverage: '3', collateralUsd: '300000000' },
    ],
    tokens: { [MINTS.JLP]: '50000000' },
  });
  ({ wallet, address } = funded);
  [solLong, ethShort] = funded.positions as [FundedPosition, FundedPosition];
  venueControl = (share) => control(started.venue, 'faults', { decreaseInstantShare: share });
});

afterAll(async () => {
  await close();
});

interface Built {
  readonly operationId: OperationId;
  readonly base64: string;
  readonly instant: boolean;
  readonly blockhash?: string;
}

function perpsIxs(base64: string): Array<{ data: Uint8Array; keys: string[] }> {
  const tx = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
  const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
  return tx.message.compiledInstructions.filter((ix) => keys[ix.programIdIndex] === PROGRAMS.perps).map((ix) => ({ data: ix.data, keys: ix.accountKeyIndexes.map((i) => keys[i] as string) }));
}

async function verdict(built: Built, intent?: DecreaseIntent) {
  const ctx = { wallet: wallet.publicKey, operationId: built.operationId, transactionType: built.instant ? ('instant' as const) : ('legacy' as const), priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS };
  if (intent) {
    const inspector = new PolicyInspector({ wallet: wallet.publicKey, priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, markPrice: venueMarkPrice(client, address), priceDriftBps: 300 });
    const record = { intent } as ActionRecord;
    const tx = VersionedTransaction.deserialize(Buffer.from(built.base64, 'base64'));
    return inspector.inspect(tx, record, { operationId: built.operationId, route: built.instant ? 'perps-execute' : 'rpc', positionPubkey: intent.positionPubkey });
  }
  return inspectTransaction(await decodeTransaction(built.base64), ctx);
}

const decreaseIntent = (positionPubkey: string, sizeUsdDelta: string): DecreaseIntent => ({
  type: 'decrease', key: `decrease:${positionPubkey}`, reason: 'test', notionalUsd: sizeUsdDelta, positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta,
});

async function buildDecrease(instant: boolean, positionPubkey = solLong.positionPubkey, sizeUsdDelta = '100000000'): Promise<Built & { requestPubkey: string | null }> {
  await venueControl(instant ? 1 : 0);
  const res = await client.call('perps.decrease', { positionPubkey, receiveToken: 'USDC', sizeUsdDelta });
  return { operationId: 'perps.decrease', base64: res.serializedTxBase64, instant: res.transactionType === 'instant', requestPubkey: res.positionRequestPubkey ?? null };
}

describe('the venue builds the perps program instructions, and the policy accepts them', () => {
  it('perps.decrease: legacy request and instant variant, with the executor intent', async () => {
    for (const instant of [false, true]) {
      const built = await buildDecrease(instant);
      expect(built.instant).toBe(instant);
      const [ix] = perpsIxs(built.base64);
      if (perpsIdlAvailable()) {
        const decoded = decodeWithIdl(ix!.data, ix!.keys);
        expect(decoded?.name).toBe(instant ? 'instantDecreasePosition' : 'createDecreasePositionMarketRequest');
        expect(decoded?.accounts).toMatchObject({ owner: address, receivingAccount: tokenAccountOf(address, MINTS.USDC), position: solLong.positionPubkey, desiredMint: MINTS.USDC });
        expect(decoded?.args.sizeUsdDelta).toBe('100000000');
        // The request the API names is the account the instruction creates.
        if (!instant) expect(decoded?.accounts.positionRequest).toBe(built.requestPubkey);
      }
      expect(await verdict(built, decreaseIntent(solLong.positionPubkey, '100000000'))).toMatchObject({ ok: true, violations: [] });
    }
  });

  it('every other write operation, legacy and instant', async () => {
    const increase = async (transactionType: 'legacy' | 'instant') => {
      const res = await client.call('perps.increase', {
        inputMint: MINTS.SOL, collateralMint: MINTS.SOL, marketMint: MINTS.SOL, side: 'long', collateralTokenDelta: '1000000000', leverage: '3', maxSlippageBps: '100',
        walletAddress: address, transactionType, tpsl: transactionType === 'instant' ? [{ desiredMint: MINTS.SOL, triggerPrice: '400000000', requestType: 'tp' }] : null,
      });
      return { built: { operationId: 'perps.increase' as const, base64: res.serializedTxBase64 as string, instant: res.transactionType === 'instant' }, request: res.positionRequestPubkey, tpsl: res.tpslRequests };
    };
    const legacyIncrease = await increase('legacy');
    const instantIncrease = await increase('instant');
    const tpsl = async (transactionType: 'legacy' | 'instant') => {
      const res = await client.call('perps.createTpsl', {
        owner: address, positionPubkey: ethShort.positionPubkey, transactionType,
        tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '0', entirePosition: true, triggerPrice: '1000000000', requestType: 'tp' }],
      });
      return { operationId: 'perps.createTpsl' as const, base64: res.serializedTxBase64, instant: res.transactionType === 'instant', tpslPubkeys: res.tpslPubkeys };
    };
    const legacyTpsl = await tpsl('legacy');
    const instantTpsl = await tpsl('instant');
    await client.call('perps.execute', { action: 'create-tpsl', serializedTxBase64: sign(instantTpsl.base64, wallet) });
    const update = await client.call('perps.updateTpslWithFee', { tpslPubkey: instantTpsl.tpslPubkeys[0] as string, triggerPrice: '1100000000', feeToken: 'USDC', feeTokenAmount: '500000', feeReceiver: address });
    const lp = await client.call('perps.lpMint', { depositToken: 'USDC', depositTokenAmount: '100000000', walletAddress: address });
    const borrow = await client.call('perps.depositBorrow', { walletAddress: address, depositTokenAmount: '25000000', borrowTokenAmount: '20000000' });
    const cases: Array<[Built, string[]]> = [
      [legacyIncrease.built, ['createIncreasePositionMarketRequest']],
      [instantIncrease.built, ['instantIncreasePosition', 'instantCreateTpsl']],
      [legacyTpsl, ['createDecreasePositionRequest2']],
      [instantTpsl, ['instantCreateTpsl']],
      [{ operationId: 'perps.updateTpslWithFee', base64: update.serializedTxBase64, instant: true }, ['instantUpdateTpsl']],
      [{ operationId: 'perps.lpMint', base64: lp.serializedTxBase64 as string, instant: false }, ['addLiquidity2']],
      [{ operationId: 'perps.depositBorrow', base64: borrow.serializedTxBase64 as string, instant: false }, ['depositCollateralForBorrows', 'borrowFromCustody']],
    ];
    for (const [built, names] of cases) {
      if (perpsIdlAvailable()) {
        const decoded = perpsIxs(built.base64).map((ix) => decodeWithIdl(ix.data, ix.keys));
        expect(decoded.map((d) => d?.name), built.operationId).toEqual(names);
        for (const d of decoded) expect(d?.accounts.owner).toBe(address);
      }
      expect(await verdict(built), `${built.operationId} ${names.join()}`).toMatchObject({ ok: true, violations: [] });
    }
    if (perpsIdlAvailable()) {
      const [legacyIx] = perpsIxs(legacyIncrease.built.base64);
      expect(decodeWithIdl(legacyIx!.data, legacyIx!.keys)?.accounts.positionRequest).toBe(legacyIncrease.request);
      const tpslIx = perpsIxs(instantIncrease.built.base64)[1];
      expect(decodeWithIdl(tpslIx!.data, tpslIx!.keys)?.accounts.positionRequest).toBe(instantIncrease.tpsl?.[0]?.positionRequestPubkey);
    }
  });
});

/** Rebuilds a venue transaction with web3.js after `change` edits its instructions. */
function tamper(base64: string, change: (ixs: TransactionMessage['instructions']) => void, tables: AddressLookupTableAccount[] = []): string {
  const tx = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
  const message = TransactionMessage.decompile(tx.message);
  change(message.instructions);
  return Buffer.from(new VersionedTransaction(message.compileToV0Message(tables)).serialize()).toString('base64');
}

function perpsIx(ixs: TransactionMessage['instructions']) {
  const ix = ixs.find((i) => i.programId.toBase58() === PROGRAMS.perps);
  if (!ix) throw new Error('no perps instruction');
  return ix;
}

describe('hostile variants of a real venue decrease', () => {
  const thief = randomKey();
  const tableKey = randomKey();
  const staleKey = randomKey();
  let chain: FakeChain;
  let rpcUrl = '';
  /** The executor's inspector as the daemon wires it: tables and chain facts through the RPC. */
  const executorInspector = () => {
    const connection = new Connection(rpcUrl, 'confirmed');
    return new PolicyInspector({
      wallet: wallet.publicKey,
      priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS,
      resolveLookupTable: rpcLookupTableResolver(connection),
      readAccounts: rpcAccountReader(connection),
      markPrice: async () => mark,
      priceDriftBps: 300,
    });
  };
  let legacy: Built;
  /** The position's mark when the build was made: what the daemon's latest positions snapshot would hold. */
  let mark: bigint | undefined;
  const variants: Array<{ name: string; rule: PolicyRule; base64: string; detail?: string }> = [];
  /** The decrease naming a table extended in the slot the RPC answers for: provable only later. */
  let tooNew = '';

  beforeAll(async () => {
    legacy = await buildDecrease(false);
    mark = await venueMarkPrice(client, address)(solLong.positionPubkey);
    const receiving = tokenAccountOf(address, MINTS.USDC);
    const replaceRole = (index: number, key: PublicKey) => (ixs: TransactionMessage['instructions']) => {
      const ix = perpsIx(ixs);
      ix.keys[index] = { ...ix.keys[index]!, pubkey: key };
    };
    const hiding = lookupTable(tableKey, [new PublicKey(receiving)]);
    const stale = lookupTable(staleKey, [new PublicKey(PERPS_ACCOUNTS.pool)]);
    variants.push(
      { name: 'wrong owner', rule: 'product_account', base64: tamper(legacy.base64, replaceRole(0, thief)) },
      { name: 'foreign receivingAccount', rule: 'product_account', base64: tamper(legacy.base64, replaceRole(1, new PublicKey(tokenAccountOf(thief.toBase58(), MINTS.USDC)))) },
      { name: 'position not derived from the wallet', rule: 'product_account', base64: tamper(legacy.base64, replaceRole(4, new PublicKey(perpsPositionAddress(thief.toBase58(), PERPS_ACCOUNTS.custody.SOL, PERPS_ACCOUNTS.custody.SOL, 'long')))) },
      { name: 'request not derived from the position', rule: 'product_account', detail: 'is not derived from the position', base64: tamper(legacy.base64, replaceRole(5, thief)) },
      {
        name: 'request not derived from the position, with that request\'s own escrow', rule: 'product_account', detail: 'is not derived from the position',
        base64: tamper(legacy.base64, (ixs) => {
          replaceRole(5, thief)(ixs);
          replaceRole(6, new PublicKey(tokenAccountOf(thief.toBase58(), MINTS.USDC)))(ixs);
        }),
      },
      { name: "escrow not the request's token account", rule: 'product_account', detail: "is not the request's token account", base64: tamper(legacy.base64, replaceRole(6, new PublicKey(tokenAccountOf(thief.toBase58(), MINTS.USDC)))) },
      {
        name: 'size beyond the intent', rule: 'intent_exceeded', base64: tamper(legacy.base64, (ixs) => {
          const ix = perpsIx(ixs);
          const counter = ix.data.readBigUInt64LE(ix.data.length - 8);
          ix.data = encodePerpsInstructionData('createDecreasePositionMarketRequest', {
            collateralUsdDelta: 0n, sizeUsdDelta: 900_000_000n, priceSlippage: ix.data.readBigUInt64LE(24), jupiterMinimumOut: null, entirePosition: false, counter,
          });
        }),
      },
      {
        name: 'a decrease that accepts any price (priceSlippage 0 on a long)', rule: 'intent_exceeded', base64: tamper(legacy.base64, (ixs) => {
          perpsIx(ixs).data.writeBigUInt64LE(0n, 24);
        }),
      },
      {
        name: 'an instruction off the allow-list', rule: 'product_instruction', base64: tamper(legacy.base64, (ixs) => {
          ixs.push(perpsInstruction('withdrawCollateralForBorrows', {
            owner: address, perpetuals: thief.toBase58(), pool: PERPS_ACCOUNTS.pool, custody: PERPS_ACCOUNTS.custody.USDC, transferAuthority: thief.toBase58(), borrowPosition: thief.toBase58(),
            collateralTokenAccount: thief.toBase58(), userTokenAccount: tokenAccountOf(address, MINTS.JLP), lpTokenMint: MINTS.JLP, tokenProgram: PROGRAMS.token, eventAuthority: PERPS_ACCOUNTS.eventAuthority, program: PROGRAMS.perps,
          }, { amount: 50_000_000n }));
        }),
      },
      { name: "the wallet's token account hidden in a lookup table", rule: 'lookup_table', base64: tamper(legacy.base64, () => undefined, [hiding]) },
    );
    tooNew = tamper(legacy.base64, () => undefined, [stale]);
    // The fake chain answers for slot 1: the stale table was extended in that very slot.
    const accounts = new Map<string, ChainAccount>([
      [tableKey.toBase58(), { owner: AddressLookupTableProgram.programId.toBase58(), data: lookupTableAccountData(hiding.state.addresses, { lastExtendedSlot: 0n }) }],
      [staleKey.toBase58(), { owner: AddressLookupTableProgram.programId.toBase58(), data: lookupTableAccountData(stale.state.addresses, { lastExtendedSlot: 1n }) }],
    ]);
    for (const mint of Object.values(MINTS)) accounts.set(mint, { owner: PROGRAMS.token, data: mintAccountData(6) });
    chain = await serveAccounts(accounts);
    rpcUrl = chain.url;
  });

  afterAll(async () => {
    await chain.close();
  });

  it('the untampered transaction passes both paths (the baseline of every variant)', async () => {
    const inspector = executorInspector();
    const tx = VersionedTransaction.deserialize(Buffer.from(legacy.base64, 'base64'));
    const record = { intent: decreaseIntent(solLong.positionPubkey, '100000000') } as ActionRecord;
    expect(await inspector.inspect(tx, record, { operationId: 'perps.decrease', route: 'rpc' })).toMatchObject({ ok: true });
    const intent = JSON.stringify(decreaseIntent(solLong.positionPubkey, '100000000'));
    const run = await runCli(['tx', 'inspect', '--wallet', address, '--operation', 'perps.decrease', '--intent', intent, '--rpc', rpcUrl, '--mark-price', String(mark), legacy.base64], { timeoutMs: 60_000 });
    expect(run.code, run.stdout + run.stderr).toBe(0);
  }, 90_000);

  it('each variant is refused with its rule by the executor inspector', async () => {
    const inspector = executorInspector();
    const record = { intent: decreaseIntent(solLong.positionPubkey, '100000000') } as ActionRecord;
    for (const v of variants) {
      const tx = VersionedTransaction.deserialize(Buffer.from(v.base64, 'base64'));
      const result = await inspector.inspect(tx, record, { operationId: 'perps.decrease', route: 'rpc' });
      expect(result.ok, v.name).toBe(false);
      expect(result.violations.map((x) => x.rule), `${v.name}: ${JSON.stringify(result.violations)}`).toContain(v.rule);
      // Named by the check that must catch it, not only by some other check of the same rule.
      if (v.detail) expect(result.violations.some((x) => x.rule === v.rule && x.detail.includes(v.detail!)), `${v.name}: ${JSON.stringify(result.violations)}`).toBe(true);
    }
  });

  it('a table extended in the current slot is no verdict yet: the executor looks again, tx inspect exits 1', async () => {
    const record = { intent: decreaseIntent(solLong.positionPubkey, '100000000') } as ActionRecord;
    const tx = VersionedTransaction.deserialize(Buffer.from(tooNew, 'base64'));
    await expect(executorInspector().inspect(tx, record, { operationId: 'perps.decrease', route: 'rpc' })).rejects.toThrow(LookupTableUnavailable);
    const intent = JSON.stringify(decreaseIntent(solLong.positionPubkey, '100000000'));
    const run = await runCli(['tx', 'inspect', '--wallet', address, '--operation', 'perps.decrease', '--intent', intent, '--rpc', rpcUrl, '--mark-price', String(mark), tooNew], { timeoutMs: 60_000 });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain('cannot be proven yet');
  }, 90_000);

  it('each variant is refused with its rule by stratd tx inspect, given the same intent', async () => {
    const judged = variants;
    const intent = JSON.stringify(decreaseIntent(solLong.positionPubkey, '100000000'));
    // Two processes at a time: the machine is small and shared.
    const runs: Awaited<ReturnType<typeof runCli>>[] = [];
    for (let i = 0; i < judged.length; i += 2) {
      runs.push(...(await Promise.all(judged.slice(i, i + 2).map((v) => runCli(['tx', 'inspect', '--wallet', address, '--operation', 'perps.decrease', '--intent', intent, '--rpc', rpcUrl, '--mark-price', String(mark), v.base64], { timeoutMs: 60_000 })))));
    }
    judged.forEach((v, i) => {
      const run = runs[i]!;
      expect(run.code, `${v.name}: ${run.stderr}`).toBe(3);
      const rules = (JSON.parse(run.stdout) as { violations: Array<{ rule: string }> }).violations.map((x) => x.rule);
      expect(rules, v.name).toContain(v.rule);
    });
  }, 300_000);

  it('the static resolver still resolves the hiding table (the refusal is the rule, not a lookup failure)', async () => {
    const hidden = variants.find((v) => v.name.includes('hidden'))!;
    const decoded = await decodeTransaction(hidden.base64, { resolveLookupTable: staticLookupTableResolver([lookupTable(tableKey, [new PublicKey(tokenAccountOf(address, MINTS.USDC))])]) });
    expect(decoded.unresolved).toEqual([]);
    const result = inspectTransaction(decoded, { wallet: wallet.publicKey, operationId: 'perps.decrease', priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS });
    expect(result.violations.map((x) => x.rule)).toEqual(['lookup_table']);
  });
});
