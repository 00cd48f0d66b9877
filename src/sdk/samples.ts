/**
 * Sample snapshots of every kind, for strategy tests (`samples` of stratd/testing). Each is
 * built in code with the fields the simulated venue serves (test/sdk/samples.test.ts holds
 * them against a running venue), validated by the snapshot schema, and takes overrides for
 * the numbers a test cares about. Amounts are integer strings: USD × 10^6.
 */
import { formatScaled } from '../api/amounts.ts';
import { MINTS } from '../api/mints.ts';
import type { PositionItem } from '../api/schemas/perps.ts';
import type { Token, TokenCategory, TokenInterval } from '../api/schemas/tokens.ts';
import type { TriggerOrder } from '../api/schemas/trigger.ts';
import { snapshotSchema, type Snapshot, type SnapshotOf } from './snapshot.ts';

export const SAMPLE_WALLET = 'devjnEpxbJUhJ39FSsFz7YPerr5bdxN8VWUXvfbFUK4';
export const SAMPLE_POSITION = '815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF';
export const SAMPLE_POSITION_2 = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';
export const SAMPLE_TPSL = 'EZ5cqkFNwD5McTi3LvThEspVZ9m3Fa3tVEJoeTVNr87Y';
export const SAMPLE_TOKENS = ['6ccATfcr4wCTuzf3seAh2fRBWmHdxf99czucty1CprYt', '3879Gv8cHs3hdZVEQGtsSuzFPky71gDPfjPyvBiV9khi', 'AsJH3PTqANTGKmLcN1MqCxFMnpXTsFDuXeWyTmzN4SVk'] as const;
export const SAMPLE_ORDER = '6Xx44e5yGMQ5qBZp7Sz2SfzH14cqKkfajuZVFPVpyH9X';
/** 2026-01-05 12:00:00 UTC. */
export const SAMPLE_TICK = Date.UTC(2026, 0, 5, 12, 0, 0);

const USD = 1_000_000n;
const common = (key: string, tickMs: number) => ({ key, tickMs, receivedAtMs: tickMs + 120 });
const checked = <S extends Snapshot>(snapshot: S): S => snapshotSchema.parse(snapshot) as S;

export interface SamplePosition {
  readonly pubkey?: string;
  readonly side?: 'long' | 'short';
  readonly market?: string;
  /** USD × 10^6. */
  readonly sizeUsd?: bigint;
  readonly collateralUsd?: bigint;
  readonly markPriceUsd?: bigint;
  readonly liquidationPriceUsd?: bigint;
  readonly entryPriceUsd?: bigint;
  readonly pnlAfterFeesUsd?: bigint;
  /** The position's open TP/SL requests. */
  readonly tpsl?: ReadonlyArray<{ readonly pubkey: string; readonly type: 'tp' | 'sl'; readonly triggerPriceUsd: bigint; readonly entirePosition?: boolean; readonly sizeUsd?: bigint }>;
}

/** A position item in the raw shape the venue serves (USD × 10^6 integer strings): by default a $1,000 10× SOL long at $150. */
export function position(p: SamplePosition = {}): PositionItem {
  const side = p.side ?? 'long';
  const mint = p.market ?? MINTS.SOL;
  const mark = p.markPriceUsd ?? 150n * USD;
  const size = p.sizeUsd ?? 1_000n * USD;
  const collateral = p.collateralUsd ?? 100n * USD;
  const liq = p.liquidationPriceUsd ?? (side === 'long' ? (mark * 91n) / 100n : (mark * 109n) / 100n);
  const pnl = p.pnlAfterFeesUsd ?? 0n;
  return {
    positionPubkey: p.pubkey ?? SAMPLE_POSITION,
    asset: 'SOL',
    assetMint: mint,
    collateralToken: side === 'long' ? 'SOL' : 'USDC',
    collateralMint: side === 'long' ? mint : MINTS.USDC,
    side,
    leverage: collateral > 0n ? `${size / collateral}.00` : '0.00',
    sizeUsd: size.toString(),
    sizeTokenAmount: ((size * 1_000_000_000n) / mark).toString(),
    collateralUsd: collateral.toString(),
    valueUsd: (collateral + pnl).toString(),
    entryPriceUsd: (p.entryPriceUsd ?? mark).toString(),
    markPriceUsd: mark.toString(),
    liquidationPriceUsd: liq.toString(),
    openFeesUsd: ((size * 6n) / 10_000n).toString(),
    closeFeesUsd: ((size * 6n) / 10_000n).toString(),
    borrowFeesUsd: '0',
    totalFeesUsd: ((size * 12n) / 10_000n).toString(),
    pnlBeforeFeesUsd: pnl.toString(),
    pnlBeforeFeesPct: '0.00',
    pnlAfterFeesUsd: pnl.toString(),
    pnlAfterFeesPct: '0.00',
    createdTime: Math.floor(SAMPLE_TICK / 1000) - 3_600,
    updatedTime: Math.floor(SAMPLE_TICK / 1000) - 60,
    tpslRequests: (p.tpsl ?? []).map((t) => ({
      positionRequestPubkey: t.pubkey,
      requestType: t.type,
      desiredMint: MINTS.USDC,
      desiredToken: 'USDC',
      collateralUsdDelta: '0',
      entirePosition: t.entirePosition ?? true,
      sizeUsd: (t.sizeUsd ?? size).toString(),
      sizePercentage: '100.00',
      triggerPriceUsd: t.triggerPriceUsd.toString(),
      openTime: String(Math.floor(SAMPLE_TICK / 1000) - 600),
    })),
  };
}

