// `stratd tx inspect` and `stratd keygen` as an operator runs them: a real process, real bytes (option
// and usage cases that a process proves nothing more for run the command's own code in-process).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AddressLookupTableProgram, Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalKeypairSigner } from '../../src/chain/signer.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../src/chain/programs.ts';
import { txCommand } from '../../src/cli/commands/tx.ts';
import { runCommandInProcess } from '../support/cli.ts';
import { buildTx, computeBudget, lookupTable, lookupTableAccountData, productInstruction, randomKey, toBase64 } from './fixtures.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function stratd(args: string[], stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/stratd.js', ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/** `stratd tx ...` by the command's own code in this process (see runCommandInProcess). */
function inProcess(args: string[]): Promise<Run> {
  if (args[0] !== 'tx') throw new Error(`inProcess runs tx commands, got ${args[0] ?? '(none)'}`);
  return runCommandInProcess(txCommand, args.slice(1));
}

const wallet = Keypair.generate().publicKey;
const clean = buildTx({ payer: wallet, version: 0, instructions: [...computeBudget(), productInstruction(PROGRAMS.trigger, wallet)] });
const draining = buildTx({
  payer: wallet,
  version: 'legacy',
  instructions: [...computeBudget(), productInstruction(PROGRAMS.trigger, wallet), SystemProgram.transfer({ fromPubkey: wallet, toPubkey: randomKey(), lamports: 5n })],
});

