// The per-operation instruction gate: a transaction is judged by what its instructions do, not by
// the operation it was asked for. Real bytes throughout: the simulated venue's builds over its
// HTTP API, transactions built with the venue's builder and the programs' discriminators, and the
// real mainnet transactions the service's docs publish.
import { Keypair, type PublicKey, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { operationIds, operations, type OperationId } from '../../src/api/registry.ts';
import { decodeTransaction } from '../../src/chain/decode.ts';
import { DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, inspectTransaction, OPERATION_INSTRUCTIONS, type PolicyContext, type Verdict } from '../../src/chain/policy/index.ts';
import { AGGREGATOR_INSTRUCTIONS } from '../../src/chain/programs/aggregator/instructions.ts';
import { DBC_INSTRUCTIONS } from '../../src/chain/programs/dbc/instructions.ts';
import { DCA_INSTRUCTIONS } from '../../src/chain/programs/dca/instructions.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import type { DecreaseIntent } from '../../src/sdk/intent.ts';
import { buildRequestTransaction, toBase64 } from '../../src/venue/tx/builder.ts';
import { REQUEST_TAG } from '../../src/venue/tx/request-instruction.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { needsShared, sharedDir, sharedJsonNames, sharedText } from '../support/shared-data.ts';
import { venueMarkPrice } from '../support/venue-mark-price.ts';
import { fundedWallet, sign, testVenue, type FundedPosition } from '../venue/venue-fixture.ts';

let venue: Venue;
let client: ApiClient;
let close: () => Promise<void>;
let wallet: Keypair;
let address: string;
let solLong: FundedPosition;

/** One venue build of every non-perps write operation (perps: test/chain/policy-perps-venue.test.ts). */
const built: Partial<Record<OperationId, string[]>> = {};

beforeAll(async () => {
  ({ venue, client, close } = await testVenue());
  const funded = await fundedWallet(venue, { positions: [{ market: 'SOL', side: 'long', leverage: '5', collateralUsd: '200000000' }], dbcPoolUnclaimed: '7000000' });
  ({ wallet, address } = funded);
  solLong = funded.positions[0]!;

  // An open trigger order (the create lands), to cancel.
  const create = await client.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: address, payer: address, params: { makingAmount: '100000000', takingAmount: '1000000000' } });
  await client.call('trigger.execute', { requestId: create.requestId!, signedTransaction: sign(create.transaction, wallet) });
  built['trigger.createOrder'] = [create.transaction];
  built['trigger.cancelOrder'] = [(await client.call('trigger.cancelOrder', { maker: address, order: create.order! })).transaction];
  built['trigger.cancelOrders'] = (await client.call('trigger.cancelOrders', { maker: address, orders: [create.order!] })).transactions;

  // A time order to cancel, a price order to deposit into.
  const time = await client.call('recurring.createOrder', { user: address, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 300_000_000, numberOfOrders: 3, interval: 600 } } });
  const timeOrder = (await client.call('recurring.execute', { requestId: time.requestId!, signedTransaction: sign(time.transaction, wallet) })).order as string;
  const price = await client.call('recurring.createOrder', { user: address, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { price: { depositAmount: 150_000_000, incrementUsdcValue: 50, interval: 86_400 } } });
  const priceOrder = (await client.call('recurring.execute', { requestId: price.requestId!, signedTransaction: sign(price.transaction, wallet) })).order as string;
  built['recurring.createOrder'] = [time.transaction, price.transaction];
  built['recurring.cancelOrder'] = [(await client.call('recurring.cancelOrder', { user: address, order: timeOrder, recurringType: 'time' })).transaction];
  built['recurring.priceDeposit'] = [(await client.call('recurring.priceDeposit', { user: address, order: priceOrder, amount: 10_000_000 })).transaction];

  const swap = await client.call('ultra.order', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '50000000', taker: address });
  built['ultra.order'] = [swap.transaction!];
  built['studio.claimFee'] = [(await client.call('studio.claimFee', { ownerWallet: address, poolAddress: funded.dbcPool!.poolAddress, maxQuoteAmount: 5_000_000 })).transaction];
});

