import { PublicKey } from '@solana/web3.js';
import { MINTS } from '../../api/mints.ts';
import { PROGRAMS } from '../programs.ts';
import type { Violation } from './verdict.ts';

/**
 * What the wallet's balances may do when the transaction executes, by mint (smallest units; the
 * SOL mint counts the wallet's lamports together with its wrapped-SOL account).
 */
export interface SimulationBounds {
  /** Lamports the wallet may spend besides any SOL the intent moves: fee, priority fee, rent of accounts the operation creates. */
  readonly maxLamportsSpent: bigint;
  /** The most the wallet's holdings of a mint may fall. A mint not named: nothing may leave. */
  readonly maxOutflow: Readonly<Record<string, bigint>>;
  /** Exactly this must leave (an escrow: a trigger order's making amount, a recurring order's deposit). */
  readonly exactOutflow?: Readonly<Record<string, bigint>>;
  /** At least this must arrive (a swap's minimum out). */
  readonly minInflow?: Readonly<Record<string, bigint>>;
}

/** An account the check asks the simulation about: the wallet, or one of its token accounts of `mint`. */
export type WatchedAccount = { readonly address: string; readonly kind: 'wallet' } | { readonly address: string; readonly kind: 'token'; readonly mint: string };

/** An account as the node reported it (null: no account at that address). */
export interface ReportedAccount {
  readonly lamports: bigint;
  readonly owner: string;
  readonly data: Uint8Array;
}

/** What simulateTransaction answered: its error (null: it would succeed), logs and the post-state of the watched accounts. */
export interface SimulationReport {
  readonly err: unknown;
  readonly logs: readonly string[];
  readonly accounts: ReadonlyArray<ReportedAccount | null>;
}

const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([PROGRAMS.token, PROGRAMS.token2022]);
const TOKEN_ACCOUNT_SIZE = 165;

/** A token account's amount, or a reason it is not the token account of `mint` owned by `wallet`. */
function tokenAmount(account: ReportedAccount, mint: string, wallet: string): bigint | string {
  if (!TOKEN_PROGRAMS.has(account.owner)) return `is owned by ${account.owner}, not a token program`;
  if (account.data.length < TOKEN_ACCOUNT_SIZE) return `holds ${String(account.data.length)} bytes, not a token account's ${String(TOKEN_ACCOUNT_SIZE)}`;
  const data = Buffer.from(account.data.buffer, account.data.byteOffset, account.data.byteLength);
  const accountMint = new PublicKey(data.subarray(0, 32)).toBase58();
  const owner = new PublicKey(data.subarray(32, 64)).toBase58();
  if (accountMint !== mint) return `holds mint ${accountMint}, not ${mint}`;
  if (owner !== wallet) return `is owned by ${owner}, not the wallet`;
  return data.readBigUInt64LE(64);
}

/** The wallet's lamports, or a reason the account is not the wallet (a system account without data). */
function walletLamports(account: ReportedAccount): bigint | string {
  if (account.owner !== PROGRAMS.system) return `is owned by ${account.owner}, not the System program`;
  if (account.data.length !== 0) return `holds ${String(account.data.length)} bytes of data, a wallet holds none`;
  return account.lamports;
}

/** Per watched account: its balance (lamports or token amount; 0 where no account exists), or a reason it cannot be read as asked. */
function balances(watched: readonly WatchedAccount[], accounts: ReadonlyArray<ReportedAccount | null>, wallet: string): Array<bigint | string> {
  return watched.map((w, i) => {
    const account = accounts[i];
    if (account === null || account === undefined) return 0n;
    return w.kind === 'wallet' ? walletLamports(account) : tokenAmount(account, w.mint, wallet);
  });
}

/**
 * Rules simulation_failed, simulation_invalid and simulation_delta: compares the watched accounts
 * before (`pre`, read at the simulation's slot) and after the simulated execution (`report`) with
 * what the intent allows. A simulation that says the transaction would fail is refused; answers
 * that are not the accounts asked for (fewer, another order, data that is no such account) are
 * refused, never read as a pass.
 */
