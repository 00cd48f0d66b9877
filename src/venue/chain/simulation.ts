import type { VersionedMessage } from '@solana/web3.js';
import { PROGRAMS } from '../../chain/programs.ts';
import { computeBudgetOf } from './compute-budget.ts';

// Deterministic per-program costs: the venue does not execute programs, but simulation
// results must look like a real run (logs per instruction, units within the limit).
const UNITS: Readonly<Record<string, number>> = {
  [PROGRAMS.computeBudget]: 150,
  [PROGRAMS.system]: 150,
  [PROGRAMS.token]: 4_645,
  [PROGRAMS.token2022]: 4_645,
  [PROGRAMS.associatedToken]: 21_000,
  [PROGRAMS.memo]: 6_000,
  [PROGRAMS.memoV1]: 6_000,
};
const DEFAULT_PROGRAM_UNITS = 38_000;

interface SimulatedExecution {
  readonly logs: string[];
  readonly unitsConsumed: number;
}

/** The logs and compute units a successful execution of `message` reports. */
export function simulateExecution(message: VersionedMessage): SimulatedExecution {
  const keys = message.staticAccountKeys;
  const { unitLimit } = computeBudgetOf(message);
  const logs: string[] = [];
  let consumed = 0;
  for (const ix of message.compiledInstructions) {
    const program = keys[ix.programIdIndex]?.toBase58() ?? 'unknown';
    const units = Math.min(UNITS[program] ?? DEFAULT_PROGRAM_UNITS, Math.max(unitLimit - consumed, 0));
    consumed += units;
    logs.push(`Program ${program} invoke [1]`);
    if (UNITS[program] === undefined) {
      logs.push('Program log: Instruction: VenueRequest');
      logs.push(`Program ${program} consumed ${String(units)} of ${String(unitLimit - consumed + units)} compute units`);
    }
    logs.push(`Program ${program} success`);
  }
  return { logs, unitsConsumed: consumed };
}

/** A change of one holder's balance of one mint (the SOL mint: lamports, as ChainLedger keeps them). */
export interface BalanceChange {
  readonly owner: string;
  readonly mint: string;
  readonly delta: bigint;
}

/** An associated token account as a node shows it: whose, and how much it holds. */
export interface TokenAccountView {
  readonly owner: string;
  readonly mint: string;
  readonly amount: bigint;
}

/** Balances by address, as getAccountInfo reads them: the chain now, or a simulation's post-state. */
export interface AccountView {
  getBalance(address: string): bigint;
  tokenAccountAt(address: string): TokenAccountView | undefined;
}

/** A would-be balance below zero: the transaction fails as its landing would (insufficient funds). */
export class SimulatedShortfall extends Error {
  override readonly name = 'SimulatedShortfall';
  readonly kind = 'insufficient_funds' as const;
}

/**
 * The chain's state after `changes`, read through without copying or touching it: lamports
 * and token balances are the chain's plus the summed changes. Throws SimulatedShortfall when a
 * change takes more than a holder has (the landing's debit would fail).
 */
export class PostStateView implements AccountView {
  readonly #deltas = new Map<string, bigint>();

  constructor(
    private readonly base: {
      getBalance(owner: string): bigint;
      getTokenBalance(owner: string, mint: string): bigint;
      tokenAccountAt(address: string): TokenAccountView | undefined;
      tokenHolderAt(address: string): { readonly owner: string; readonly mint: string } | undefined;
      noteTokenHolder(holder: { readonly owner: string; readonly mint: string }): void;
    },
    private readonly solMint: string,
    changes: readonly BalanceChange[],
  ) {
    for (const change of changes) {
      const key = `${change.owner}/${change.mint}`;
      this.#deltas.set(key, (this.#deltas.get(key) ?? 0n) + change.delta);
      if (change.mint !== solMint && change.delta > 0n) base.noteTokenHolder(change);
    }
    for (const [key, delta] of this.#deltas) {
      const [owner = '', mint = ''] = key.split('/');
      const before = mint === solMint ? base.getBalance(owner) : base.getTokenBalance(owner, mint);
      if (before + delta < 0n) throw new SimulatedShortfall(`${owner} holds ${before.toString()} of ${mint}, the transaction takes ${(-delta).toString()}`);
    }
  }

  getBalance(address: string): bigint {
    return this.base.getBalance(address) + (this.#deltas.get(`${address}/${this.solMint}`) ?? 0n);
  }

  tokenAccountAt(address: string): TokenAccountView | undefined {
    const holder = this.base.tokenHolderAt(address);
    if (!holder) return undefined;
    const key = `${holder.owner}/${holder.mint}`;
    // An account the chain does not hold yet exists afterwards only when the transaction credits it.
    if (this.base.tokenAccountAt(address) === undefined && !this.#deltas.has(key)) return undefined;
    const amount = this.base.getTokenBalance(holder.owner, holder.mint) + (this.#deltas.get(key) ?? 0n);
    return { owner: holder.owner, mint: holder.mint, amount };
  }
}
