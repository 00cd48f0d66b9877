// Trigger (Limit Order v2), recurring (DCA) and Studio (DBC) transactions as the simulated venue
// builds them over its HTTP API, judged by the executor's policy inspector against the intent: the
// benign build of every operation passes, every hostile variant the venue can make of it is
// refused with the rule and a detail naming the account or amount and its bound, and an honest
// build judged against an intent that asks for something else is refused rule by rule.
import { Keypair, PublicKey, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import type { OperationId } from '../../src/api/registry.ts';
import type { PolicyRule, Verdict } from '../../src/chain/policy/index.ts';
import type { AnchorInstructionLayout } from '../../src/chain/programs/anchor-layout.ts';
import { DCA_LAYOUTS } from '../../src/chain/programs/dca/layouts.ts';
import { LIMIT_ORDER_LAYOUTS } from '../../src/chain/programs/limit-order/layouts.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { operationOfIntent, PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { anchorInstruction } from '../../src/venue/tx/anchor-instruction.ts';
import { ORDER_HOSTILE_KINDS, type OrderHostileKind } from '../../src/venue/tx/hostile.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { runCli } from '../support/cli.ts';
import { fundedWallet, sign, testVenue } from '../venue/venue-fixture.ts';

let venue: Venue;
let client: ApiClient;
let close: () => Promise<void>;
let wallet: Keypair;
let address: string;
let inspector: PolicyInspector;
let triggerOrder: string;
let recurringOrder: string;
let pool: string;

const base = { reason: 'test', notionalUsd: '0' };
const MAKING = '100000000';
const TAKING = '1000000000';

beforeAll(async () => {
  ({ venue, client, close } = await testVenue());
  const funded = await fundedWallet(venue, { dbcPoolUnclaimed: '7000000' });
  ({ wallet, address } = funded);
  pool = funded.dbcPool!.poolAddress;
  inspector = new PolicyInspector({ wallet: wallet.publicKey, priorityFeeCapLamports: 5_000_000n, slippageBps: 100 });
  // An open trigger order and an open recurring order, to cancel.
  const create = await client.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: address, payer: address, params: { makingAmount: MAKING, takingAmount: TAKING } });
  await client.call('trigger.execute', { requestId: create.requestId!, signedTransaction: sign(create.transaction, wallet) });
  triggerOrder = create.order!;
  const time = await client.call('recurring.createOrder', { user: address, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 300_000_000, numberOfOrders: 3, interval: 600 } } });
  recurringOrder = (await client.call('recurring.execute', { requestId: time.requestId!, signedTransaction: sign(time.transaction, wallet) })).order as string;
});

afterAll(async () => {
  await close();
});

const intents = {
  triggerCreate: (): Intent => ({ type: 'trigger-create', key: 'tc', ...base, inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: MAKING, takingAmount: TAKING }),
  triggerCancel: (): Intent => ({ type: 'trigger-cancel', key: 'tx', ...base, order: triggerOrder }),
  triggerCancelAll: (): Intent => ({ type: 'trigger-cancel-all', key: 'ta', ...base, orders: [triggerOrder] }),
  recurringCreate: (): Intent => ({ type: 'recurring-create', key: 'rc', ...base, inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '300000000', numberOfOrders: 3, intervalSec: 600 }),
  recurringCancel: (): Intent => ({ type: 'recurring-cancel', key: 'rx', ...base, order: recurringOrder }),
  studioClaim: (): Intent => ({ type: 'studio-claim-fee', key: 'sc', ...base, poolAddress: pool, maxQuoteAmount: '5000000' }),
};

/** The venue's build(s) of the operation an intent is served by, as the executor would ask for them. */
async function build(intent: Intent, params: { slippageBps?: string; startAt?: number; minPrice?: number } = {}): Promise<string[]> {
  switch (intent.type) {
    case 'trigger-create':
      return [
        (
          await client.call('trigger.createOrder', {
            inputMint: intent.inputMint,
            outputMint: intent.outputMint,
            maker: address,
            payer: address,
            params: { makingAmount: intent.makingAmount, takingAmount: intent.takingAmount, expiredAt: intent.expiredAt, slippageBps: params.slippageBps },
          })
        ).transaction,
      ];
    case 'trigger-cancel':
      return [(await client.call('trigger.cancelOrder', { maker: address, order: intent.order })).transaction];
    case 'trigger-cancel-all':
      return (await client.call('trigger.cancelOrders', { maker: address, orders: intent.orders })).transactions;
    case 'recurring-create': {
      const time = { inAmount: Number(intent.inAmount), numberOfOrders: intent.numberOfOrders, interval: intent.intervalSec, startAt: params.startAt, minPrice: params.minPrice };
      return [(await client.call('recurring.createOrder', { user: address, inputMint: intent.inputMint, outputMint: intent.outputMint, params: { time } })).transaction];
    }
    case 'recurring-cancel':
      return [(await client.call('recurring.cancelOrder', { user: address, order: intent.order, recurringType: 'time' })).transaction];
    case 'studio-claim-fee':
      return [(await client.call('studio.claimFee', { ownerWallet: address, poolAddress: intent.poolAddress, maxQuoteAmount: Number(intent.maxQuoteAmount) })).transaction];
    default:
      throw new Error(`no build for ${intent.type}`);
  }
}