export function checkSimulation(
  wallet: string,
  watched: readonly WatchedAccount[],
  pre: ReadonlyArray<ReportedAccount | null>,
  report: SimulationReport,
  bounds: SimulationBounds,
): Violation[] {
  if (report.err !== null && report.err !== undefined) {
    const tail = report.logs.slice(-2).join(' | ');
    return [{ rule: 'simulation_failed', detail: `the simulation says the transaction would fail: ${JSON.stringify(report.err)}${tail ? ` (${tail})` : ''}` }];
  }
  for (const [name, answers] of [['the simulation', report.accounts], ['the pre-state read', pre]] as const) {
    if (answers.length !== watched.length) {
      return [{ rule: 'simulation_invalid', detail: `${name} answered ${String(answers.length)} accounts for the ${String(watched.length)} asked` }];
    }
  }
  const before = balances(watched, pre, wallet);
  const after = balances(watched, report.accounts, wallet);
  const invalid: Violation[] = [];
  watched.forEach((w, i) => {
    for (const [name, value] of [['before', before[i]], ['after', after[i]]] as const) {
      if (typeof value === 'string') invalid.push({ rule: 'simulation_invalid', detail: `account ${String(i)} (${w.address}) ${name} the transaction ${value}: not the account asked for` });
    }
  });
  if (invalid.length > 0) return invalid;

  // What left the wallet, by mint; the SOL mint: the lamports spent and the wrapped-SOL account.
  const outflow = new Map<string, { amount: bigint; accounts: string[] }>();
  const add = (mint: string, amount: bigint, account: string) => {
    const entry = outflow.get(mint) ?? { amount: 0n, accounts: [] };
    entry.amount += amount;
    entry.accounts.push(account);
    outflow.set(mint, entry);
  };
  watched.forEach((w, i) => add(w.kind === 'wallet' ? MINTS.SOL : w.mint, (before[i] as bigint) - (after[i] as bigint), w.address));
  if (!outflow.has(MINTS.SOL)) add(MINTS.SOL, 0n, wallet);

  const violations: Violation[] = [];
  for (const [mint, { amount, accounts }] of outflow) {
    // Lamports pay the fee and the rent: on the SOL mint the bounds stretch by that much.
    const slack = mint === MINTS.SOL ? bounds.maxLamportsSpent : 0n;
    const where = accounts.join(', ');
    const exact = bounds.exactOutflow?.[mint];
    const minIn = bounds.minInflow?.[mint];
    const delta = (bound: bigint, relation: 'at_most' | 'exactly' | 'at_least', what: string): Violation => ({
      rule: 'simulation_delta',
      detail: `${where} (mint ${mint}): ${amount >= 0n ? `${amount.toString()} would leave the wallet` : `${(-amount).toString()} would arrive`}, ${what} ${bound.toString()}${slack > 0n ? ` (fees and rent included)` : ''}`,
      evidence: { account: accounts[0] ?? wallet, mint, amount: amount.toString(), bound: bound.toString(), relation },
    });
    if (exact !== undefined) {
      if (amount < exact || amount > exact + slack) violations.push(delta(exact, 'exactly', 'where the intent escrows exactly'));
    } else {
      const max = (bounds.maxOutflow[mint] ?? 0n) + slack;
      if (amount > max) violations.push(delta(max, 'at_most', 'above the bound of'));
    }
    if (minIn !== undefined && -amount < minIn - slack) violations.push(delta(minIn, 'at_least', 'where at least this must arrive:'));
  }
  for (const [mint, minIn] of Object.entries(bounds.minInflow ?? {})) {
    if (!outflow.has(mint) && minIn > 0n) violations.push({ rule: 'simulation_invalid', detail: `no account of mint ${mint} was watched: the minimum out ${minIn.toString()} cannot be seen` });
  }
  return violations;
}
