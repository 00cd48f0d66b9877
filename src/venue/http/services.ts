import type { z } from 'zod';
import type { OperationId, Operations } from '../../api/registry.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { VenueChain } from '../chain/chain.ts';
import type { RpcFaults } from '../chain/rpc-faults.ts';
import type { VenueClock } from '../clock.ts';
import type { Market } from '../market/market.ts';
import type { Prng } from '../market/prng.ts';
import type { RequestBook } from '../tx/request-book.ts';
import type { ExecuteDesk } from './execute-desk.ts';
import type { FaultPlan } from './faults.ts';
import type { LandedBuildReplay } from './landed-build-replay.ts';
import type { RateTier, SlidingWindowLimiter } from './rate-limit.ts';
import type { TxIssuer } from './tx-issuer.ts';

/** Settings of the HTTP side that the control API can change at run time. */
interface HttpSettings {
  /** Share of decrease builds answered as instant transactions (0 = always legacy). */
  decreaseInstantShare: number;
  rateLimit: { enabled: boolean; keylessTier: RateTier; defaultKeyTier: RateTier; keyTiers: Record<string, RateTier> };
  /** Valid API keys; null accepts any key. */
  apiKeys: string[] | null;
  requireApiKey: boolean;
  forbidden: Set<string>;
  /** Check every 200 body against the registry's response schema (a failure answers 500). */
  validateResponses: boolean;
}

/** What the routes work with: the market, the chain and the machinery between them. */
export interface VenueServices {
  readonly seed: number;
  readonly clock: VenueClock;
  readonly market: Market;
  readonly chain: VenueChain;
  readonly requests: RequestBook;
  readonly issuer: TxIssuer;
  readonly desk: ExecuteDesk;
  readonly faults: FaultPlan;
  /** Write answers remembered for the `replayLanded` fault. */
  readonly builds: LandedBuildReplay;
  /** Faults of the JSON-RPC endpoint. */
  readonly rpcFaults: RpcFaults;
  readonly limiter: SlidingWindowLimiter;
  readonly settings: HttpSettings;
  /** Decides the legacy/instant mix of decrease builds. */
  readonly mixRng: Prng;
  readonly logger: Logger;
}

/** The validated request of an operation. */
type RequestFor<Id extends OperationId> = z.output<Operations[Id]['request']>;

export interface HandlerContext {
  readonly services: VenueServices;
  readonly operationId: OperationId;
  readonly nowMs: number;
}

/** A route's logic: validated request in, response body out (or a thrown HttpFailure/MarketError). */
export type Handler<Id extends OperationId> = (request: RequestFor<Id>, ctx: HandlerContext) => unknown;

export type HandlerTable = { readonly [Id in OperationId]: Handler<Id> };
