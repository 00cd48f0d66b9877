import { MINTS } from '../../api/mints.ts';
import type { TradeRecord } from '../../api/schemas/perps.ts';
import type { ActionRecord } from '../../records/action-record.ts';
import type { PositionView } from '../../sdk/position-view.ts';
import { BALANCE_DECIMALS, type WalletBalances } from '../wallet-balances.ts';
import { formatUsd } from './human-units.ts';

/**
 * Balances, equity and PnL for the status page, exact (USD × 10^6 bigint) until `text`.
 *
 * Realised PnL of a trade is its `pnl` (before fees, null for increases and collateral moves)
 * minus its `fee` (every fee the fill charged), the way the venue's own trader-stats nets them;
 * an increase therefore realises minus its opening fee. Unrealised PnL is the open positions'
 * pnlAfterFeesUsd. Equity = the valued balances + the positions' collateral + unrealised PnL.
 */

/** The strategy column of trades no landed action of ours explains (manual trades, liquidations, older history). */
const OTHER = 'other';
const DAY_MS = 86_400_000;

/** A landed action's claim on fills: the request it created, the transaction it sent, the TP/SL requests it placed. */
export type LandedAction = Pick<ActionRecord, 'strategy' | 'signature' | 'positionRequestPubkey' | 'createdTpslPubkeys'>;

interface PnlPair {
  readonly day: bigint;
  readonly all: bigint;
}

interface BalanceLine {
  readonly token: 'SOL' | 'USDC';
  readonly amount: bigint;
  /** Undefined: no price known for the token (SOL without a SOL position in the snapshot). */
  readonly valueUsd: bigint | undefined;
  readonly text: { amount: string; value: string };
}

export interface MoneyView {
  /** Undefined: balances are not read here (`stratd status` has no RPC connection). */
  readonly balances: readonly BalanceLine[] | undefined;
  readonly equityUsd: bigint;
  /** Some balance could not be valued: the equity leaves it out. */
  readonly equityPartial: boolean;
  readonly unrealisedUsd: bigint;
  /** Undefined: no trades snapshot yet. */
  readonly realised: { readonly total: PnlPair; readonly byStrategy: readonly { readonly name: string; readonly pnl: PnlPair; readonly text: { day: string; all: string } }[]; readonly trades: number } | undefined;
  readonly text: { equity: string; unrealised: string; realisedDay: string; realisedAll: string };
}

/** A trade's realised PnL net of its fees. */
export function tradeNetPnl(trade: Pick<TradeRecord, 'pnl' | 'fee'>): bigint {
  return BigInt(trade.pnl ?? '0') - BigInt(trade.fee);
}

/**
 * Which strategy a fill belongs to. A fill is a strategy's when it executed the position request
 * one of its landed actions created (the venue reports positionRequestPubkey), or came from the
 * transaction that action signed (txHash: a market request's fill names the creating
 * transaction), or executed a TP/SL request the strategy placed (the TP/SL book's owner, or the
 * create action's createdTpslPubkeys). Anything else is OTHER: attributing by position alone
 * would give a strategy the fills of a person trading the same position by hand.
 */
export function attributionIndex(landed: readonly LandedAction[], tpslOwners: ReadonlyMap<string, string>): ReadonlyMap<string, string> {
  const index = new Map<string, string>(tpslOwners);
  for (const a of landed) {
    for (const key of [a.positionRequestPubkey, a.signature, ...(a.createdTpslPubkeys ?? [])]) if (key) index.set(key, a.strategy);
  }
  return index;
}

export function strategyOf(trade: Pick<TradeRecord, 'txHash' | 'positionRequestPubkey'>, index: ReadonlyMap<string, string>): string {
  return (trade.positionRequestPubkey ? index.get(trade.positionRequestPubkey) : undefined) ?? index.get(trade.txHash) ?? OTHER;
}

interface MoneySource {
  /** The latest trades snapshot's fills; undefined: none yet. */
  readonly trades: readonly TradeRecord[] | undefined;
  readonly positions: readonly PositionView[];
  readonly balances: WalletBalances | undefined;
  readonly landed: readonly LandedAction[];
  readonly tpslOwners: ReadonlyMap<string, string>;
  /** Strategies listed even without fills (the enabled ones). */
  readonly strategies: readonly string[];
  readonly nowMs: number;
}