afterAll(async () => {
  await close();
});

function contextFor(operationId: OperationId, extra: Partial<PolicyContext> = {}): PolicyContext {
  return { wallet: wallet.publicKey, operationId, priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, ...extra };
}

async function verdictOf(bytes: string | VersionedTransaction, operationId: OperationId, extra: Partial<PolicyContext> = {}): Promise<Verdict> {
  return inspectTransaction(await decodeTransaction(bytes), contextFor(operationId, extra));
}

function gateDetails(verdict: Verdict): string[] {
  return verdict.violations.filter((v) => v.rule === 'product_instruction').map((v) => v.detail);
}

function only(operationId: OperationId): string {
  const [tx] = built[operationId] ?? [];
  if (tx === undefined) throw new Error(`no venue build of ${operationId}`);
  return tx;
}

describe('the instruction table', () => {
  it('names every operation of the registry; an operation yields a transaction exactly when it builds one', () => {
    expect(Object.keys(OPERATION_INSTRUCTIONS).sort()).toEqual([...operationIds].sort());
    for (const id of operationIds) {
      const gate = OPERATION_INSTRUCTIONS[id];
      expect(gate === null, id).toBe(operations[id].effect !== 'build');
      if (gate !== null) expect(gate.required.length, id).toBeGreaterThan(0);
    }
  });
});

describe('benign venue builds pass for their own operation', () => {
  // recurring.priceDeposit is not among them: the policy refuses the deprecated deposit (below).
  const writes = ['trigger.createOrder', 'trigger.cancelOrder', 'trigger.cancelOrders', 'recurring.createOrder', 'recurring.cancelOrder', 'ultra.order', 'studio.claimFee'] as const;
  for (const operationId of writes) {
    it(operationId, async () => {
      const txs = built[operationId] ?? [];
      expect(txs.length).toBeGreaterThan(0);
      for (const tx of txs) {
        const verdict = await verdictOf(tx, operationId);
        expect(verdict, operationId).toMatchObject({ ok: true, violations: [] });
      }
    });
  }
});

describe('the deprecated price-based deposit', () => {
  it('is refused even under its own operation: no intent asks for it', async () => {
    const verdict = await verdictOf(only('recurring.priceDeposit'), 'recurring.priceDeposit');
    expect(verdict.violations).toEqual([
      { rule: 'product_instruction', detail: 'instruction 2 (deposit): deposit is not signed: it tops up a deprecated price-based order, which no intent asks for' },
    ]);
  });
});