describe('stratd tx inspect', () => {
  it('exits 0 and prints the decoded transaction for an allowed one', async () => {
    const run = await stratd(['tx', 'inspect', '--wallet', wallet.toBase58(), '--operation', 'trigger.createOrder', toBase64(clean)]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { ok: boolean; violations: unknown[]; decoded: { feePayer: string; version: number } };
    expect(out).toMatchObject({ ok: true, violations: [], decoded: { feePayer: wallet.toBase58(), version: 0 } });
  });

  it('exits 3 with the rule named for a rejected one, read from stdin', async () => {
    const run = await stratd(['tx', 'inspect', '--wallet', wallet.toBase58(), '--operation', 'trigger.createOrder', '-'], `${toBase64(draining)}\n`);
    expect(run.code, run.stderr).toBe(3);
    const out = JSON.parse(run.stdout) as { ok: boolean; violations: Array<{ rule: string; detail: string }> };
    expect(out.ok).toBe(false);
    expect(out.violations.map((v) => v.rule)).toEqual(['value_transfer']);
  });

  it('judges a trigger order by its decoded instruction in live mode too (no setting signs one unchecked any more)', async () => {
    const base = ['tx', 'inspect', '--wallet', wallet.toBase58(), '--operation', 'trigger.createOrder', toBase64(clean)];
    const live = await stratd([...base, '--set', 'mode=live']);
    expect(live.code, live.stderr).toBe(0);
    const removed = await stratd([...base, '--set', 'mode=live', '--set', 'execution.allowUncheckedTriggerOrders=true']);
    expect(removed.code).toBe(2);
  });

  it('judges the bytes, not the operation named: a trigger order under a cancel, nothing under a decrease (exit 3)', async () => {
    const nothing = buildTx({ payer: wallet, version: 0, instructions: computeBudget() });
    const [underCancel, underDecrease] = await Promise.all([
      stratd(['tx', 'inspect', '--wallet', wallet.toBase58(), '--operation', 'trigger.cancelOrder', '--set', 'mode=live', toBase64(clean)]),
      stratd(['tx', 'inspect', '--wallet', wallet.toBase58(), '--operation', 'perps.decrease', toBase64(nothing)]),
    ]);
    expect(underCancel.code, underCancel.stderr).toBe(3);
    expect((JSON.parse(underCancel.stdout) as { violations: unknown[] }).violations).toEqual([
      { rule: 'product_instruction', detail: 'instruction 2: trigger.cancelOrder carries initialize_order of the limit-order program; allowed: cancel_order' },
      { rule: 'product_instruction', detail: expect.stringContaining('carries no cancel_order instruction') },
    ]);
    expect(underDecrease.code, underDecrease.stderr).toBe(3);
    expect((JSON.parse(underDecrease.stdout) as { violations: unknown[] }).violations).toEqual([
      { rule: 'product_instruction', detail: expect.stringContaining('perps.decrease carries no createDecreasePositionMarketRequest or instantDecreasePosition instruction') },
    ]);
  });

  it('applies --priority-fee-cap, --blockhash and --transaction-type', async () => {
    const base = ['tx', 'inspect', '--wallet', wallet.toBase58(), '--operation', 'trigger.createOrder'];
    const keeper = randomKey();
    const instant = toBase64(buildTx({ payer: wallet, version: 0, instructions: [...computeBudget(), productInstruction(PROGRAMS.perps, wallet, [keeper])] }));
    const tpsl = ['tx', 'inspect', '--wallet', wallet.toBase58(), '--operation', 'perps.createTpsl'];
    // The command's own code in this process: exits 0 and 3 through a real process are proven by
    // the tests above; a process per option (each paying the tsx start-up) proves nothing more.
    const capped = await inProcess([...base, '--priority-fee-cap', '1', toBase64(clean)]);
    const stale = await inProcess([...base, '--blockhash', randomKey().toBase58(), toBase64(clean)]);
    const asLegacy = await inProcess([...tpsl, instant]);
    const asInstant = await inProcess([...tpsl, '--transaction-type', 'instant', instant]);
    expect(capped.code).toBe(3);
    expect(capped.stdout).toContain('priority_fee_cap');
    expect(stale.code).toBe(3);
    expect(stale.stdout).toContain('blockhash_mismatch');
    expect(asLegacy.code).toBe(3);
    expect(asLegacy.stdout).toContain('unexpected_signer');
    expect(asInstant.code, asInstant.stdout).toBe(0);
  });

  it('exits 2 on unreadable input and on usage errors', async () => {
    const w = wallet.toBase58();
    const tx = toBase64(clean);
    // Exit 2 through a real process once (stdin needs one); the other cases in this process.
    const fromStdin = stratd(['tx', 'inspect', '--wallet', w, '--operation', 'trigger.createOrder', '-'], '%%%');
    const unreadable = await inProcess(['tx', 'inspect', '--wallet', w, '--operation', 'trigger.createOrder', 'bm90IGEgdHJhbnNhY3Rpb24=']);
    const rest = [];
    for (const args of [
      ['tx', 'inspect', '--operation', 'trigger.createOrder', tx],
      ['tx', 'inspect', '--wallet', 'nope', '--operation', 'trigger.createOrder', tx],
      ['tx', 'inspect', '--wallet', w, '--operation', 'no.such', tx],
      ['tx', 'inspect', '--wallet', w, '--operation', 'trigger.createOrder'],
    ]) rest.push(await inProcess(args));
    const runs = [unreadable, await fromStdin, ...rest];
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(JSON.parse(runs[0]?.stdout ?? '')).toMatchObject({ decoded: null, ok: false, violations: [{ rule: 'malformed' }] });
    expect(runs[2]?.stderr).toContain('--wallet');
  });

  describe('--rpc', () => {
    let server: Server;
    let url = '';
    const tableKey = randomKey();
    // The perps pool: a shared account live tables do carry, in a role the policy checks.
    const pool = new PublicKey(PERPS_ACCOUNTS.pool);
    const table = lookupTable(tableKey, [pool]);

    beforeAll(async () => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        req.on('end', () => {
          const call = JSON.parse(body) as { id: number; method: string; params: [string | string[]] };
          const data = lookupTableAccountData(table.state.addresses);
          const account = (key: string) =>
            key === tableKey.toBase58()
              ? { data: [data.toString('base64'), 'base64'], executable: false, lamports: 1, owner: AddressLookupTableProgram.programId.toBase58(), rentEpoch: 0, space: data.length }
              : null;
          // getAccountInfo for the table; getMultipleAccounts for the policy's mints and token accounts.
          const [keys] = call.params;
          const value = Array.isArray(keys) ? keys.map(account) : account(keys);
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { context: { slot: 100 }, value } }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('resolves lookup tables through the RPC; without it they are unresolved', async () => {
      const tx = buildTx({
        payer: wallet,
        version: 0,
        lookupTables: [table],
        instructions: [...computeBudget(), productInstruction(PROGRAMS.perps, wallet)],
      });
      const base = ['tx', 'inspect', '--wallet', wallet.toBase58(), '--operation', 'perps.increase'];
      const [resolved, without] = await Promise.all([stratd([...base, '--rpc', url, toBase64(tx)]), stratd([...base, toBase64(tx)])]);
      expect(resolved.code, resolved.stdout + resolved.stderr).toBe(0);
      expect(without.code).toBe(3);
      expect(without.stdout).toContain('unresolved_lookup');
    });
  });
});

describe('stratd keygen', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratd-keygen-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a 0600 key file the signer loads, prints only the public key, and never overwrites without --force', async () => {
    const path = join(dir, 'wallet.json');
    const run = await stratd(['keygen', '--out', path]);
    expect(run.code, run.stderr).toBe(0);
    const printed = run.stdout.trim();
    expect(printed).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const signer = await LocalKeypairSigner.fromKeyFile(path, { mode: 'live' });
    expect(signer.publicKey.toBase58()).toBe(printed);

    const again = await stratd(['keygen', '--out', path]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('--force');
    expect((await LocalKeypairSigner.fromKeyFile(path, { mode: 'live' })).publicKey.toBase58()).toBe(printed);

    const forced = await stratd(['keygen', '--out', path, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout.trim()).not.toBe(printed);
    expect((await LocalKeypairSigner.fromKeyFile(path, { mode: 'live' })).publicKey.toBase58()).toBe(forced.stdout.trim());
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    expect((await stratd(['keygen'])).code).toBe(2);
  });
});
