// The hostile cases of the second review (durable nonces, accounts that only look like the
// wallet's, oversized accounts, unsupported message versions), each made with web3.js from the
// venue's own decrease transaction. Every one must be refused with its named rule by the
// executor's inspector AND by `stratd tx inspect` (the same PolicyInspector); the untampered
// transaction and an honest wrap must still pass both.
import { Connection, Keypair, PublicKey, SystemProgram, TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { mintAccountData, rpcAccountReader, type ChainAccount, type PolicyRule } from '../../src/chain/policy/index.ts';
import { perpsPositionAddress } from '../../src/chain/programs/perps/addresses.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../src/chain/programs.ts';
import { txCommand } from '../../src/cli/commands/tx.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { runCli, runCommandInProcess } from '../support/cli.ts';
import { ata, BLOCKHASH, randomKey, spl, TOKEN, TOKEN_2022 } from './fixtures.ts';
import { asVersion1, base64Of, serveAccounts, tamper, tokenAccountData, venueDecrease, type FakeChain } from './support/hostile-from-venue.ts';

const wallet = Keypair.generate().publicKey;
const keeper = randomKey();
const thief = randomKey();
/** The wallet's SOL long, derived as the program derives it (the product rules check it). */
const position = new PublicKey(perpsPositionAddress(wallet.toBase58(), PERPS_ACCOUNTS.custody.SOL, PERPS_ACCOUNTS.custody.SOL, 'long'));
const nonce = randomKey();
const wsol = new PublicKey(MINTS.SOL);
const usdc = new PublicKey(MINTS.USDC);
/** A mint no list of the project names; the wallet holds some in its ATA. */
const unlisted = randomKey();
/** A Token-2022 mint. */
const t22Mint = randomKey();
const system = (data: number[], keys: Array<{ pubkey: PublicKey; isSigner: boolean; isWritable: boolean }>) =>
  new TransactionInstruction({ programId: SystemProgram.programId, keys, data: Buffer.from(data) });

const intent: Intent = {
  type: 'decrease',
  key: 'guard:test',
  reason: 'hostile review',
  notionalUsd: '1000000',
  positionPubkey: position.toBase58(),
  marketMint: MINTS.SOL,
  side: 'long',
  receiveToken: 'USDC',
  entirePosition: true,
};

/** The position's mark: the venue decrease's priceSlippage (140) is within 200 bps of it. */
const MARK = 142_000_000n;

let chain: FakeChain;
let inspector: PolicyInspector;

beforeAll(async () => {
  const accounts = new Map<string, ChainAccount>();
  for (const mint of [...Object.values(MINTS), unlisted.toBase58()]) accounts.set(mint, { owner: PROGRAMS.token, data: mintAccountData(6) });
  accounts.set(t22Mint.toBase58(), { owner: PROGRAMS.token2022, data: mintAccountData(6) });
  accounts.set(ata(wallet, unlisted).toBase58(), { owner: PROGRAMS.token, data: tokenAccountData(unlisted, wallet, 5_000_000n) });
  chain = await serveAccounts(accounts);
  inspector = new PolicyInspector({ wallet, priorityFeeCapLamports: 5_000_000n, readAccounts: rpcAccountReader(new Connection(chain.url, 'confirmed')), slippageBps: 200, markPrice: async () => MARK, priceDriftBps: 0 });
});

afterAll(async () => {
  await chain.close();
});

type Route = 'rpc' | 'perps-execute';

async function byExecutor(tx: VersionedTransaction, route: Route) {
  return inspector.inspect(tx, { intent }, { operationId: 'perps.decrease', route, txMetadata: { blockhash: BLOCKHASH }, positionPubkey: position.toBase58() });
}

/** `stratd tx inspect` in this process (the command's own code), its stdout parsed. */
async function byCli(base64: string, route: Route, extra: string[] = []): Promise<{ code: number; out: { ok: boolean; violations: Array<{ rule: PolicyRule; detail: string }> } }> {
  const argv = ['inspect', '--wallet', wallet.toBase58(), '--intent', JSON.stringify(intent), '--rpc', chain.url, '--blockhash', BLOCKHASH, '--mark-price', String(MARK), '--price-drift-bps', '0', ...extra];
  if (route === 'perps-execute') argv.push('--transaction-type', 'instant');
  const run = await runCommandInProcess(txCommand, [...argv, base64]);
  return { code: run.code, out: JSON.parse(run.stdout) as { ok: boolean; violations: Array<{ rule: PolicyRule; detail: string }> } };
}

interface HostileCase {
  readonly name: string;
  readonly rule: PolicyRule;
  readonly route?: Route;
  readonly first?: () => TransactionInstruction[];
  readonly last?: () => TransactionInstruction[];
}

const cases: HostileCase[] = [
  // Durable nonces: every nonce instruction of the System program, wherever it sits.
  { name: 'advanceNonceAccount first (a durable transaction)', rule: 'durable_nonce', first: () => [SystemProgram.nonceAdvance({ noncePubkey: nonce, authorizedPubkey: wallet })] },
  { name: 'advanceNonceAccount after the venue instruction', rule: 'durable_nonce', last: () => [SystemProgram.nonceAdvance({ noncePubkey: nonce, authorizedPubkey: wallet })] },
  {
    name: 'withdrawNonceAccount back into the wallet',
    rule: 'durable_nonce',
    last: () => [SystemProgram.nonceWithdraw({ noncePubkey: nonce, authorizedPubkey: wallet, toPubkey: wallet, lamports: 1 })],
  },
  { name: 'initializeNonceAccount with the wallet as authority', rule: 'durable_nonce', last: () => [SystemProgram.nonceInitialize({ noncePubkey: nonce, authorizedPubkey: wallet })] },
  {
    name: 'authorizeNonceAccount to the wallet',
    rule: 'durable_nonce',
    last: () => [SystemProgram.nonceAuthorize({ noncePubkey: nonce, authorizedPubkey: wallet, newAuthorizedPubkey: wallet })],
  },
  { name: 'upgradeNonceAccount (System instruction 12)', rule: 'durable_nonce', last: () => [system([12, 0, 0, 0], [{ pubkey: nonce, isSigner: false, isWritable: true }])] },
  // Exact ownership.
  {
    name: "lamports 'wrapped' into the wallet's wSOL ATA under Token-2022 (not the wSOL program)",
    rule: 'value_transfer',
    last: () => [SystemProgram.transfer({ fromPubkey: wallet, toPubkey: ata(wallet, wsol, TOKEN_2022), lamports: 1_000_000_000n }), spl.syncNative(ata(wallet, wsol, TOKEN_2022))],
  },
  {
    name: "lamports into the wallet's wSOL ATA with no syncNative after them",
    rule: 'value_transfer',
    last: () => [SystemProgram.transfer({ fromPubkey: wallet, toPubkey: ata(wallet, wsol), lamports: 1_000_000_000n })],
  },
  {
    name: "lamports into the wallet's USDC account, then syncNative",
    rule: 'value_transfer',
    last: () => [SystemProgram.transfer({ fromPubkey: wallet, toPubkey: ata(wallet, usdc), lamports: 1_000_000_000n }), spl.syncNative(ata(wallet, usdc))],
  },
  {
    name: "closing the wallet's wSOL account into its Token-2022 twin",
    rule: 'account_close',
    last: () => [spl.closeAccount(ata(wallet, wsol), ata(wallet, wsol, TOKEN_2022), wallet)],
  },
  {
    name: 'the keeper slot moving tokens out of the wallet ATA of an unlisted mint (plain transfer, no mint named)',
    rule: 'value_transfer',
    route: 'perps-execute',
    last: () => [spl.transfer(ata(wallet, unlisted), ata(thief, unlisted), keeper, 5_000_000n)],
  },
  {
    name: 'the keeper slot moving tokens out of the wallet ATA of a Token-2022 mint (transferChecked)',
    rule: 'value_transfer',
    route: 'perps-execute',
    last: () => [spl.transferChecked(ata(wallet, t22Mint, TOKEN_2022), t22Mint, ata(thief, t22Mint, TOKEN_2022), keeper, 1n, 6, TOKEN_2022)],
  },
  {
    name: 'the keeper slot approving a delegate on the wallet ATA of an unlisted mint',
    rule: 'token_approval',
    route: 'perps-execute',
    last: () => [spl.approve(ata(wallet, unlisted), thief, keeper, 5_000_000n)],
  },
  {
    name: 'a 10 MiB account funded by the wallet at exactly its rent (≈ 73 SOL)',
    rule: 'value_transfer',
    last: () => {
      const space = 10 * 1024 * 1024;
      return [SystemProgram.createAccount({ fromPubkey: wallet, newAccountPubkey: randomKey(), lamports: (128 + space) * 6960, space, programId: TOKEN })];
    },
  },
  {
    name: "initializeAccount3 making someone's existing account count as the wallet's, then filling it",
    rule: 'account_ownership',
    last: () => {
      const planted = randomKey();
      const data = Buffer.concat([Buffer.from([18]), wallet.toBuffer()]);
      const init = new TransactionInstruction({
        programId: TOKEN,
        keys: [
          { pubkey: planted, isSigner: false, isWritable: true },
          { pubkey: usdc, isSigner: false, isWritable: false },
        ],
        data,
      });
      return [init, spl.transfer(ata(wallet, usdc), planted, wallet, 1_000_000n)];
    },
  },
];

describe('hostile variants of a venue decrease, judged by the executor and by stratd tx inspect', () => {
  for (const route of ['rpc', 'perps-execute'] as const) {
    it(`the untampered venue transaction passes both (${route})`, async () => {
      const tx = venueDecrease({ payer: wallet, blockhash: BLOCKHASH, position, ...(route === 'perps-execute' ? { keeper } : {}) });
      expect(await byExecutor(tx, route)).toMatchObject({ ok: true, violations: [] });
      expect(await byCli(base64Of(tx), route)).toMatchObject({ code: 0, out: { ok: true, violations: [] } });
    });
  }

  it("an honest wrap into the wallet's own wSOL account and the unwrap pass both", async () => {
    const tx = tamper(venueDecrease({ payer: wallet, blockhash: BLOCKHASH, position }), {
      first: [
        spl.createAta(wallet, wallet, wsol),
        SystemProgram.transfer({ fromPubkey: wallet, toPubkey: ata(wallet, wsol), lamports: 2_000_000_000n }),
        spl.syncNative(ata(wallet, wsol)),
      ],
      last: [spl.closeAccount(ata(wallet, wsol), wallet, wallet)],
    });
    expect(await byExecutor(tx, 'rpc')).toMatchObject({ ok: true });
    expect((await byCli(base64Of(tx), 'rpc')).code).toBe(0);
  });

  for (const c of cases) {
    it(`${c.name}: ${c.rule}`, async () => {
      const route = c.route ?? 'rpc';
      const honest = venueDecrease({ payer: wallet, blockhash: BLOCKHASH, position, ...(route === 'perps-execute' ? { keeper } : {}) });
      const tx = tamper(honest, { first: c.first?.(), last: c.last?.() });
      const executor = await byExecutor(tx, route);
      expect(executor.ok).toBe(false);
      expect(executor.violations.map((v) => v.rule)).toContain(c.rule);
      const cli = await byCli(base64Of(tx), route);
      expect(cli.code).toBe(3);
      expect(cli.out.violations.map((v) => v.rule)).toEqual(executor.violations.map((v) => v.rule));
    });
  }

  it('the account-size bound follows execution.maxAccountSpaceBytes in tx inspect too', async () => {
    const create = SystemProgram.createAccount({ fromPubkey: wallet, newAccountPubkey: randomKey(), lamports: (128 + 200) * 6960, space: 200, programId: TOKEN });
    const tx = tamper(venueDecrease({ payer: wallet, blockhash: BLOCKHASH, position }), { last: [create] });
    const strict = await byCli(base64Of(tx), 'rpc');
    expect(strict.out.violations.map((v) => v.rule)).toContain('value_transfer');
    expect(strict.out.violations.find((v) => v.rule === 'value_transfer')?.detail).toContain('165-byte bound');
    // A wider bound lifts the size refusal (the new account's signer and the rent outflow to it are
    // still refused by their own rules).
    const wider = await byCli(base64Of(tx), 'rpc', ['--set', 'execution.maxAccountSpaceBytes=200']);
    expect(wider.out.violations.map((v) => v.rule)).toEqual(['unexpected_signer', 'intent_exceeded']);
  });

  it('without an intent, tx inspect applies the strictest bounds: nothing may leave the wallet, even to a known account', async () => {
    const tx = tamper(venueDecrease({ payer: wallet, blockhash: BLOCKHASH, position }), {
      last: [SystemProgram.transfer({ fromPubkey: wallet, toPubkey: position, lamports: 1n })],
    });
    // Configured for live mode, as on an operator's machine, without the deployment's secrets: tx
    // inspect reads only execution.*, so it judges rather than refusing the configuration.
    const noIntent = await runCli(['tx', 'inspect', '--wallet', wallet.toBase58(), '--operation', 'perps.decrease', '--known-account', position.toBase58(), base64Of(tx)], {
      env: { STRATD_MODE: 'live', STRATD_API_KEY: '', STRATD_RPC_URL: '' },
    });
    expect(noIntent.code, noIntent.stderr).toBe(3);
    expect(noIntent.stdout).toContain('intent_exceeded');
  }, 30_000);

  it('a version-1 message is a malformed verdict for the executor, and tx inspect refuses it', async () => {
    const honest = venueDecrease({ payer: wallet, blockhash: BLOCKHASH, position });
    const v1 = asVersion1(honest);
    const parsed = VersionedTransaction.deserialize(v1); // web3.js reads it; nothing can serialize it again
    expect(parsed.version).toBe(1);
    const verdict = await byExecutor(parsed, 'rpc');
    expect(verdict).toMatchObject({ ok: false, violations: [{ rule: 'malformed', detail: expect.stringContaining('version 1') }], messageSha256: '' });
    const cli = await byCli(Buffer.from(v1).toString('base64'), 'rpc');
    expect(cli.code).toBe(2);
    expect(cli.out.violations).toEqual([{ rule: 'malformed', detail: expect.stringContaining('version 1') }]);
  });

  it('the real stratd binary refuses the durable-nonce decrease with exit 3', async () => {
    const tx = tamper(venueDecrease({ payer: wallet, blockhash: BLOCKHASH, position }), { first: [SystemProgram.nonceAdvance({ noncePubkey: nonce, authorizedPubkey: wallet })] });
    const result = await runCli(['tx', 'inspect', '--wallet', wallet.toBase58(), '--intent', JSON.stringify(intent), '--rpc', chain.url, '--mark-price', String(MARK), '-'], { input: base64Of(tx) });
    expect(result.code, result.stderr).toBe(3);
    expect((JSON.parse(result.stdout) as { violations: Array<{ rule: string }> }).violations.map((v) => v.rule)).toEqual(['durable_nonce']);
  }, 30_000);
});