async function judge(base64: string | VersionedTransaction, intent: Intent | undefined, operationId: OperationId = operationOfIntent(intent!)): Promise<Verdict> {
  const tx = typeof base64 === 'string' ? VersionedTransaction.deserialize(Buffer.from(base64, 'base64')) : base64;
  return (await inspector.inspectDetailed(tx, intent, { operationId, route: 'rpc' })).verdict;
}

async function hostileBuild(intent: Intent, kind: OrderHostileKind): Promise<string[]> {
  const operationId = operationOfIntent(intent);
  venue.applyFaults({ operations: { [operationId]: { orderHostile: kind } } });
  try {
    return await build(intent);
  } finally {
    venue.applyFaults({ operations: { [operationId]: null } });
  }
}

type IntentName = keyof typeof intents;
const ALL: IntentName[] = ['triggerCreate', 'triggerCancel', 'triggerCancelAll', 'recurringCreate', 'recurringCancel', 'studioClaim'];

describe('benign venue builds pass, judged against their intent', () => {
  for (const name of ALL) {
    it(name, async () => {
      const intent = intents[name]();
      for (const tx of await build(intent)) expect(await judge(tx, intent)).toMatchObject({ ok: true, violations: [] });
    });
  }
});

/** Per intent and hostile kind: the rule and a detail that names the account or amount (null: the kind does not apply, the build stays honest). */
const HOSTILE: Record<IntentName, Record<OrderHostileKind, readonly [PolicyRule, RegExp] | null>> = {
  triggerCreate: {
    amount_x100: ['intent_exceeded', /making_amount 10000000000 differs from the intent's 100000000/],
    foreign_destination: ['product_account', /input_mint_reserve \w+ is not the token account of order \w+ for mint EPjF/],
    foreign_owner: ['product_account', /\(initialize_order\): maker is \w+, not the wallet/],
    unknown_instruction: ['product_instruction', /instruction of the limit-order program with discriminator [0-9a-f]{16}, none stratd knows/],
  },
  triggerCancel: {
    amount_x100: null,
    foreign_destination: ['product_account', /maker_input_mint_account \w+ is not the wallet's token account of mint EPjF/],
    foreign_owner: ['product_account', /\(cancel_order\): maker is \w+, not the wallet/],
    unknown_instruction: ['product_instruction', /instruction of the limit-order program with discriminator/],
  },
  triggerCancelAll: {
    amount_x100: null,
    foreign_destination: ['product_account', /maker_input_mint_account \w+ is not the wallet's token account/],
    foreign_owner: ['product_account', /maker is \w+, not the wallet/],
    unknown_instruction: ['product_instruction', /instruction of the limit-order program with discriminator/],
  },
  recurringCreate: {
    amount_x100: ['intent_exceeded', /inAmount 30000000000 differs from the intent's 300000000/],
    foreign_destination: ['product_account', /inAta \w+ is not the token account of dca \w+ for mint EPjF/],
    foreign_owner: ['product_account', /\(open_dca_v2\): user is \w+, not the wallet/],
    unknown_instruction: ['product_instruction', /instruction of the DCA program with discriminator/],
  },
  recurringCancel: {
    amount_x100: null,
    foreign_destination: ['product_account', /userInAta \w+ is not the wallet's token account of mint EPjF/],
    foreign_owner: ['product_account', /\(close_dca\): user is \w+, not the wallet/],
    unknown_instruction: ['product_instruction', /instruction of the DCA program with discriminator/],
  },
  studioClaim: {
    amount_x100: ['intent_exceeded', /max_quote_amount 500000000 is above the intent's maxQuoteAmount 5000000/],
    foreign_destination: ['product_account', /token_b_account \w+ is not the wallet's token account of mint EPjF/],
    foreign_owner: ['product_account', /creator is \w+, not the wallet/],
    unknown_instruction: ['product_instruction', /instruction of the bonding-curve program with discriminator/],
  },
};

describe('hostile venue builds are refused with the rule and a detail a person understands', () => {
  for (const name of ALL) {
    for (const kind of ORDER_HOSTILE_KINDS) {
      const expected = HOSTILE[name][kind];
      it(`${name}, ${kind}: ${expected === null ? 'does not apply (honest build passes)' : expected[0]}`, async () => {
        const intent = intents[name]();
        for (const tx of await hostileBuild(intent, kind)) {
          const verdict = await judge(tx, intent);
          if (expected === null) {
            expect(verdict.violations).toEqual([]);
            continue;
          }
          expect(verdict.ok).toBe(false);
          const [rule, detail] = expected;
          expect(verdict.violations.filter((v) => v.rule === rule).map((v) => v.detail), JSON.stringify(verdict.violations)).toContainEqual(expect.stringMatching(detail));
        }
      });
    }
  }

  it('stratd tx inspect --intent explains the refusal of a hostile build in one line per fault', async () => {
    const [tx] = await hostileBuild(intents.studioClaim(), 'foreign_destination');
    const run = await runCli(['tx', 'inspect', '--wallet', address, '--intent', JSON.stringify(intents.studioClaim()), tx!], { env: { STRATD_RUNTIME: 'src' }, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(3);
    const out = JSON.parse(run.stdout) as { violations: Array<{ rule: string; detail: string }> };
    expect(out.violations).toEqual([{ rule: 'product_account', detail: expect.stringMatching(/^instruction 2 \(claim_creator_trading_fee\): token_b_account \w+ is not the wallet's token account of mint EPjF\w+ \(quote_mint\)$/) }]);
  }, 60_000);

  it('the escrow of 100 times the making amount also exceeds what the intent lets leave the wallet', async () => {
    const [tx] = await hostileBuild(intents.triggerCreate(), 'amount_x100');
    const verdict = await judge(tx!, intents.triggerCreate());
    expect(verdict.violations).toContainEqual({ rule: 'intent_exceeded', detail: `the transaction moves 10000000000 of mint ${MINTS.USDC} from the wallet; the intent allows 100000000` });
  });
});

/** Refusals of an honest build judged against an intent that asks for something else: one per check. */
describe('each bound of the intent is checked', () => {
  async function refusal(intent: Intent, built: Intent, params: Parameters<typeof build>[1] = {}): Promise<string[]> {
    const [tx] = await build(built, params);
    const verdict = await judge(tx!, intent);
    expect(verdict.ok).toBe(false);
    return verdict.violations.map((v) => `${v.rule}: ${v.detail}`);
  }
  const trigger = intents.triggerCreate;

  it('trigger create: the taking amount (the limit price)', async () => {
    expect(await refusal(trigger(), { ...trigger(), takingAmount: '1' } as Intent)).toContainEqual(expect.stringContaining("intent_exceeded: instruction 2 (initialize_order): taking_amount 1 differs from the intent's 1000000000 (the limit price)"));
  });
  it('trigger create: the input and output mints', async () => {
    const swapped = { ...trigger(), inputMint: MINTS.USDT } as Intent;
    expect(await refusal(swapped, trigger())).toContainEqual(expect.stringContaining(`input_mint is ${MINTS.USDC}; the intent sells ${MINTS.USDT}`));
    const other = { ...trigger(), outputMint: MINTS.ETH } as Intent;
    expect(await refusal(other, trigger())).toContainEqual(expect.stringContaining(`output_mint is ${MINTS.SOL}; the intent buys ${MINTS.ETH}`));
  });
  it('trigger create: the expiry and the slippage', async () => {
    const expiring = { ...trigger(), expiredAt: '4102444800' } as Intent;
    expect(await refusal(expiring, trigger())).toContainEqual(expect.stringContaining("expired_at none differs from the intent's 4102444800"));
    expect(await refusal(trigger(), trigger(), { slippageBps: '300' })).toContainEqual(expect.stringContaining("slippage_bps 300 is above the intent's 0"));
  });
  it('trigger create: one order per intent, and no integrator fee', async () => {
    const [tx] = await build(trigger());
    const parsed = VersionedTransaction.deserialize(Buffer.from(tx!, 'base64'));
    const message = TransactionMessage.decompile(parsed.message);
    const create = message.instructions.find((ix) => ix.programId.toBase58() === PROGRAMS.trigger)!;
    const twice = new VersionedTransaction(new TransactionMessage({ ...message, instructions: [...message.instructions, create] }).compileToV0Message());
    expect((await judge(twice, trigger())).violations).toContainEqual({ rule: 'intent_exceeded', detail: '2 initialize_order instructions; the intent asks for one trigger order' });
    // The same accounts, with a 50 bps integrator fee to the referral account.
    const accounts = Object.fromEntries(LIMIT_ORDER_LAYOUTS.initialize_order.accounts.map((spec, i) => [spec.name, create.keys[i]!.pubkey.toBase58()]));
    const withFee = anchorInstruction(PROGRAMS.trigger, LIMIT_ORDER_LAYOUTS.initialize_order, { ...accounts, referral: address }, {
      unique_id: 1n, making_amount: BigInt(MAKING), taking_amount: BigInt(TAKING), expired_at: null, fee_bps: 50n, slippage_bps: null,
    });
    const feeTx = new VersionedTransaction(new TransactionMessage({ ...message, instructions: message.instructions.map((ix) => (ix === create ? withFee : ix)) }).compileToV0Message());
    expect((await judge(feeTx, trigger())).violations).toEqual([{ rule: 'intent_exceeded', detail: `instruction 2 (initialize_order): fee_bps 50 pays an integrator fee (to referral ${address}); the intent asks for none` }]);
  });
  it('trigger cancel: only an order the intent names; a create is no cancel', async () => {
    const other = Keypair.generate().publicKey.toBase58();
    expect(await refusal({ ...intents.triggerCancel(), order: other } as Intent, intents.triggerCancel())).toContainEqual(
      `product_account: instruction 2 (cancel_order): cancels order ${triggerOrder}; the intent names ${other}`,
    );
    const [create] = await build(trigger());
    expect((await judge(create!, intents.triggerCancel(), 'trigger.createOrder')).violations).toContainEqual({ rule: 'intent_exceeded', detail: 'instruction 2 (initialize_order): creates a trigger order; the intent asks for a cancel' });
  });
  it('recurring create: the number of orders, the interval, the start and the price band', async () => {
    const rc = intents.recurringCreate;
    expect(await refusal({ ...rc(), numberOfOrders: 4 } as Intent, rc())).toContainEqual(expect.stringContaining('inAmountPerCycle 100000000 of inAmount 300000000 makes 3 orders; the intent asks for 4'));
    expect(await refusal({ ...rc(), intervalSec: 3600 } as Intent, rc())).toContainEqual(expect.stringContaining("cycleFrequency 600 s differs from the intent's interval 3600 s"));
    expect(await refusal({ ...rc(), startAt: 4102444800 } as Intent, rc())).toContainEqual(expect.stringContaining("startAt none differs from the intent's 4102444800"));
    // No start named: the order starts now, not whenever the service chose (its deposit idle until then).
    expect(await refusal(rc(), rc(), { startAt: 4102444800 })).toContainEqual(expect.stringContaining('startAt 4102444800 is after'));
    const soon = Math.floor(Date.now() / 1000) + 60;
    expect((await judge((await build(rc(), { startAt: soon }))[0]!, rc())).violations).toEqual([]);
    expect(await refusal({ ...rc(), minPrice: '0.5' } as Intent, rc())).toContainEqual(expect.stringContaining('minPrice is absent; the intent bounds the price from below'));
    expect(await refusal({ ...rc(), outputMint: MINTS.ETH } as Intent, rc())).toContainEqual(expect.stringContaining(`outputMint is ${MINTS.SOL}; the intent buys ${MINTS.ETH}`));
  });
  it('recurring create: a start and a band the intent names pass when the build carries them', async () => {
    const rc = { ...intents.recurringCreate(), startAt: 4102444800, minPrice: '0.5' } as Intent;
    const [tx] = await build(rc, { startAt: 4102444800, minPrice: 0.5 });
    expect((await judge(tx!, rc)).violations).toEqual([]);
  });
  it('recurring cancel: only the order the intent names', async () => {
    const other = Keypair.generate().publicKey.toBase58();
    expect(await refusal({ ...intents.recurringCancel(), order: other } as Intent, intents.recurringCancel())).toContainEqual(
      `product_account: instruction 2 (close_dca): closes order ${recurringOrder}; the intent names ${other}`,
    );
  });
  it('studio claim: the pool and the most quote token', async () => {
    const sc = intents.studioClaim;
    expect(await refusal({ ...sc(), maxQuoteAmount: '1000000' } as Intent, sc())).toContainEqual(
      "intent_exceeded: instruction 2 (claim_creator_trading_fee): max_quote_amount 5000000 is above the intent's maxQuoteAmount 1000000",
    );
    const other = Keypair.generate().publicKey.toBase58();
    expect(await refusal({ ...sc(), poolAddress: other } as Intent, sc())).toContainEqual(`product_account: instruction 2 (claim_creator_trading_fee): claims from pool ${pool}; the intent names ${other}`);
  });
  it('without an intent the roles are still checked, and nothing may be escrowed', async () => {
    const [tx] = await build(trigger());
    expect((await judge(tx!, undefined, 'trigger.createOrder')).violations).toEqual([
      { rule: 'intent_exceeded', detail: `the transaction moves 100000000 of mint ${MINTS.USDC}, which the intent does not name` },
    ]);
  });

  /** The venue's build with one account of its program instruction replaced (or one appended), re-compiled: real bytes but for that account. */
  async function withAccount(intent: Intent, programId: string, layout: AnchorInstructionLayout, role: string | null, address: string): Promise<VersionedTransaction> {
    const [tx] = await build(intent);
    const message = TransactionMessage.decompile(VersionedTransaction.deserialize(Buffer.from(tx!, 'base64')).message);
    const ix = message.instructions.find((i) => i.programId.toBase58() === programId)!;
    if (role === null) ix.keys.push({ pubkey: new PublicKey(address), isSigner: false, isWritable: false });
    else {
      const at = layout.accounts.findIndex((a) => a.name === role);
      ix.keys[at] = { ...ix.keys[at]!, pubkey: new PublicKey(address) };
    }
    return new VersionedTransaction(message.compileToV0Message());
  }
  async function accountRefusals(intent: Intent, programId: string, layout: AnchorInstructionLayout, role: string | null, address: string): Promise<string[]> {
    const verdict = await judge(await withAccount(intent, programId, layout, role, address), intent);
    expect(verdict.ok).toBe(false);
    return verdict.violations.filter((v) => v.rule === 'product_account').map((v) => v.detail);
  }

  it('each account role the rules bind: payer, source, token program, fixed accounts, nothing beyond the layout', async () => {
    const other = Keypair.generate().publicKey.toBase58();
    const lo = LIMIT_ORDER_LAYOUTS.initialize_order;
    expect(await accountRefusals(trigger(), PROGRAMS.trigger, lo, 'payer', other)).toContain(`instruction 2 (initialize_order): payer is ${other}, not the wallet`);
    expect(await accountRefusals(trigger(), PROGRAMS.trigger, lo, 'maker_input_mint_account', other)).toContain(
      `instruction 2 (initialize_order): maker_input_mint_account ${other} is not the wallet's token account of mint ${MINTS.USDC} (input_mint)`,
    );
    expect(await accountRefusals(trigger(), PROGRAMS.trigger, lo, 'input_token_program', PROGRAMS.system)).toContainEqual(expect.stringContaining(`input_token_program ${PROGRAMS.system} is not a token program`));
    expect(await accountRefusals(trigger(), PROGRAMS.trigger, lo, 'event_authority', other)).toContainEqual(expect.stringMatching(new RegExp(`event_authority is ${other}, expected \\w+`)));
    expect(await accountRefusals(trigger(), PROGRAMS.trigger, lo, null, other)).toContain(`instruction 2 (initialize_order): 1 accounts beyond the layout (${other})`);
    const cancel = LIMIT_ORDER_LAYOUTS.cancel_order;
    expect(await accountRefusals(intents.triggerCancel(), PROGRAMS.trigger, cancel, 'signer', other)).toContain(`instruction 2 (cancel_order): signer is ${other}, not the wallet`);
    const open = DCA_LAYOUTS.open_dca_v2;
    expect(await accountRefusals(intents.recurringCreate(), PROGRAMS.recurring, open, 'payer', other)).toContain(`instruction 2 (open_dca_v2): payer is ${other}, not the wallet`);
    expect(await accountRefusals(intents.recurringCreate(), PROGRAMS.recurring, open, 'userAta', other)).toContain(
      `instruction 2 (open_dca_v2): userAta ${other} is not the wallet's token account of mint ${MINTS.USDC} (inputMint)`,
    );
    const close = DCA_LAYOUTS.close_dca;
    expect(await accountRefusals(intents.recurringCancel(), PROGRAMS.recurring, close, 'userOutAta', other)).toContain(
      `instruction 2 (close_dca): userOutAta ${other} is not the wallet's token account of mint ${MINTS.SOL} (outputMint)`,
    );
  });
});
