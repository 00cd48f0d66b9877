// One transaction per rule that breaks it, built with web3.js, in both message versions: each
// must be rejected with that rule named. Clean counterparts show the rule is not trigger-happy.
import { Keypair, PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { decodeTransaction, staticLookupTableResolver } from '../../src/chain/decode.ts';
import { inspectSerialized, inspectTransaction, type PolicyContext, type PolicyRule, type Verdict } from '../../src/chain/policy/index.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../src/chain/programs.ts';
import { ata, BLOCKHASH, buildTx, computeBudget, contextFor, lookupTable, productInstruction, randomKey, spl, toBase64 } from './fixtures.ts';

const wallet = Keypair.generate().publicKey;
const usdc = new PublicKey(MINTS.USDC);
const thief = randomKey();
const perps = (...extraSigners: PublicKey[]) => productInstruction(PROGRAMS.perps, wallet, extraSigners);

async function verdictFor(
  instructions: TransactionInstruction[],
  version: 'legacy' | 0,
  ctx: Partial<PolicyContext> = {},
  payer: PublicKey = wallet,
): Promise<Verdict> {
  const tx = buildTx({ payer, version, instructions });
  const decoded = await decodeTransaction(toBase64(tx));
  return inspectTransaction(decoded, contextFor(wallet, 'perps.increase', ctx));
}

/** perps(keeper) is an instant TP/SL: the operation it performs. */
const INSTANT_TPSL = { operationId: 'perps.createTpsl' } as const;

function rulesOf(verdict: Verdict): PolicyRule[] {
  return verdict.violations.map((v) => v.rule);
}

interface Case {
  readonly name: string;
  readonly rule: PolicyRule;
  readonly instructions: () => TransactionInstruction[];
  readonly ctx?: Partial<PolicyContext>;
  readonly payer?: PublicKey;
}

const cases: Case[] = [
  { name: 'a foreign fee payer', rule: 'fee_payer', payer: thief, instructions: () => [...computeBudget(), perps()] },
  { name: 'a second signer in a legacy transaction', rule: 'unexpected_signer', instructions: () => [...computeBudget(), perps(randomKey())] },
  {
    name: 'two extra signers in an instant transaction',
    rule: 'unexpected_signer',
    ctx: { transactionType: 'instant' },
    instructions: () => [...computeBudget(), perps(randomKey(), randomKey())],
  },
  { name: 'a program off the allow-list', rule: 'program_not_allowed', instructions: () => [...computeBudget(), perps(), productInstruction(randomKey().toBase58(), wallet)] },
  { name: "another product's program", rule: 'program_not_allowed', instructions: () => [...computeBudget(), productInstruction(PROGRAMS.trigger, wallet)] },
  {
    name: 'an associated token create that hands the accounts to a foreign "token program"',
    rule: 'program_not_allowed',
    instructions: () => [...computeBudget(), perps(), spl.createAta(wallet, wallet, usdc, true, randomKey())],
  },
  {
    name: 'a System transfer to a foreign account',
    rule: 'value_transfer',
    instructions: () => [...computeBudget(), perps(), SystemProgram.transfer({ fromPubkey: wallet, toPubkey: thief, lamports: 1_000_000_000n })],
  },
  {
    name: "an SPL transfer from the wallet's ATA (authority: the wallet)",
    rule: 'value_transfer',
    instructions: () => [...computeBudget(), perps(), spl.transfer(ata(wallet, usdc), ata(thief, usdc), wallet, 1_000_000_000n)],
  },
  {
    name: "an SPL transfer from the wallet's ATA signed by another authority (a delegate)",
    rule: 'value_transfer',
    ctx: { transactionType: 'instant' },
    instructions: () => {
      const keeper = randomKey();
      return [...computeBudget(), perps(keeper), spl.transfer(ata(wallet, usdc), ata(thief, usdc), keeper, 5n)];
    },
  },
  {
    name: 'an SPL transferChecked to a foreign account',
    rule: 'value_transfer',
    instructions: () => [...computeBudget(), perps(), spl.transferChecked(ata(wallet, usdc), usdc, ata(thief, usdc), wallet, 5n, 6)],
  },
  {
    name: 'an account creation funded beyond rent',
    rule: 'value_transfer',
    ctx: { transactionType: 'instant' },
    instructions: () => {
      const fresh = randomKey();
      return [...computeBudget(), perps(), SystemProgram.createAccount({ fromPubkey: wallet, newAccountPubkey: fresh, lamports: 10_000_000_000, space: 165, programId: thief })];
    },
  },
  { name: 'a burn of the wallet’s tokens', rule: 'value_transfer', instructions: () => [...computeBudget(), perps(), spl.burn(ata(wallet, usdc), usdc, wallet, 5n)] },
  { name: 'an SPL approve to a foreign delegate', rule: 'token_approval', instructions: () => [...computeBudget(), perps(), spl.approve(ata(wallet, usdc), thief, wallet, 2n ** 64n - 1n)] },
  { name: 'an SPL approveChecked to a foreign delegate', rule: 'token_approval', instructions: () => [...computeBudget(), perps(), spl.approveChecked(ata(wallet, usdc), usdc, thief, wallet, 5n, 6)] },
  { name: 'an SPL setAuthority to a foreign owner', rule: 'authority_change', instructions: () => [...computeBudget(), perps(), spl.setAuthority(ata(wallet, usdc), wallet, 2, thief)] },
  { name: 'an SPL setAuthority that removes the close authority', rule: 'authority_change', instructions: () => [...computeBudget(), perps(), spl.setAuthority(ata(wallet, usdc), wallet, 3, null)] },
  { name: 'a System assign of the wallet', rule: 'authority_change', instructions: () => [...computeBudget(), perps(), SystemProgram.assign({ accountPubkey: wallet, programId: thief })] },
  { name: 'an SPL closeAccount to a foreign account', rule: 'account_close', instructions: () => [...computeBudget(), perps(), spl.closeAccount(ata(wallet, usdc), thief, wallet)] },
  { name: 'a huge compute unit price', rule: 'priority_fee_cap', instructions: () => [...computeBudget(1_400_000, 10_000_000_000n), perps()] },
  { name: 'no unit limit and a price that the default limit makes too dear', rule: 'priority_fee_cap', instructions: () => [computeBudget(1, 5_000_001n)[1] as TransactionInstruction, perps()] },
  { name: 'a blockhash other than txMetadata', rule: 'blockhash_mismatch', ctx: { txMetadata: { blockhash: randomKey().toBase58() } }, instructions: () => [...computeBudget(), perps()] },
  {
    name: 'more lamports to an explained account than the intent asked',
    rule: 'intent_exceeded',
    ctx: { knownAccounts: [thief.toBase58()], intent: { maxMoveLamports: 1_000n, slippageBps: 50 } },
    instructions: () => [...computeBudget(), perps(), SystemProgram.transfer({ fromPubkey: wallet, toPubkey: thief, lamports: 1_006n })],
  },
  {
    name: 'a token the intent does not name',
    rule: 'intent_exceeded',
    ctx: { knownAccounts: [ata(thief, usdc).toBase58()], intent: { maxMoveTokens: { [MINTS.SOL]: 10n } } },
    instructions: () => [...computeBudget(), perps(), spl.transfer(ata(wallet, usdc), ata(thief, usdc), wallet, 1n)],
  },
  {
    name: 'a token instruction whose data is truncated',
    rule: 'malformed',
    instructions: () => [...computeBudget(), perps(), new TransactionInstruction({ programId: new PublicKey(PROGRAMS.token), keys: [], data: Buffer.from([3, 1]) })],
  },
  {
    name: 'a compute budget instruction given twice',
    rule: 'malformed',
    instructions: () => [...computeBudget(), ...computeBudget(), perps()],
  },
];

describe('each rule rejects the transaction that breaks it', () => {
  for (const c of cases) {
    for (const version of ['legacy', 0] as const) {
      it(`${c.rule}: ${c.name} (${version})`, async () => {
        const verdict = await verdictFor(c.instructions(), version, c.ctx, c.payer);
        expect(verdict.ok).toBe(false);
        expect(rulesOf(verdict)).toContain(c.rule);
        for (const v of verdict.violations) expect(v.detail.length).toBeGreaterThan(10);
      });
    }
  }

  it('unresolved_lookup: a v0 transaction whose lookup table cannot be resolved', async () => {
    const table = lookupTable(randomKey(), [randomKey(), new PublicKey(PERPS_ACCOUNTS.eventAuthority)]);
    const tx = buildTx({
      payer: wallet,
      version: 0,
      lookupTables: [table],
      instructions: [...computeBudget(), productInstruction(PROGRAMS.perps, wallet)],
    });
    const ctx = contextFor(wallet, 'perps.increase');
    const unresolved = await inspectSerialized(toBase64(tx), ctx, { resolveLookupTable: staticLookupTableResolver([]) });
    expect(rulesOf(unresolved.verdict)).toEqual(['unresolved_lookup']);
    const resolved = await inspectSerialized(toBase64(tx), ctx, { resolveLookupTable: staticLookupTableResolver([table]) });
    expect(resolved.verdict).toMatchObject({ ok: true, violations: [] });
  });

  it('malformed: bytes that are not a transaction', async () => {
    const inspection = await inspectSerialized('AAAA', contextFor(wallet, 'perps.increase'));
    expect(inspection.decoded).toBeNull();
    expect(inspection.verdict).toMatchObject({ ok: false, violations: [{ rule: 'malformed' }], messageSha256: '' });
  });
});

describe('signer slots', () => {
  it('allows one empty keeper slot for instant transactions only', async () => {
    const keeper = randomKey();
    const instructions = [...computeBudget(), perps(keeper)];
    expect(await verdictFor(instructions, 0, { ...INSTANT_TPSL, transactionType: 'instant' })).toMatchObject({ ok: true });
    expect(rulesOf(await verdictFor(instructions, 0, { ...INSTANT_TPSL, transactionType: 'legacy' }))).toEqual(['unexpected_signer']);
    expect(rulesOf(await verdictFor(instructions, 0, INSTANT_TPSL))).toEqual(['unexpected_signer']);
  });

  it('rejects a keeper slot that already carries a signature', async () => {
    const keeper = Keypair.generate();
    const tx = buildTx({ payer: wallet, version: 0, instructions: [...computeBudget(), perps(keeper.publicKey)] });
    tx.sign([keeper]);
    const verdict = inspectTransaction(await decodeTransaction(tx), contextFor(wallet, 'perps.createTpsl', { transactionType: 'instant' }));
    expect(verdict.violations).toEqual([{ rule: 'unexpected_signer', detail: expect.stringContaining('already carries a signature') }]);
  });
});

describe('what the value rules let through', () => {
  const wsol = new PublicKey(MINTS.SOL);
  for (const version of ['legacy', 0] as const) {
    it(`wrapping SOL into the wallet's own accounts and unwrapping back (${version})`, async () => {
      const verdict = await verdictFor(
        [
          ...computeBudget(),
          spl.createAta(wallet, wallet, wsol),
          SystemProgram.transfer({ fromPubkey: wallet, toPubkey: ata(wallet, wsol), lamports: 2_000_000_000n }),
          spl.syncNative(ata(wallet, wsol)),
          perps(),
          spl.closeAccount(ata(wallet, wsol), wallet, wallet),
          spl.memo('stratd'),
        ],
        version,
      );
      expect(verdict).toMatchObject({ ok: true, violations: [] });
    });

    it(`transfers and approvals to explained accounts within the intent (${version})`, async () => {
      const feeReceiver = ata(thief, usdc);
      const verdict = await verdictFor(
        [
          ...computeBudget(),
          perps(),
          spl.transferChecked(ata(wallet, usdc), usdc, feeReceiver, wallet, 1_000n, 6),
          spl.approve(ata(wallet, usdc), feeReceiver, wallet, 5n),
          SystemProgram.transfer({ fromPubkey: wallet, toPubkey: thief, lamports: 1_005n }),
        ],
        version,
        { knownAccounts: [feeReceiver.toBase58(), thief.toBase58()], intent: { maxMoveLamports: 1_000n, maxMoveTokens: { [MINTS.USDC]: 1_000n }, slippageBps: 50 } },
      );
      expect(verdict).toMatchObject({ ok: true, violations: [] });
    });
  }

  it('counts approvals against the intent, with slippage rounded up', async () => {
    const delegate = randomKey();
    const intent = { maxMoveTokens: { [MINTS.USDC]: 1_000n }, slippageBps: 1 };
    const ok = await verdictFor([perps(), spl.approve(ata(wallet, usdc), delegate, wallet, 1_001n)], 0, { knownAccounts: [delegate.toBase58()], intent });
    expect(ok.ok).toBe(true);
    const over = await verdictFor([perps(), spl.approve(ata(wallet, usdc), delegate, wallet, 1_002n)], 0, { knownAccounts: [delegate.toBase58()], intent });
    expect(rulesOf(over)).toEqual(['intent_exceeded']);
  });

  it('a rent-sized account creation and an ATA for the wallet are fine; an ATA for a stranger is not', async () => {
    const fresh = randomKey();
    const rentSized = SystemProgram.createAccount({ fromPubkey: wallet, newAccountPubkey: fresh, lamports: (128 + 165) * 6960, space: 165, programId: new PublicKey(PROGRAMS.token) });
    const own = await verdictFor([perps(fresh), rentSized, spl.createAta(wallet, wallet, usdc, false)], 0, { ...INSTANT_TPSL, transactionType: 'instant' });
    expect(own).toMatchObject({ ok: true });
    const stranger = await verdictFor([perps(), spl.createAta(wallet, thief, usdc)], 0);
    expect(rulesOf(stranger)).toEqual(['value_transfer']);
  });

  it('does not judge transfers that do not touch the wallet', async () => {
    const other = randomKey();
    const verdict = await verdictFor([perps(other), SystemProgram.transfer({ fromPubkey: other, toPubkey: thief, lamports: 5n })], 0, { ...INSTANT_TPSL, transactionType: 'instant' });
    expect(verdict).toMatchObject({ ok: true });
  });

  it('prices the fee exactly: price × limit / 1e6, rounded up, against the cap', async () => {
    // 1_000_001 µlamports × 1_000_000 units = 1_000_001 lamports: one over a 1_000_000 cap.
    const over = await verdictFor([...computeBudget(1_000_000, 1_000_001n), perps()], 0);
    expect(over.violations).toEqual([{ rule: 'priority_fee_cap', detail: expect.stringContaining('1000001 lamports') }]);
    const at = await verdictFor([...computeBudget(1_000_000, 1_000_000n), perps()], 0);
    expect(at.ok).toBe(true);
    const rounded = await verdictFor([...computeBudget(3, 333_333_333_334n), perps()], 0, { priorityFeeCapLamports: 1_000_000n });
    expect(rulesOf(rounded)).toEqual(['priority_fee_cap']);
  });

  it('accepts a matching blockhash', async () => {
    expect(await verdictFor([...computeBudget(), perps()], 'legacy', { txMetadata: { blockhash: BLOCKHASH } })).toMatchObject({ ok: true });
  });
});