export function positions(items: readonly PositionItem[] = [position()], tickMs = SAMPLE_TICK, wallet = SAMPLE_WALLET): SnapshotOf<'positions'> {
  return checked({ kind: 'positions', source: 'perps.positions', ...common(wallet, tickMs), wallet, positions: [...items] });
}

export interface SamplePool {
  /** USD × 10^6. */
  readonly longAvailableLiquidity?: bigint;
  readonly shortAvailableLiquidity?: bigint;
  /** Percent, as the API's decimal text ("0.0123"). */
  readonly longBorrowRatePercent?: string;
  readonly shortBorrowRatePercent?: string;
  readonly longUtilizationPercent?: string;
  readonly shortUtilizationPercent?: string;
}

export function poolInfo(p: SamplePool = {}, market: string = MINTS.SOL, tickMs = SAMPLE_TICK): SnapshotOf<'poolInfo'> {
  return checked({
    kind: 'poolInfo',
    source: 'perps.poolInfo',
    ...common(market, tickMs),
    mint: market as SnapshotOf<'poolInfo'>['mint'],
    info: {
      longAvailableLiquidity: (p.longAvailableLiquidity ?? 5_000_000n * USD).toString(),
      longBorrowRatePercent: p.longBorrowRatePercent ?? '0.0085',
      longUtilizationPercent: p.longUtilizationPercent ?? '54.20',
      shortAvailableLiquidity: (p.shortAvailableLiquidity ?? 8_000_000n * USD).toString(),
      shortBorrowRatePercent: p.shortBorrowRatePercent ?? '0.0061',
      shortUtilizationPercent: p.shortUtilizationPercent ?? '38.75',
      openFeePercent: '0.06',
      maxRequestExecutionSec: '45',
      maxPriceImpactFeePercent: '1',
    },
  });
}

/** A market's price as market-stats serves it (a decimal of dollars): by default SOL at $150. */
export function marketStats(priceUsd: bigint = 150n * USD, market: string = MINTS.SOL, tickMs = SAMPLE_TICK): SnapshotOf<'marketStats'> {
  return checked({
    kind: 'marketStats',
    source: 'perps.marketStats',
    ...common(market, tickMs),
    mint: market as SnapshotOf<'marketStats'>['mint'],
    stats: { price: formatScaled(priceUsd, 6), priceChange24H: '0', priceHigh24H: formatScaled(priceUsd, 6), priceLow24H: formatScaled(priceUsd, 6), volume: '0' },
  });
}

export function collateralLimits(p: { readonly positionPubkey?: string; readonly maxCollateralWithdrawalUsd?: bigint } = {}, tickMs = SAMPLE_TICK): SnapshotOf<'collateralLimits'> {
  const pubkey = p.positionPubkey ?? SAMPLE_POSITION;
  const withdraw = p.maxCollateralWithdrawalUsd ?? 40n * USD;
  return checked({
    kind: 'collateralLimits',
    source: 'perps.collateralLimits',
    ...common(pubkey, tickMs),
    positionPubkey: pubkey,
    inputMint: MINTS.SOL,
    limits: {
      maxCollateralDepositTokenAmount: '60000000000',
      maxCollateralDepositUsd: (9_000n * USD).toString(),
      minCollateralDepositTokenAmount: '0',
      minCollateralDepositUsd: '0',
      maxCollateralWithdrawalTokenAmount: ((withdraw * 1_000_000_000n) / (150n * USD)).toString(),
      maxCollateralWithdrawalUsd: withdraw.toString(),
      minCollateralWithdrawalTokenAmount: '0',
      minCollateralWithdrawalUsd: '0',
    },
  });
}