export function moneyView(source: MoneySource): MoneyView {
  const unrealised = source.positions.reduce((sum, p) => sum + (p.pnlAfterFeesUsd ?? 0n), 0n);
  const collateral = source.positions.reduce((sum, p) => sum + p.collateralUsd, 0n);
  const balances = source.balances && balanceLines(source.balances, source.positions);
  const valued = (balances ?? []).reduce((sum, b) => sum + (b.valueUsd ?? 0n), 0n);
  const equity = valued + collateral + unrealised;
  const realised = source.trades && realisedPnl(source.trades, source.landed, source.tpslOwners, source.strategies, source.nowMs);
  return {
    balances,
    equityUsd: equity,
    equityPartial: balances === undefined || balances.some((b) => b.valueUsd === undefined),
    unrealisedUsd: unrealised,
    realised,
    text: {
      equity: formatUsd(equity),
      unrealised: formatUsd(unrealised),
      realisedDay: realised ? formatUsd(realised.total.day) : 'no trades snapshot yet',
      realisedAll: realised ? formatUsd(realised.total.all) : 'no trades snapshot yet',
    },
  };
}

function realisedPnl(trades: readonly TradeRecord[], landed: readonly LandedAction[], tpslOwners: ReadonlyMap<string, string>, strategies: readonly string[], nowMs: number): NonNullable<MoneyView['realised']> {
  const index = attributionIndex(landed, tpslOwners);
  // createdTime is unix seconds (spec 2.6).
  const since = nowMs - DAY_MS;
  const sums = new Map<string, { day: bigint; all: bigint }>(strategies.map((name) => [name, { day: 0n, all: 0n }]));
  const total = { day: 0n, all: 0n };
  for (const trade of trades) {
    const net = tradeNetPnl(trade);
    const recent = trade.createdTime * 1000 >= since;
    const name = strategyOf(trade, index);
    const sum = sums.get(name) ?? { day: 0n, all: 0n };
    sums.set(name, { day: sum.day + (recent ? net : 0n), all: sum.all + net });
    total.all += net;
    if (recent) total.day += net;
  }
  const names = [...sums.keys()].filter((n) => n !== OTHER).sort();
  if (sums.has(OTHER)) names.push(OTHER);
  return {
    total,
    trades: trades.length,
    byStrategy: names.map((name) => {
      const pnl = sums.get(name) ?? { day: 0n, all: 0n };
      return { name, pnl, text: { day: formatUsd(pnl.day), all: formatUsd(pnl.all) } };
    }),
  };
}

/**
 * USDC counts at $1 (its USD value is its 6-decimal amount). SOL is valued at the mark of a SOL
 * position in the snapshot, the one SOL price this process already reads; without one its value
 * is unknown and shown so, never guessed.
 */
function balanceLines(balances: WalletBalances, positions: readonly PositionView[]): BalanceLine[] {
  const solMark = positions.find((p) => p.marketMint === MINTS.SOL)?.markPriceUsd;
  const lines: BalanceLine[] = [];
  if (balances.SOL !== undefined) {
    const value = solMark === undefined ? undefined : (balances.SOL * solMark) / 10n ** BigInt(BALANCE_DECIMALS.SOL);
    lines.push({ token: 'SOL', amount: balances.SOL, valueUsd: value, text: { amount: `${tokenAmount(balances.SOL, BALANCE_DECIMALS.SOL, 4)} SOL`, value: value === undefined ? 'no SOL price known' : formatUsd(value) } });
  }
  if (balances.USDC !== undefined) {
    lines.push({ token: 'USDC', amount: balances.USDC, valueUsd: balances.USDC, text: { amount: `${tokenAmount(balances.USDC, BALANCE_DECIMALS.USDC, 2)} USDC`, value: formatUsd(balances.USDC) } });
  }
  return lines;
}

/** A token amount in whole tokens, `places` decimals, cut (no rounding). */
function tokenAmount(amount: bigint, decimals: number, places: number): string {
  const scale = 10n ** BigInt(decimals);
  const whole = (amount / scale).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = (amount % scale).toString().padStart(decimals, '0').slice(0, places);
  return `${whole}.${fraction}`;
}
