import type { AddressInfo } from 'node:net';
import { silentLogger, type Logger } from '../kernel/logger.ts';
import { VenueChain } from './chain/chain.ts';
import { LandingFailure, type LandedTransaction } from './chain/landed.ts';
import { RpcFaults } from './chain/rpc-faults.ts';
import type { BalanceChange } from './chain/simulation.ts';
import { startRpcServer } from './chain/rpc-server.ts';
import { VenueClock, type VenueClockOptions } from './clock.ts';
import { applyFaultPatch } from './http/control.ts';
import { ExecuteDesk } from './http/execute-desk.ts';
import { FaultPlan, faultPatchSchema, type FaultPatch } from './http/faults.ts';
import { LandedBuildReplay } from './http/landed-build-replay.ts';
import { SlidingWindowLimiter, type RateTier } from './http/rate-limit.ts';
import { createVenueApp } from './http/server.ts';
import type { VenueServices } from './http/services.ts';
import { TxIssuer } from './http/tx-issuer.ts';
import { actionEffects } from './market/action-effects.ts';
import { ChainLedger } from './market/chain-ledger.ts';
import { MarketError } from './market/errors.ts';
import { isVenueAction, Market } from './market/market.ts';
import { Prng } from './market/prng.ts';
import { RequestBook, type PendingRequest } from './tx/request-book.ts';

export interface VenueOptions {
  /** Everything random (prices, tokens, faults, keys of the chain) follows from it. */
  readonly seed: number;
  readonly host?: string;
  /** API port; 0 (default) picks a free one. */
  readonly port?: number;
  /** JSON-RPC port; 0 (default) picks a free one. */
  readonly rpcPort?: number;
  /** Venue clock: start time and speed (0 freezes it; then only advance() moves time). */
  readonly clock?: VenueClockOptions;
  readonly slotMs?: number;
  /** Slot and block height to start at (a resumed paper venue goes on from its saved chain); default 1000 / 900. */
  readonly chainStart?: { readonly slot: number; readonly blockHeight: number };
  readonly blockhashValidBlocks?: number;
  /** Transaction fees: 'none' (default) or 'charge' (5000 lamports per signature + priority). */
  readonly fees?: 'none' | 'charge';
  readonly keeperDelayMs?: number;
  readonly maxRequestExecutionSec?: number;
  /** Hourly SOL volatility in percent (default 1). */
  readonly volatility?: number;
  /** CSV of prices to replay instead of the random walk (see docs/venue.md). */
  readonly priceFile?: string;
  /** Price grid, ms of venue time (default 1000). */
  readonly stepMs?: number;
  /** Real ms between market ticks (default 250; 0 disables the timer). */
  readonly tickMs?: number;
  /** Share of decrease builds returned as instant transactions (default 0). */
  readonly decreaseInstantShare?: number;
  /** Valid API keys (a different key gets 401); default: any key. */
  readonly apiKeys?: readonly string[];
  readonly requireApiKey?: boolean;
  readonly rateLimit?: { enabled?: boolean; keylessTier?: RateTier; defaultKeyTier?: RateTier; keyTiers?: Record<string, RateTier> };
  /** Faults to start with (the body of POST /__venue/faults). */
  readonly faults?: FaultPatch;
  /** Check every 200 body against the registry (default true). */
  readonly validateResponses?: boolean;
  readonly logger?: Logger;
}

export interface Venue {
  readonly apiUrl: string;
  readonly rpcUrl: string;
  readonly clock: VenueClock;
  readonly chain: VenueChain;
  readonly market: Market;
  readonly requests: RequestBook;
  readonly services: VenueServices;
  /** Moves venue time and lets the market catch up (keeper, triggers, liquidations). */
  advance(ms: number): void;
  applyFaults(patch: FaultPatch): void;
  /**
   * Calls `listener` after each change worth keeping: a balance moved, a transaction landed, a
   * fill was recorded (TP/SL, limit and trigger orders, recurring cycles, the keeper all move one
   * of these). Not on price steps alone. Returns an unsubscribe.
   */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

/** A venue clock whose advance() also ticks the market. */
class TickingClock extends VenueClock {
  onAdvance: (() => void) | undefined;