export interface SampleToken {
  readonly id?: string;
  readonly symbol?: string;
  readonly usdPrice?: number;
  readonly liquidity?: number;
  readonly organicScore?: number;
  readonly organicScoreLabel?: 'high' | 'medium' | 'low';
  readonly isSus?: boolean;
  readonly mintAuthorityDisabled?: boolean;
  readonly freezeAuthorityDisabled?: boolean;
  readonly topHoldersPercentage?: number;
  readonly decimals?: number;
}

/** A ranked-list token as the venue renders it (prices and liquidity are numbers: the API's own shape). */
export function token(t: SampleToken = {}): Token {
  const id = t.id ?? SAMPLE_TOKENS[0];
  const symbol = t.symbol ?? 'SMPL';
  const stats = { priceChange: 1.5, holderChange: 0.2, liquidityChange: 0.1, volumeChange: 4, buyVolume: 12_000, sellVolume: 9_000, buyOrganicVolume: 8_000, sellOrganicVolume: 6_000, numBuys: 120, numSells: 95, numTraders: 80, numOrganicBuyers: 40, numNetBuyers: 12 };
  return {
    id,
    name: `${symbol} sample`,
    symbol,
    icon: null,
    decimals: t.decimals ?? 6,
    twitter: null,
    telegram: null,
    website: null,
    dev: SAMPLE_WALLET,
    circSupply: 920_000_000,
    tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    totalSupply: 1_000_000_000,
    launchpad: null,
    partnerConfig: null,
    graduatedPool: null,
    graduatedAt: null,
    holderCount: 5_400,
    fdv: 1_200_000,
    mcap: 1_104_000,
    usdPrice: t.usdPrice ?? 0.0012,
    priceBlockId: 350_000_000,
    liquidity: t.liquidity ?? 250_000,
    stats5m: stats,
    stats1h: stats,
    stats6h: stats,
    stats24h: stats,
    firstPool: { id: SAMPLE_ORDER, createdAt: new Date(SAMPLE_TICK - 86_400_000).toISOString() },
    audit: {
      isSus: t.isSus,
      mintAuthorityDisabled: t.mintAuthorityDisabled ?? true,
      freezeAuthorityDisabled: t.freezeAuthorityDisabled ?? true,
      topHoldersPercentage: t.topHoldersPercentage ?? 18,
      devBalancePercentage: 1,
      devMigrations: 0,
    },
    organicScore: t.organicScore ?? 82,
    organicScoreLabel: t.organicScoreLabel ?? 'high',
    isVerified: true,
    cexes: null,
    tags: ['verified'],
    updatedAt: new Date(SAMPLE_TICK).toISOString(),
  };
}

export function rankedTokens(tokens: readonly Token[] = SAMPLE_TOKENS.map((id, i) => token({ id, symbol: `SMP${i + 1}` })), category: TokenCategory = 'toptrending', interval: TokenInterval = '1h', tickMs = SAMPLE_TICK): SnapshotOf<'rankedTokens'> {
  return checked({ kind: 'rankedTokens', source: 'tokens.ranked', ...common(`${category}.${interval}`, tickMs), category, interval, tokens: [...tokens] });
}

export function newTokens(tickMs = SAMPLE_TICK): SnapshotOf<'newTokens'> {
  const created = String(Math.floor(tickMs / 1000) - 120);
  return checked({
    kind: 'newTokens',
    source: 'tokens.new',
    ...common('latest', tickMs),
    tokens: [{ mint: SAMPLE_TOKENS[2], name: 'Fresh sample', symbol: 'FRSH', decimals: 6, logo_uri: null, known_markets: [SAMPLE_ORDER], mint_authority: null, freeze_authority: null, created_at: created, metadata_updated_at: Number(created) }],
  });
}

