import { z } from 'zod';
import { uintString } from '../api/amounts.ts';
import { MINTS } from '../api/mints.ts';
import type { WalletBalancesRecord } from '../records/recording.ts';
import type { Snapshot, SnapshotOf } from '../sdk/snapshot.ts';
import { marketSpec } from '../venue/market/assets.ts';
import { MarketError } from '../venue/market/errors.ts';
import { derivedSignature } from '../venue/market/keys.ts';
import type { Market } from '../venue/market/market.ts';

/**
 * What the backtest's paper wallet starts with besides the recorded positions: the recorded
 * wallet's balances and its open trigger, limit and recurring orders, re-created on the venue's own
 * books (its state, as a landed creation would leave it; nothing is signed for them).
 */

/** The paper wallet's funding without recorded balances: 10 SOL and 10,000 USDC. */
const DEFAULT_FUNDING = { lamports: 10_000_000_000n, usdc: 10_000_000_000n } as const;

/** Which balances the paper wallet was funded with. Amounts are each token's smallest unit. */
export interface Funding {
  /** 'recording': its first balances line (SOL or USDC it lacks take the default); 'default': the recording has none. */
  readonly from: 'recording' | 'default';
  readonly lamports: string;
  /** mint → smallest units (USDC included). */
  readonly tokens: Readonly<Record<string, string>>;
  /** Balances the recording did not hold, funded with the default. */
  readonly defaulted: readonly string[];
}

/** The paper wallet's funding: the first recorded balances (the daemon writes them at start), else the default. */
export function fundingFrom(balances: readonly WalletBalancesRecord[]): Funding {
  const first = balances[0];
  if (!first) return { from: 'default', lamports: DEFAULT_FUNDING.lamports.toString(), tokens: { [MINTS.USDC]: DEFAULT_FUNDING.usdc.toString() }, defaulted: [] };
  const defaulted = [...(first.lamports === undefined ? ['SOL'] : []), ...(first.tokens[MINTS.USDC] === undefined ? ['USDC'] : [])];
  return {
    from: 'recording',
    lamports: first.lamports ?? DEFAULT_FUNDING.lamports.toString(),
    tokens: { ...first.tokens, [MINTS.USDC]: first.tokens[MINTS.USDC] ?? DEFAULT_FUNDING.usdc.toString() },
    defaulted,
  };
}

/** Orders re-created for the paper wallet, by kind, and what could not be (with why). */
export interface SeededOrders {
  readonly trigger: number;
  readonly limit: number;
  readonly recurring: number;
  readonly skipped: readonly string[];
}

// What the recorded replies carry besides the fields the snapshot schema names (the schemas are loose).
const recurringCycle = z.looseObject({ cycleFrequency: z.string().regex(/^[1-9]\d*$/), rawInAmountPerCycle: uintString, rawInWithdrawn: uintString.optional() });
const triggerSlippage = z.looseObject({ slippageBps: z.string().regex(/^\d+$/).optional() });

/**
 * Re-creates the recorded wallet's open orders for `wallet` on the venue's books: those of the
 * recording's first trigger-, limit- and recurring-orders snapshot, at venue time `atMs`. Each is
 * what is left of it (the remaining making/taking amounts, the undelivered deposit), its escrow
 * credited first and then taken by the order, so the wallet's balances stay as funded. An order the
 * venue refuses (an unknown token, an expiry already past, a book limit) is skipped with its reason.
 * Trigger and recurring orders keep their recorded keys, so a strategy sees the keys the daemon saw.
 */
