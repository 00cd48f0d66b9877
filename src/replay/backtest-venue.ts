import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { request } from 'undici';
import { z } from 'zod';
import { formatScaled } from '../api/amounts.ts';
import { ApiClient } from '../api/client.ts';
import { marketStatsPrice } from '../api/market-stats-price.ts';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import { MARKET_SYMBOL, MINTS } from '../api/mints.ts';
import { readWireTransaction, TransactionDecodeError, type WireTransaction } from '../chain/decode.ts';
import { ChainClient } from '../chain/rpc-client.ts';
import { LocalKeypairSigner, SignerError, signInspected, writeKeyFile } from '../chain/signer.ts';
import { silentLogger } from '../kernel/logger.ts';
import { ApiActionBuilder } from '../pipeline/executor/api-action-builder.ts';
import { marketMarkWithStats } from '../pipeline/executor/mark-price.ts';
import { PolicyInspector } from '../pipeline/executor/policy-inspector.ts';
import { RoutedSubmitter } from '../pipeline/executor/routed-submitter.ts';
import type { BuiltTransaction } from '../pipeline/executor/ports.ts';
import type { Snapshot, SnapshotOf } from '../sdk/snapshot.ts';
import type { Intent } from '../sdk/intent.ts';
import { positionView, type PositionView } from '../sdk/position-view.ts';
import type { Market } from '../venue/market/market.ts';
import { startVenue, type Venue } from '../venue/venue.ts';
import { fundingFrom, type Funding } from './backtest-seed.ts';

/** The backtest venue answered something it should not have. */
export class BacktestError extends Error {
  override readonly name = 'BacktestError';
  constructor(readonly kind: 'venue_control' | 'no_positions', message: string) {
    super(message);
  }
}

/** What became of one intent on the venue. */
export type ExecutionOutcome =
  | { readonly landed: true; readonly signature: string; readonly createdTpslPubkeys?: readonly string[]; readonly realisedPnlUsd?: string }
  /** `sent`: it was signed and handed to the route (the daemon's `submitted`: its decision's state is committed then). */
  | { readonly landed: false; readonly reason: string; readonly detail?: string; readonly sent?: true };

/** The risk gate's second look, right before signing, with what the build says (as the executor asks it); a refusal names its rule. */
export type BeforeSign = (built: BuiltTransaction) => Promise<{ readonly rule: string; readonly detail: string } | undefined>;

/** Venue ms after a send, beyond the keeper's delay: enough slots to land it and for the keeper to execute a request. */
const LANDING_MS = 2_000;
/** The venue keeper's default delay before it executes a landed request. */
export const DEFAULT_KEEPER_DELAY_MS = 1_000;

/** How the backtest's market moves besides the recording. */
export interface BacktestMarket {
  /**
   * A price file (CSV `offsetMs,SOL,ETH,BTC`, offsets from the recording's first snapshot; the
   * venue's format, src/venue/market/price-file.ts): the prices come from it instead of the
   * recorded marks.
   */
  readonly priceFile?: string;
  /** ms the venue's keeper waits before executing a landed position request. */
  readonly keeperDelayMs?: number;
}

/** What seeding the venue from the recording did. */
export interface Seeded {
  readonly positions: number;
  /** TP/SL requests of the recorded positions re-created on the paper wallet's. */
  readonly tpsl: number;
  /** What could not be seeded, and why. */
  readonly skipped: readonly string[];
}

const uint = z.string().regex(/^\d+$/);
const tradeRow = z.looseObject({
  seq: z.number(),
  owner: z.string(),
  action: z.string(),
  orderType: z.string().nullish(),
  pnl: z.string().regex(/^-?\d+$/).nullable(),
  fee: uint,
  baseFee: uint,
  borrowFee: uint,
  liquidationFee: uint,
  priceImpactFee: uint,
  priorityFeeLamports: uint,
});

/** Fees paid, by kind: USD × 10^6, priority fees in lamports (what the transactions paid the network). */
export interface FeesByKind {
  readonly openUsd: bigint;
  readonly closeUsd: bigint;
  readonly borrowUsd: bigint;
  readonly priceImpactUsd: bigint;
  readonly liquidationUsd: bigint;
  readonly priorityLamports: bigint;
}