  override advance(ms: number): void {
    super.advance(ms);
    this.onAdvance?.();
  }
}

/** Numeric program errors of market refusals, as the transaction reports them ({Custom: n}). */
const LANDING_CODES: Readonly<Record<string, number>> = { insufficient_funds: 1, invalid_position: 6001, invalid_position_request: 6002, stale_request: 6003, simulation_error: 6004 };

/** Applies every landed venue-built transaction to the market; a refusal fails the transaction. */
function landingHandler(market: Market, logger: Logger) {
  return (landed: LandedTransaction): void => {
    const request = landed.request;
    if (!request || !isVenueAction(request.payload)) return;
    try {
      market.land(request.payload, {
        signature: landed.signature,
        landedAtMs: landed.landedAtMs,
        transactionType: request.transactionType,
        feeLamports: landed.feeLamports,
      });
    } catch (error) {
      if (error instanceof MarketError) {
        logger.info({ signature: landed.signature, code: error.code }, 'venue: landed transaction refused by the market');
        throw new LandingFailure(LANDING_CODES[error.code] ?? 6000, `${error.code}: ${error.message}`);
      }
      throw error;
    }
  };
}

/**
 * Computes a venue-built transaction's effects for simulateTransaction, failing as its landing
 * would: a refusal is the same LandingFailure (its custom code), so the simulation's `err` is
 * the landing's.
 */
function simulationHandler(market: Market) {
  return (request: PendingRequest): BalanceChange[] => {
    if (!isVenueAction(request.payload)) return [];
    try {
      return actionEffects(market, request.payload);
    } catch (error) {
      if (error instanceof MarketError) throw new LandingFailure(LANDING_CODES[error.code] ?? 6000, `${error.code}: ${error.message}`);
      throw error;
    }
  };
}

/**
 * Starts the simulated venue in-process: the market model, the chain with its JSON-RPC server
 * and the HTTP API with the control routes. The daemon's paper mode and the e2e tests use it.
 *
 * @example
 * const venue = await startVenue({ seed: 7, clock: { speed: 0 } });
 * const client = new ApiClient({ baseUrl: venue.apiUrl });
 * await venue.close();
 */
export async function startVenue(opts: VenueOptions): Promise<Venue> {
  const logger = opts.logger ?? silentLogger;
  const clock = new TickingClock(opts.clock ?? {});
  const requests = new RequestBook();
  const chain = new VenueChain({ clock, seed: opts.seed, slotMs: opts.slotMs, firstSlot: opts.chainStart?.slot, firstBlockHeight: opts.chainStart?.blockHeight, blockhashValidBlocks: opts.blockhashValidBlocks, requests, fees: opts.fees, logger });
  const market = new Market({
    seed: opts.seed,
    startMs: clock.now(),
    ledger: new ChainLedger(chain),
    stepMs: opts.stepMs,
    volatility: opts.volatility,
    priceFile: opts.priceFile,
    keeperDelayMs: opts.keeperDelayMs,
    maxRequestExecutionSec: opts.maxRequestExecutionSec,
  });
  chain.onLand(landingHandler(market, logger));
  chain.onSimulate(simulationHandler(market));
  const services: VenueServices = {
    seed: opts.seed,
    clock,
    market,
    chain,
    requests,
    issuer: new TxIssuer(opts.seed, chain, requests),
    desk: new ExecuteDesk(chain, requests),
    faults: new FaultPlan(opts.seed),
    builds: new LandedBuildReplay(chain),
    rpcFaults: new RpcFaults(opts.seed),
    limiter: new SlidingWindowLimiter(),
    settings: {
      decreaseInstantShare: opts.decreaseInstantShare ?? 0,
      rateLimit: { enabled: false, keylessTier: 'keyless', defaultKeyTier: 'free', keyTiers: {}, ...opts.rateLimit },
      apiKeys: opts.apiKeys ? [...opts.apiKeys] : null,
      requireApiKey: opts.requireApiKey ?? false,
      forbidden: new Set(),
      validateResponses: opts.validateResponses ?? true,
    },
    mixRng: new Prng(opts.seed, 'transaction-mix'),
    logger,
  };
  if (opts.faults) applyFaultPatch(services, faultPatchSchema.parse(opts.faults));

  // Built transactions expire with their blockhash; forget them well after that.
  const keepRequestsMs = Math.max(600_000, 4 * (opts.blockhashValidBlocks ?? 150) * (opts.slotMs ?? 400));
  let prunedAt = clock.now();
  const tick = () => {
    const now = clock.now();
    market.advanceTo(now);
    if (now - prunedAt >= 10_000) {
      requests.prune(now - keepRequestsMs);
      prunedAt = now;
    }
  };
  clock.onAdvance = tick;

  const app = createVenueApp(services);
  const host = opts.host ?? '127.0.0.1';
  await app.listen({ host, port: opts.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  let rpc: Awaited<ReturnType<typeof startRpcServer>>;
  try {
    rpc = await startRpcServer(chain, { host, port: opts.rpcPort ?? 0, logger, faults: services.rpcFaults });
  } catch (error) {
    await app.close();
    throw error;
  }
  const tickMs = opts.tickMs ?? 250;
  const timer = tickMs > 0 ? setInterval(tick, tickMs) : undefined;
  timer?.unref();
  const apiHost = host.includes(':') ? `[${host}]` : host;

  return {
    apiUrl: `http://${apiHost}:${String(address.port)}`,
    rpcUrl: rpc.url,
    clock,
    chain,
    market,
    requests,
    services,
    advance: (ms) => clock.advance(ms),
    applyFaults: (patch) => applyFaultPatch(services, faultPatchSchema.parse(patch)),
    onChange(listener) {
      const offChain = chain.onChange(listener);
      const offTrades = market.trades.onRecord(listener);
      return () => {
        offChain();
        offTrades();
      };
    },
    async close() {
      if (timer) clearInterval(timer);
      clock.onAdvance = undefined;
      await Promise.all([app.close(), rpc.close()]);
    },
  };
}