export function seedRecordedOrders(market: Market, wallet: string, snapshots: readonly Snapshot[], atMs: number): SeededOrders {
  const first = <K extends Snapshot['kind']>(kind: K) => snapshots.find((s): s is SnapshotOf<K> => s.kind === kind);
  const skipped: string[] = [];
  const escrowed = (mint: string, amount: bigint, create: () => void, what: string): boolean => {
    market.ledger.credit(wallet, mint, amount);
    try {
      create();
      return true;
    } catch (error) {
      if (!(error instanceof MarketError)) throw error;
      market.ledger.debit(wallet, mint, amount);
      skipped.push(`${what}: ${error.message}`);
      return false;
    }
  };
  let trigger = 0;
  for (const order of first('triggerOrders')?.orders ?? []) {
    const what = `trigger order ${order.orderKey}`;
    const making = order.rawRemainingMakingAmount ?? order.rawMakingAmount;
    const taking = order.rawRemainingTakingAmount ?? order.rawTakingAmount;
    if (making === undefined || taking === undefined) {
      skipped.push(`${what}: the recording carries no raw amounts`);
      continue;
    }
    const expiredAtMs = order.expiredAt === null ? null : Date.parse(order.expiredAt);
    if (expiredAtMs !== null && Number.isNaN(expiredAtMs)) {
      skipped.push(`${what}: expiredAt ${order.expiredAt ?? ''} is not a time`);
      continue;
    }
    const slippage = triggerSlippage.safeParse(order);
    const create = () => {
      const planned = market.triggers.planCreate(
        { maker: wallet, inputMint: order.inputMint, outputMint: order.outputMint, makingAmount: BigInt(making), takingAmount: BigInt(taking), expiredAtSec: expiredAtMs === null ? null : Math.floor(expiredAtMs / 1000), slippageBps: Number(slippage.success ? (slippage.data.slippageBps ?? '0') : '0') },
        atMs,
      );
      if (planned.kind === 'trigger.create') market.triggers.land({ ...planned, orderKey: order.orderKey }, derivedSignature('backtest-seed', order.orderKey), atMs);
    };
    if (escrowed(order.inputMint, BigInt(making), create, what)) trigger += 1;
  }
  let limit = 0;
  for (const order of (first('limitOrders')?.orders ?? []).filter((o) => !o.executed)) {
    const what = `limit order ${order.positionRequestPubkey}`;
    const spec = marketSpec(order.marketMint);
    if (!spec || order.triggerPrice === null) {
      skipped.push(`${what}: ${spec ? 'no trigger price' : `unknown market ${order.marketMint}`}`);
      continue;
    }
    const input = { owner: wallet, market: spec, side: order.side, collateralMint: order.side === 'long' ? spec.mint : MINTS.USDC, inputMint: order.inputMint, inputAmount: BigInt(order.collateralTokenAmount), sizeUsdDelta: BigInt(order.sizeUsdDelta), triggerPrice: BigInt(order.triggerPrice) };
    if (escrowed(order.inputMint, input.inputAmount, () => void market.limitOrders.create(input, atMs), what)) limit += 1;
  }
  let recurring = 0;
  for (const order of first('recurringOrders')?.orders ?? []) {
    const what = `recurring order ${order.orderKey}`;
    const cycle = recurringCycle.safeParse(order);
    if (!cycle.success) {
      skipped.push(`${what}: the recording carries no cycle (cycleFrequency, rawInAmountPerCycle)`);
      continue;
    }
    const left = BigInt(order.rawInDeposited) - BigInt(order.rawInUsed) - BigInt(cycle.data.rawInWithdrawn ?? '0');
    const perCycle = BigInt(cycle.data.rawInAmountPerCycle);
    if (left <= 0n || perCycle <= 0n) {
      skipped.push(`${what}: nothing left to swap`);
      continue;
    }
    // The next slice one interval after the last change the recording shows (no sooner than the start).
    const lastMs = Date.parse(order.updatedAt);
    const nextMs = Math.max(atMs, (Number.isNaN(lastMs) ? atMs : lastMs) + Number(cycle.data.cycleFrequency) * 1000);
    const create = () => {
      if (market.pricing.priceOf(order.outputMint) === undefined) throw new MarketError('invalid_argument', 'invalid_argument', `unknown outputMint ${order.outputMint}`);
      // A time order with what is left: the venue's create minimums are for new orders, not for a part-filled one.
      market.recurring.land(
        { kind: 'recurring.create', orderKey: order.orderKey, user: wallet, type: 'time', inputMint: order.inputMint, outputMint: order.outputMint, deposit: left, perCycle, intervalSec: Number(cycle.data.cycleFrequency), numberOfOrders: Number((left + perCycle - 1n) / perCycle), startAtSec: Math.ceil(nextMs / 1000) },
        derivedSignature('backtest-seed', order.orderKey),
        atMs,
      );
    };
    if (escrowed(order.inputMint, left, create, what)) recurring += 1;
  }
  return { trigger, limit, recurring, skipped };
}