export const NO_FEES: FeesByKind = { openUsd: 0n, closeUsd: 0n, borrowUsd: 0n, priceImpactUsd: 0n, liquidationUsd: 0n, priorityLamports: 0n };

export function addFees(a: FeesByKind, b: FeesByKind): FeesByKind {
  return {
    openUsd: a.openUsd + b.openUsd,
    closeUsd: a.closeUsd + b.closeUsd,
    borrowUsd: a.borrowUsd + b.borrowUsd,
    priceImpactUsd: a.priceImpactUsd + b.priceImpactUsd,
    liquidationUsd: a.liquidationUsd + b.liquidationUsd,
    priorityLamports: a.priorityLamports + b.priorityLamports,
  };
}

/** The wallet's fills in a range of the venue's trade sequence. */
export interface Fills {
  readonly realisedPnlUsd: bigint;
  readonly fees: FeesByKind;
  /** Of them, liquidations (a Decrease with a liquidation fee). */
  readonly liquidations: number;
  readonly lastSeq: number;
}
const outcomeRow = z.looseObject({ requestPubkey: z.string(), status: z.string(), reason: z.string().nullish() });
const balances = z.looseObject({ tokens: z.record(z.string(), z.string().regex(/^\d+$/)) });

/** The executor settings a backtest builds and inspects with (the configuration's execution.*). */
export interface BacktestExecution {
  readonly slippageBps: number;
  readonly priceDriftBps: number;
  readonly priorityFeeCapLamports: bigint;
  readonly maxAccountSpaceBytes: bigint;
  /** execution.ultraPlatformFeeAccount and ultraMaxFeeBps: a swap's fee bounds, as the daemon's (absent: none). */
  readonly ultraPlatformFeeAccount?: string;
  readonly ultraMaxFeeBps?: number;
}

/**
 * One strategy's private world for a backtest: an in-process venue with a frozen clock (only the
 * recording moves it), a paper wallet derived from the seed (same keys every run), the recorded
 * positions opened for it, and the executor's own build → policy inspection → sign → route path.
 */
export class BacktestVenue {
  private constructor(
    private readonly venue: Venue,
    private readonly keyDir: string,
    readonly wallet: string,
    private readonly client: ApiClient,
    private readonly submitter: RoutedSubmitter,
    private readonly builder: ApiActionBuilder,
    private readonly inspector: PolicyInspector,
    private readonly signer: LocalKeypairSigner,
    private clockMs: number,
    private readonly settleMs: number,
    /** Prices come from a price file, not from the recorded marks. */
    readonly pricedByFile: boolean,
  ) {}

  /** Venue time now (ms): the recording's clock, plus the settling time of the actions sent. */
  get nowMs(): number {
    return this.clockMs;
  }