describe('a transaction that does not carry out its operation is refused', () => {
  it("a trigger order's creation answered to a cancel (trigger.cancelOrder, trigger.cancelOrders)", async () => {
    const create = only('trigger.createOrder');
    for (const operationId of ['trigger.cancelOrder', 'trigger.cancelOrders'] as const) {
      const verdict = await verdictOf(create, operationId);
      expect(verdict.ok).toBe(false);
      expect(gateDetails(verdict)).toEqual([
        `instruction 2: ${operationId} carries initialize_order of the limit-order program; allowed: cancel_order`,
        `${operationId} carries no cancel_order instruction of the limit-order program: the transaction does not do the operation`,
      ]);
    }
    // And the other way round: a cancel is no creation.
    expect(gateDetails(await verdictOf(only('trigger.cancelOrder'), 'trigger.createOrder'))).toContain('instruction 2: trigger.createOrder carries cancel_order of the limit-order program; allowed: initialize_order');
  });

  it('a transaction offered under an operation that yields none (a read, a submit)', async () => {
    const create = only('trigger.createOrder');
    for (const operationId of ['trigger.getTriggerOrders', 'trigger.execute'] as const) {
      const verdict = await verdictOf(create, operationId);
      expect(verdict.ok).toBe(false);
      expect(gateDetails(verdict)).toEqual([`${operationId} is a ${operations[operationId].effect} operation: it yields no transaction to sign`]);
    }
  });

  it("a DCA order's close (the venue's recurring cancel) or the keeper's end_and_close under recurring.createOrder", async () => {
    const closeDca = await verdictOf(only('recurring.cancelOrder'), 'recurring.createOrder');
    expect(gateDetails(closeDca)).toEqual([
      'instruction 2: recurring.createOrder carries close_dca of the DCA program; allowed: open_dca_v2, open_dca',
      'recurring.createOrder carries no open_dca_v2 or open_dca instruction of the DCA program: the transaction does not do the operation',
    ]);
    const endAndClose = buildRequestTransaction({ payer: wallet.publicKey, product: 'recurring', requestId: 'end-and-close', blockhash: venue.chain.latestBlockhash().blockhash, discriminator: DCA_INSTRUCTIONS.end_and_close });
    expect(gateDetails(await verdictOf(toBase64(endAndClose), 'recurring.createOrder'))).toEqual([
      'instruction 2: recurring.createOrder carries end_and_close of the DCA program; allowed: open_dca_v2, open_dca',
      'recurring.createOrder carries no open_dca_v2 or open_dca instruction of the DCA program: the transaction does not do the operation',
    ]);
    // The open itself, with a close slipped in after it: the close is refused, the open is not enough.
    const openThenClose = buildRequestTransaction({
      payer: wallet.publicKey,
      product: 'recurring',
      requestId: 'open-then-close',
      blockhash: venue.chain.latestBlockhash().blockhash,
      instructions: [...TransactionMessage.decompile(VersionedTransaction.deserialize(Buffer.from(only('recurring.createOrder'), 'base64')).message).instructions.slice(2), ...programInstructionsOf(endAndClose)],
    });
    expect(gateDetails(await verdictOf(toBase64(openThenClose), 'recurring.createOrder'))).toEqual(['instruction 3: recurring.createOrder carries end_and_close of the DCA program; allowed: open_dca_v2, open_dca']);
  });

  it('an instruction of the product program off the list, or unknown to it', async () => {
    const blockhash = venue.chain.latestBlockhash().blockhash;
    const swapAndClose = buildRequestTransaction({
      payer: wallet.publicKey, product: 'ultra', requestId: 'swap', blockhash,
      instructions: [
        ...programInstructionsOf(buildRequestTransaction({ payer: wallet.publicKey, product: 'ultra', requestId: 'route', blockhash, discriminator: AGGREGATOR_INSTRUCTIONS.route_v2 })),
        ...programInstructionsOf(buildRequestTransaction({ payer: wallet.publicKey, product: 'ultra', requestId: 'close', blockhash, discriminator: AGGREGATOR_INSTRUCTIONS.close_token })),
      ],
    });
    expect(gateDetails(await verdictOf(toBase64(swapAndClose), 'ultra.order'))).toEqual([expect.stringMatching(/^instruction 3: ultra\.order carries close_token of the aggregator program; allowed: route, .*, create_token_account, set_token_ledger$/)]);
    const swapOnCurve = buildRequestTransaction({ payer: wallet.publicKey, product: 'studio', requestId: 'swap', blockhash, discriminator: DBC_INSTRUCTIONS.swap });
    expect(gateDetails(await verdictOf(toBase64(swapOnCurve), 'studio.claimFee'))).toContain(
      'instruction 2: studio.claimFee carries swap of the bonding-curve program; allowed: claim_creator_trading_fee, claim_creator_trading_fee2, claim_trading_fee, claim_trading_fee2',
    );
    // The venue's own request tag is no instruction of the trigger program.
    const untagged = buildRequestTransaction({ payer: wallet.publicKey, product: 'trigger', requestId: 'untagged', blockhash });
    expect(gateDetails(await verdictOf(toBase64(untagged), 'trigger.createOrder'))).toContain(
      `instruction 2: trigger.createOrder carries an instruction of the limit-order program with discriminator ${REQUEST_TAG.toString('hex')}, none stratd knows; allowed: initialize_order`,
    );
  });

  it('perps.decrease with no instruction at all, or with compute budget only, with and without an intent', async () => {
    const blockhash = venue.chain.latestBlockhash().blockhash;
    const empty = new VersionedTransaction(new TransactionMessage({ payerKey: wallet.publicKey, recentBlockhash: blockhash, instructions: [] }).compileToV0Message());
    const budgetOnly = buildRequestTransaction({ payer: wallet.publicKey, product: 'perps', requestId: 'nothing', blockhash, instructions: [] });
    const intent: DecreaseIntent = {
      type: 'decrease', key: `decrease:${solLong.positionPubkey}`, reason: 'test', notionalUsd: '100000000', positionPubkey: solLong.positionPubkey,
      marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '100000000',
    };
    const inspector = new PolicyInspector({ wallet: wallet.publicKey, priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, markPrice: venueMarkPrice(client, address), priceDriftBps: 300 });
    const nothing = 'perps.decrease carries no createDecreasePositionMarketRequest or instantDecreasePosition instruction of the perps program: the transaction does not do the operation';
    for (const tx of [empty, budgetOnly]) {
      expect(gateDetails(await verdictOf(tx, 'perps.decrease'))).toEqual([nothing]);
      const withIntent = await inspector.inspect(tx, { intent } as ActionRecord, { operationId: 'perps.decrease', route: 'rpc', positionPubkey: solLong.positionPubkey });
      expect(gateDetails(withIntent)).toEqual([nothing]);
    }
  });
});