export function limitOrders(tickMs = SAMPLE_TICK): SnapshotOf<'limitOrders'> {
  return checked({
    kind: 'limitOrders',
    source: 'perps.limitOrders',
    ...common(SAMPLE_WALLET, tickMs),
    wallet: SAMPLE_WALLET,
    orders: [
      {
        collateralMint: MINTS.SOL, collateralCustody: 'Gu5Qn95iQV1hqiqrucECnKyecMmYzGD476uA26FvzA27', collateralUsd: (50n * USD).toString(),
        collateralUsdAtTriggerPrice: (46n * USD).toString(), collateralTokenAmount: '333333333', custody: 'Gu5Qn95iQV1hqiqrucECnKyecMmYzGD476uA26FvzA27',
        executed: false, inputMint: MINTS.SOL, liquidationPriceUsd: (125n * USD).toString(), marketMint: MINTS.SOL,
        maxSizeUsdDelta: (500n * USD).toString(), minSizeUsdDelta: (500n * USD).toString(), openTime: String(Math.floor(tickMs / 1000) - 300),
        positionPubkey: SAMPLE_POSITION_2, positionRequestPubkey: '9fwxBqSb1p9iBBqLEGxnHSBhgScP82Xb9we8RwR3L31', side: 'long',
        sizeUsdDelta: (500n * USD).toString(), triggerPrice: (138n * USD).toString(), triggerToLiquidationPercent: '9.42',
      },
    ],
  });
}

export function trades(tickMs = SAMPLE_TICK): SnapshotOf<'trades'> {
  const t = Math.floor(tickMs / 1000) - 3_600;
  return checked({
    kind: 'trades',
    source: 'perps.trades',
    ...common(SAMPLE_WALLET, tickMs),
    wallet: SAMPLE_WALLET,
    trades: [
      {
        action: 'Increase', collateralUsdDelta: (100n * USD).toString(), createdTime: t, updatedTime: t, baseFee: '600000', borrowFee: '0', liquidationFee: '0',
        priceImpactFee: '0', fee: '600000', mint: MINTS.SOL, orderType: 'Market', pnl: null, pnlPercentage: null, positionName: 'SOL-PERP',
        positionPubkey: SAMPLE_POSITION, positionRequestPubkey: SAMPLE_TPSL, owner: SAMPLE_WALLET, price: (150n * USD).toString(), side: 'long', size: (1_000n * USD).toString(),
        transactionFeeLamports: '5000', priorityFeeLamports: '0',
        txHash: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
      },
    ],
  });
}

/** An open trigger order of the wallet (`getTriggerOrders`, active): selling 1,000 USDC for `takingAmount` of a token. */
export function triggerOrder(o: { readonly orderKey?: string; readonly outputMint?: string; readonly makingAmount?: string; readonly takingAmount?: string; readonly createdAtMs?: number; readonly expiredAt?: string | null } = {}): TriggerOrder {
  const created = new Date(o.createdAtMs ?? SAMPLE_TICK - 600_000).toISOString();
  const making = o.makingAmount ?? '1000000000';
  const taking = o.takingAmount ?? '800000000000';
  return {
    userPubkey: SAMPLE_WALLET,
    orderKey: o.orderKey ?? SAMPLE_ORDER,
    inputMint: MINTS.USDC,
    outputMint: o.outputMint ?? SAMPLE_TOKENS[0],
    makingAmount: formatScaled(BigInt(making), 6),
    takingAmount: taking,
    remainingMakingAmount: formatScaled(BigInt(making), 6),
    remainingTakingAmount: taking,
    rawMakingAmount: making,
    rawTakingAmount: taking,
    rawRemainingMakingAmount: making,
    rawRemainingTakingAmount: taking,
    slippageBps: '0',
    expiredAt: o.expiredAt ?? null,
    createdAt: created,
    updatedAt: created,
    status: 'Open',
    openTx: '3PqPC3m3WJ2q5NNZV4MqzvpPXxhN5uGYxyhJTk7n6jAN2ZzvBuEKsXUTbJvBQ8dN6XxDNNwMAUwb4TxgcrD7JNx2',
    closeTx: '',
    programVersion: 'j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X',
    trades: [],
  };
}

export function triggerOrders(orders: readonly TriggerOrder[] = [triggerOrder()], tickMs = SAMPLE_TICK, wallet = SAMPLE_WALLET): SnapshotOf<'triggerOrders'> {
  return checked({ kind: 'triggerOrders', source: 'trigger.getTriggerOrders', ...common(wallet, tickMs), wallet, orders: [...orders] });
}