  static async start(seed: number, startMs: number, execution: BacktestExecution, market: BacktestMarket = {}): Promise<BacktestVenue> {
    const keeperDelayMs = market.keeperDelayMs ?? DEFAULT_KEEPER_DELAY_MS;
    const venue = await startVenue({ seed, host: '127.0.0.1', clock: { startMs, speed: 0 }, volatility: 0, tickMs: 0, keeperDelayMs, logger: silentLogger, ...(market.priceFile !== undefined ? { priceFile: market.priceFile } : {}) });
    const keyDir = await mkdtemp(join(tmpdir(), 'stratd-backtest-'));
    const keypair = Keypair.fromSeed(createHash('sha256').update(`stratd-backtest-wallet:${String(seed)}`).digest());
    const keyFile = join(keyDir, 'paper-wallet.json');
    await writeKeyFile(keyFile, keypair);
    const signer = await LocalKeypairSigner.fromKeyFile(keyFile, { mode: 'paper' });
    const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 10_000 });
    // The wallet's positions as the poller reads them; the policy's reads of one inspection that
    // ask at once (the mark, the amounts) share one listing.
    let listing: Promise<Array<Parameters<typeof positionView>[0]>> | undefined;
    const positionOf = async (positionPubkey: string) => {
      listing ??= client.call('perps.positions', { walletAddress: keypair.publicKey.toBase58() }).then((r) => r.dataList).finally(() => (listing = undefined));
      const item = (await listing).find((p) => p.positionPubkey === positionPubkey);
      return item ? positionView(item) : undefined;
    };
    return new BacktestVenue(
      venue,
      keyDir,
      keypair.publicKey.toBase58(),
      client,
      new RoutedSubmitter({ client, chain: new ChainClient(venue.rpcUrl) }),
      new ApiActionBuilder({ client, wallet: signer.publicKey, slippageBps: execution.slippageBps }),
      new PolicyInspector({
        wallet: signer.publicKey,
        priorityFeeCapLamports: execution.priorityFeeCapLamports,
        slippageBps: execution.slippageBps,
        // The mark the daemon would hold: the venue's positions listing, read as the poller reads it.
        markPrice: async (positionPubkey) => (await positionOf(positionPubkey))?.markPriceUsd,
        // The position's size, collateral and entry, as the daemon reads them: a decrease naming no collateral withdraws its share, an open's stop is judged on the combined position.
        positionAmounts: async (positionPubkey) => {
          const view = await positionOf(positionPubkey);
          return view ? { sizeUsd: view.sizeUsd, collateralUsd: view.collateralUsd, entryPriceUsd: view.entryPriceUsd } : undefined;
        },
        // An open's mark, as the daemon reads it for a market the wallet holds nothing of.
        marketMarkPrice: marketMarkWithStats(async () => undefined, client),
        priceDriftBps: execution.priceDriftBps,
        maxAccountSpaceBytes: execution.maxAccountSpaceBytes,
        // The daemon's swap fee bounds (executor-role.ts), so a backtest refuses what it would.
        ultraPlatformFeeAccount: execution.ultraPlatformFeeAccount,
        ultraMaxFeeBps: execution.ultraMaxFeeBps,
      }),
      signer,
      startMs,
      keeperDelayMs + LANDING_MS,
      market.priceFile !== undefined,
    );
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.venue.close();
    await rm(this.keyDir, { recursive: true, force: true });
  }

  /** Moves venue time to `atMs` (never back), letting keeper, triggers and liquidations catch up. */
  async advanceTo(atMs: number): Promise<void> {
    if (atMs <= this.nowMs) return;
    await this.control('advance', { ms: atMs - this.nowMs });
    this.clockMs = atMs;
  }

  /** Sets each market's price to the mark the recorded positions show (unless a price file sets them). */
  async pricesFrom(snapshot: SnapshotOf<'positions'>): Promise<void> {
    if (this.pricedByFile) return;
    const marks = new Map<string, bigint>();
    for (const view of views(snapshot)) marks.set(MARKET_SYMBOL[view.marketMint], view.markPriceUsd);
    for (const [market, priceUsd] of [...marks].sort(([a], [b]) => a.localeCompare(b))) await this.control('price', { market, priceUsd: priceUsd.toString() });
  }

  /** Sets the market's price to the recorded market-stats price (unless a price file sets them; one a price format cannot be read from leaves it). */
  async priceFrom(snapshot: SnapshotOf<'marketStats'>): Promise<void> {
    if (this.pricedByFile) return;
    const priceUsd = marketStatsPrice(snapshot.stats.price);
    if (priceUsd !== undefined) await this.control('price', { market: MARKET_SYMBOL[snapshot.mint], priceUsd: priceUsd.toString() });
  }

  /** Makes the tokens of a recorded ranking tradable on the venue at their recorded prices (trigger orders need them). */
  tokensFrom(snapshot: SnapshotOf<'rankedTokens'>): void {
    this.venue.market.tokens.adopt(snapshot.tokens, this.nowMs);
  }

  /**
   * Opens the recorded positions for the paper wallet: same market, side, collateral and
   * liquidation distance (what a protective strategy reacts to), at the recorded marks (or the
   * price file's first prices), the wallet funded with `funding` (backtest-seed.ts: the recorded
   * balances or the default); then re-creates their TP/SL requests at the recorded triggers,
   * through the executor's own path (placed by nobody of ours, as a request made by hand).
   */
  async seed(snapshot: SnapshotOf<'positions'>, funding: Funding = fundingFrom([])): Promise<Seeded> {
    const recorded = views(snapshot);
    const positions = recorded.map((view) => {
      const gap = view.side === 'long' ? view.markPriceUsd - view.liquidationPriceUsd : view.liquidationPriceUsd - view.markPriceUsd;
      const distanceBps = gap <= 0n || view.markPriceUsd === 0n ? 1n : (gap * 10_000n) / view.markPriceUsd;
      return { market: MARKET_SYMBOL[view.marketMint], side: view.side, collateralUsd: view.collateralUsd.toString(), liquidationDistancePct: formatScaled(distanceBps, 2) };
    });
    if (positions.length === 0) throw new BacktestError('no_positions', 'the first positions snapshot of the recording lists no open position; nothing to backtest against');
    await this.pricesFrom(snapshot);
    const { [MINTS.USDC]: usdc, ...tokens } = funding.tokens;
    await this.control('fund', { wallet: this.wallet, sol: funding.lamports, usdc: usdc ?? '0', ...(Object.keys(tokens).length > 0 ? { tokens } : {}), positions });
    const paper = views(await this.positionsLike(snapshot));
    const skipped: string[] = [];
    let tpsl = 0;
    for (const view of recorded) {
      const own = paper.find((p) => p.marketMint === view.marketMint && p.side === view.side);
      for (const request of view.tpslRequests) {
        const what = `${MARKET_SYMBOL[view.marketMint]} ${view.side}'s ${request.requestType} at ${request.triggerPriceUsd.toString()}`;
        if (!own) {
          skipped.push(`${what}: the position was not opened`);
          continue;
        }
        const partial = request.entirePosition === false && request.sizeUsd !== undefined && request.sizeUsd < own.sizeUsd;
        const outcome = await this.execute({
          type: 'tpsl-create',
          key: `seed:${request.pubkey}`,
          reason: 'seeded from the recording',
          notionalUsd: '0',
          positionPubkey: own.positionPubkey,
          marketMint: own.marketMint,
          side: own.side,
          requestType: request.requestType,
          triggerPrice: request.triggerPriceUsd.toString(),
          receiveToken: 'USDC',
          ...(partial ? { entirePosition: false, sizeUsdDelta: request.sizeUsd!.toString() } : { entirePosition: true }),
        });
        if (outcome.landed) tpsl += 1;
        else skipped.push(`${what}: ${outcome.reason}`);
      }
    }
    return { positions: positions.length, tpsl, skipped };
  }

  /** The recorded positions snapshot, re-read from the venue for the paper wallet. */
  async positionsLike(recorded: SnapshotOf<'positions'>): Promise<SnapshotOf<'positions'>> {
    const positions = (await this.client.call('perps.positions', { walletAddress: this.wallet })).dataList;
    return { ...recorded, key: this.wallet, wallet: this.wallet, positions };
  }

  /** The paper wallet's active trigger orders (every page), as the poller reads them, at the time of `at`. */
  async triggerOrdersAt(at: { readonly tickMs: number; readonly receivedAtMs: number }): Promise<SnapshotOf<'triggerOrders'>> {
    const orders = [];
    for (let page = 1; ; page++) {
      const res = await this.client.call('trigger.getTriggerOrders', { user: this.wallet, orderStatus: 'active', page });
      orders.push(...res.orders);
      if (page >= res.totalPages) break;
    }
    return { kind: 'triggerOrders', source: 'trigger.getTriggerOrders', key: this.wallet, tickMs: at.tickMs, receivedAtMs: at.receivedAtMs, wallet: this.wallet, orders };
  }

  /** The paper wallet's perps limit orders, as the poller reads them, at the time of `at`. */
  async limitOrdersAt(at: SnapshotOf<'limitOrders'>): Promise<SnapshotOf<'limitOrders'>> {
    const orders = (await this.client.call('perps.limitOrders', { walletAddress: this.wallet })).dataList;
    return { ...at, key: this.wallet, wallet: this.wallet, orders };
  }

  /** The paper wallet's recurring orders (active, every page; the first history page), as the poller reads them, at the time of `at`. */
  async recurringOrdersAt(at: SnapshotOf<'recurringOrders'>): Promise<SnapshotOf<'recurringOrders'>> {
    const read = async (orderStatus: 'active' | 'history', page: number) => {
      const reply = await this.client.call('recurring.getRecurringOrders', { user: this.wallet, orderStatus, recurringType: 'all', includeFailedTx: false, page });
      const list = reply.all ?? [];
      return Array.isArray(list) ? { orders: list, totalPages: reply.totalPages ?? 1 } : { orders: list.orders, totalPages: list.totalPages ?? reply.totalPages ?? 1 };
    };
    const orders = [];
    for (let page = 1; ; page++) {
      const res = await read('active', page);
      orders.push(...res.orders);
      if (page >= res.totalPages) break;
    }
    return { ...at, key: this.wallet, wallet: this.wallet, orders, history: (await read('history', 1)).orders };
  }

  /** The venue's books in-process: the recorded orders are re-created on them (backtest-seed.ts). */
  get market(): Market {
    return this.venue.market;
  }

  /** Collateral limits of each listed position, as the poller reads them. */
  async collateralLimitsOf(snapshot: SnapshotOf<'positions'>): Promise<Snapshot[]> {
    const out: Snapshot[] = [];
    for (const view of views(snapshot)) {
      const limits = await this.client.call('perps.collateralLimits', { inputMint: view.collateralMint, positionPubkey: view.positionPubkey });
      out.push({ kind: 'collateralLimits', source: 'perps.collateralLimits', key: view.positionPubkey, tickMs: snapshot.tickMs, receivedAtMs: snapshot.receivedAtMs, positionPubkey: view.positionPubkey, inputMint: view.collateralMint, limits });
    }
    return out;
  }

  /** Build → policy inspection → sign → route, as the executor does, then lets the venue settle it. */
  async execute(intent: Intent, beforeSign?: BeforeSign): Promise<ExecutionOutcome> {
    let built;
    try {
      built = await this.builder.build({ intent });
    } catch (error) {
      return { landed: false, reason: `build: ${(error as Error).message}` };
    }
    let tx: WireTransaction;
    try {
      tx = readWireTransaction(built.unsignedTx);
    } catch (error) {
      if (!(error instanceof TransactionDecodeError)) throw error;
      return { landed: false, reason: `policy: malformed (${error.message})` };
    }
    const verdict = await this.inspector.inspect(tx, { intent }, built);
    if (!verdict.ok || verdict.violations.length > 0) return { landed: false, reason: `policy: ${verdict.violations.map((v) => v.rule).join(', ')}` };
    const refusal = await beforeSign?.(built);
    if (refusal) return { landed: false, reason: `risk:${refusal.rule}`, detail: refusal.detail };
    let signed;
    try {
      signed = await signInspected(this.signer, tx, verdict);
    } catch (error) {
      if (!(error instanceof SignerError)) throw error;
      return { landed: false, reason: `sign: ${error.kind}` };
    }
    const signature = Buffer.from(signed.signature).toString('base64');
    const raw = Buffer.from(signed.bytes).toString('base64');
    try {
      // The executor's own route switch (JSON-RPC, or perps, trigger, recurring or Ultra execute):
      // a refused send or a Failed reply ends the backtest's action.
      const answer = await this.submitter.submit({ route: built.route, requestId: built.requestId, executeAction: built.executeAction, signedTx: raw, signature: bs58.encode(signed.signature) }, { repeat: false });
      if (answer.via === 'rpc' && !answer.sent.ok) return { landed: false, reason: `send: ${answer.sent.refusal}`, sent: true };
      const failed = answer.via === 'execute' ? (answer.reply.unsent?.detail ?? answer.reply.detail) : undefined;
      if (failed !== undefined) return { landed: false, reason: `execute: ${failed}`, sent: true };
    } catch (error) {
      return { landed: false, reason: `send: ${(error as Error).message}`, sent: true };
    }
    await this.advanceTo(this.nowMs + this.settleMs);
    const landed = this.venue.chain.landed().find((l) => Buffer.from(l.transaction.signatures[0]!).toString('base64') === signature);
    if (!landed) return { landed: false, reason: 'not landed', sent: true };
    if (landed.err !== null) return { landed: false, reason: `failed on chain: ${JSON.stringify(landed.err)}`, sent: true };
    if (built.awaitsKeeper && built.positionRequestPubkey) {
      const outcome = (await this.controlGet('request-outcomes', z.array(outcomeRow))).find((o) => o.requestPubkey === built.positionRequestPubkey);
      if (outcome?.status !== 'executed') return { landed: false, reason: `keeper: ${outcome ? `${outcome.status} ${outcome.reason ?? ''}`.trim() : 'not executed'}`, sent: true };
    }
    return { landed: true, signature: landed.signature, ...(built.createdTpslPubkeys ? { createdTpslPubkeys: built.createdTpslPubkeys } : {}), ...(built.realisedPnlUsd !== undefined ? { realisedPnlUsd: built.realisedPnlUsd } : {}) };
  }

  /** The wallet's fills after `sinceSeq` (decreases, liquidations, triggered TP/SL, keeper fills): realised PnL and fees by kind. */
  async fills(sinceSeq: number): Promise<Fills> {
    const trades = (await this.controlGet('trades', z.array(tradeRow))).filter((t) => t.owner === this.wallet);
    let realisedPnlUsd = 0n;
    let fees = NO_FEES;
    let liquidations = 0;
    for (const t of trades.filter((t) => t.seq > sinceSeq)) {
      realisedPnlUsd += BigInt(t.pnl ?? '0');
      const base = BigInt(t.baseFee);
      const liquidation = BigInt(t.liquidationFee);
      if (t.orderType === 'Liquidation') liquidations += 1;
      fees = addFees(fees, {
        openUsd: t.action === 'Increase' ? base : 0n,
        closeUsd: t.action === 'Decrease' ? base : 0n,
        borrowUsd: BigInt(t.borrowFee),
        priceImpactUsd: BigInt(t.priceImpactFee),
        liquidationUsd: liquidation,
        priorityLamports: BigInt(t.priorityFeeLamports),
      });
    }
    return { realisedPnlUsd, fees, liquidations, lastSeq: Math.max(sinceSeq, ...trades.map((t) => t.seq)) };
  }

  /** USDC in the wallet plus each open position's collateral and PnL after fees, USD × 10^6. */
  async equityUsd(positions: SnapshotOf<'positions'>): Promise<bigint> {
    const held = (await this.controlGet(`balances/${this.wallet}`, balances)).tokens[MINTS.USDC] ?? '0';
    return views(positions).reduce((sum, v) => sum + v.collateralUsd + (v.pnlAfterFeesUsd ?? 0n), BigInt(held) + (await this.usdcInOpenOrders()));
  }

  /**
   * USDC escrowed by the wallet's open trigger orders: still the wallet's until they fill, so a
   * placed order is no drawdown. (Tokens an order bought are not valued: the report stays in exact
   * USD, and the venue prices tokens as floats.)
   */
  private async usdcInOpenOrders(): Promise<bigint> {
    let sum = 0n;
    for (let page = 1; ; page++) {
      const res = await this.client.call('trigger.getTriggerOrders', { user: this.wallet, orderStatus: 'active', inputMint: MINTS.USDC, page });
      for (const order of res.orders) {
        const raw = order.rawRemainingMakingAmount ?? order.rawMakingAmount;
        if (raw === undefined) throw new BacktestError('venue_control', `trigger order ${order.orderKey} carries no raw making amount`);
        sum += BigInt(raw);
      }
      if (page >= res.totalPages) return sum;
    }
  }

  private async control(path: string, body: unknown): Promise<void> {
    const res = await request(`${this.venue.apiUrl}/__venue/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new BacktestError('venue_control', `venue ${path}: ${String(res.statusCode)} ${text}`);
  }

  private async controlGet<T>(path: string, schema: z.ZodType<T>): Promise<T> {
    const res = await request(`${this.venue.apiUrl}/__venue/${path}`);
    const parsed = schema.safeParse(await res.body.json());
    if (res.statusCode !== 200 || !parsed.success) throw new BacktestError('venue_control', `venue ${path}: ${String(res.statusCode)} ${parsed.success ? '' : describeIssues(fieldIssues(parsed.error))}`);
    return parsed.data;
  }
}

export function views(snapshot: SnapshotOf<'positions'>): PositionView[] {
  return snapshot.positions.map(positionView).filter((v): v is PositionView => v !== undefined);
}