function programInstructionsOf(tx: VersionedTransaction) {
  // The builder puts the compute budget first: the program's own instruction follows.
  return TransactionMessage.decompile(tx.message).instructions.slice(2);
}

/** Base64 transactions of a published response body, by file. */
function publishedTransactions(): Array<{ file: string; base64: string }> {
  const out: Array<{ file: string; base64: string }> = [];
  for (const folder of ['api-bodies', 'api-bodies-more']) {
    const dir = sharedDir('fixtures', folder);
    if (dir === undefined) continue;
    for (const name of sharedJsonNames(dir)) {
      for (const m of sharedText(dir, name).matchAll(/"([A-Za-z0-9+/]{200,}={0,2})"/g)) out.push({ file: `${folder}/${name}`, base64: m[1]! });
    }
  }
  return out;
}

/** The real transactions of the products' programs and the operation that builds each (the others invoke programs no allow-list names). */
const REAL: ReadonlyArray<{ file: RegExp; operationId: OperationId; wrongFor: OperationId }> = [
  { file: /recurring-v1-createOrder/, operationId: 'recurring.createOrder', wrongFor: 'recurring.cancelOrder' },
  { file: /recurring-v1-cancelOrder/, operationId: 'recurring.cancelOrder', wrongFor: 'recurring.createOrder' },
  { file: /trigger-v1-cancelOrders/, operationId: 'trigger.cancelOrders', wrongFor: 'trigger.createOrder' },
  { file: /ultra-v1-order/, operationId: 'ultra.order', wrongFor: 'ultra.execute' },
];

describe(`the real mainnet transactions the service's docs publish ${needsShared('fixtures')}`, () => {
  const txs = publishedTransactions();
  it.skipIf(txs.length === 0)('pass the gate under the operation that builds them, and are refused under another of their product', async () => {
    let judged = 0;
    for (const { file, base64 } of txs) {
      const real = REAL.find((r) => r.file.test(file));
      const decoded = await decodeTransaction(base64);
      if (real === undefined || decoded.instructions.some((ix) => ix.programId !== null && ix.programName === 'unknown')) continue;
      const payer: PublicKey = VersionedTransaction.deserialize(Buffer.from(base64, 'base64')).message.staticAccountKeys[0]!;
      const at = (operationId: OperationId) => gateDetails(inspectTransaction(decoded, { wallet: payer, operationId, priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS }));
      expect(at(real.operationId), `${file} under ${real.operationId}`).toEqual([]);
      expect(at(real.wrongFor).length, `${file} under ${real.wrongFor}`).toBeGreaterThan(0);
      judged++;
    }
    // Three DCA opens, three closes, two batches of trigger cancels, six aggregator swaps.
    expect(judged).toBe(14);
  });
});
