import { z } from 'zod';
import { HOSTILE_KINDS, ORDER_HOSTILE_KINDS, SWAP_HOSTILE_KINDS, SWAP_QUOTE_HOSTILE_KINDS, type AnyHostileKind, type OrderHostileKind } from '../tx/hostile.ts';
import { Prng } from '../market/prng.ts';
import { RATE_TIERS, type RateTier } from './rate-limit.ts';

const rate = z.number().min(0).max(1);
const count = z.number().int().min(0);
const tier = z.enum(Object.keys(RATE_TIERS) as [RateTier, ...RateTier[]]);

/** Faults of one operation (or of every operation, under the key "*"). */
const operationFaultsSchema = z.strictObject({
  /** Added before answering: a fixed delay or a uniform range. */
  latencyMs: z.union([count, z.strictObject({ min: count, max: count })]).optional(),
  /** Answer `errorStatus` (default 503) to this share of requests, or to the next N. */
  errorRate: rate.optional(),
  errorNext: count.optional(),
  errorStatus: z.number().int().min(400).max(599).optional(),
  /** Answer 429 with the x-ratelimit-* headers. */
  rateLimitRate: rate.optional(),
  rateLimitNext: count.optional(),
  /** Never answer (until `hangMs`, default 120 s, or the client gives up). */
  hangRate: rate.optional(),
  hangNext: count.optional(),
  hangMs: count.optional(),
  /** Answer an HTML page instead of JSON (status `malformedStatus`, default 200). */
  malformedRate: rate.optional(),
  malformedNext: count.optional(),
  malformedStatus: z.number().int().min(200).max(599).optional(),
  /** Reset the connection (TCP RST) without processing the request. */
  resetRate: rate.optional(),
  resetNext: count.optional(),
  /** Process the request (a write applies), then reset the connection instead of answering. */
  replyLostRate: rate.optional(),
  replyLostNext: count.optional(),
  /**
   * API operations only: a stale edge cache. While set, the first answer to a request (method,
   * path, query and body) is replayed to every repeat of it, so the data stops moving.
   */
  frozen: z.boolean().optional(),
  /** Build write transactions that differ from the request (extra transfer, approval...). */
  hostile: z.enum([...HOSTILE_KINDS, ...SWAP_HOSTILE_KINDS, ...SWAP_QUOTE_HOSTILE_KINDS]).nullable().optional(),
  /** With `hostile`: only the next N builds are hostile, then the venue builds honestly again. */
  hostileNext: count.optional(),
  /** Build trigger, recurring and Studio transactions whose own program instructions differ from the request (tx/hostile.ts). */
  orderHostile: z.enum(ORDER_HOSTILE_KINDS).nullable().optional(),
  /**
   * Write operations only: answer a build with the answer to this wallet's latest earlier build of
   * the same operation whose transaction landed (the same bytes: signed again, they make the
   * signature the chain already shows landed). Without such a build the answer is honest.
   */
  replayLanded: z.boolean().optional(),
  /**
   * Write operations only: build on a blockhash the chain has expired ('expired') or never issued
   * ('never_issued'), while txMetadata names it with the lastValidBlockHeight of a fresh one.
   */
  staleBlockhash: z.enum(['expired', 'never_issued']).nullable().optional(),
});
export type OperationFaults = z.infer<typeof operationFaultsSchema>;

/** The body of POST /__venue/faults: a patch of the venue's fault settings. */
export const faultPatchSchema = z.strictObject({
  /** Per operation id (or "*"); null removes that entry. */
  operations: z.record(z.string(), operationFaultsSchema.nullable()).optional(),
  /**
   * Faults of the JSON-RPC endpoint: per method (or "*", by the method of a batch's first
   * request) the same members as an operation (not `hostile`, `frozen`); `frozen` stops the
   * node at the current slot: slot, block height, blockhash and signature statuses stay as they
   * were, while sends are still forwarded to the chain.
   */
  rpc: z
    .strictObject({
      methods: z.record(z.string(), operationFaultsSchema.nullable()).optional(),
      frozen: z.boolean().optional(),
    })
    .optional(),
  /** Share of sends the chain accepts but never lands (0..1), or all of them. */
  dropRate: rate.optional(),
  dropAll: z.boolean().optional(),
  /**
   * TEST FAULT: simulations of any transaction show this outflow (smallest units of `mint`; the
   * SOL mint is lamports) from its fee payer, which no landing applies: a program's hidden CPI that
   * no decoder sees. Only the signing policy's simulation check can catch it. Null removes it.
   */
  simulatedOutflow: z.strictObject({ mint: z.string().min(32).max(44), amount: z.string().regex(/^[1-9][0-9]{0,19}$/) }).nullable().optional(),
  keeperDelayMs: count.optional(),
  maxRequestExecutionSec: z.number().int().min(1).optional(),
  /** Share of decrease builds answered as instant transactions (default 0: legacy). */
  decreaseInstantShare: rate.optional(),
  rateLimit: z
    .strictObject({
      enabled: z.boolean().optional(),
      keylessTier: tier.optional(),
      defaultKeyTier: tier.optional(),
      keyTiers: z.record(z.string(), tier).optional(),
    })
    .optional(),
  /** Valid keys; a request carrying another key gets 401. Null: any key is accepted. */
  apiKeys: z.array(z.string().min(1)).nullable().optional(),
  /** Refuse keyless requests with 401. */
  requireApiKey: z.boolean().optional(),
  /** Operation ids the key may not use (403). */
  forbidden: z.array(z.string()).optional(),
});
export type FaultPatch = z.infer<typeof faultPatchSchema>;

type FaultOutcome = 'ok' | 'error' | 'rate_limited' | 'hang' | 'malformed' | 'reset' | 'reply_lost';

interface FaultDecision {
  readonly latencyMs: number;
  readonly outcome: FaultOutcome;
  readonly errorStatus: number;
  readonly malformedStatus: number;
  readonly hangMs: number;
  readonly frozen: boolean;
  readonly replayLanded: boolean;
}

const NONE: FaultDecision = { latencyMs: 0, outcome: 'ok', errorStatus: 503, malformedStatus: 200, hangMs: 120_000, frozen: false, replayLanded: false };
const NEXT_COUNTERS = ['errorNext', 'rateLimitNext', 'hangNext', 'malformedNext', 'resetNext', 'replyLostNext', 'hostileNext'] as const;
type NextCounter = (typeof NEXT_COUNTERS)[number];
/** Most frozen answers kept: a freeze replays, it must not grow without bound. */
const FROZEN_ANSWERS_MAX = 5_000;

/**
 * Per-operation fault injection. Decisions come from a seeded PRNG, so the same seed and the
 * same request sequence fail the same requests; `...Next` counters fail exactly the next N.
 */
export class FaultPlan {
  private readonly operations = new Map<string, OperationFaults>();
  private readonly counters = new Map<string, number>();
  private readonly rng: Prng;
  /** The answers a freeze replays, by request (see `frozen`). */
  private readonly frozenAnswers = new Map<string, unknown>();

  constructor(seed: number, label = 'faults') {
    this.rng = new Prng(seed, label);
  }

  set(operationId: string, faults: OperationFaults | null): void {
    this.counters.forEach((_, key) => {
      if (key.startsWith(`${operationId}|`)) this.counters.delete(key);
    });
    if (faults === null) this.operations.delete(operationId);
    else this.operations.set(operationId, faults);
    if (![...this.operations.values()].some((f) => f.frozen)) this.frozenAnswers.clear();
    if (faults === null) return;
    for (const name of NEXT_COUNTERS) {
      const n = faults[name];
      if (n !== undefined) this.counters.set(`${operationId}|${name}`, n);
    }
  }

  clear(): void {
    this.operations.clear();
    this.counters.clear();
    this.frozenAnswers.clear();
  }

  /** The answer a freeze replays for this request, if one was recorded. */
  frozenAnswer(request: string): unknown {
    return this.frozenAnswers.get(request);
  }

  recordFrozenAnswer(request: string, answer: unknown): void {
    if (this.frozenAnswers.size < FROZEN_ANSWERS_MAX) this.frozenAnswers.set(request, answer);
  }

  /** The hostile kind of this build of the operation; a `hostileNext` count is used up by it. */
  hostileFor(operationId: string): AnyHostileKind | undefined {
    return this.hostile(operationId, true);
  }

  /** What hostileFor would answer, without using up a count (for a handler that shapes arguments before the build). */
  peekHostile(operationId: string): AnyHostileKind | undefined {
    return this.hostile(operationId, false);
  }

  private hostile(operationId: string, use: boolean): AnyHostileKind | undefined {
    const key = this.operations.get(operationId)?.hostile ? operationId : '*';
    const faults = this.operations.get(key);
    const kind = faults?.hostile ?? undefined;
    if (kind === undefined || faults?.hostileNext === undefined) return kind;
    if (!use) return (this.counters.get(`${key}|hostileNext`) ?? 0) > 0 ? kind : undefined;
    return this.take(key, 'hostileNext') ? kind : undefined;
  }

  /** How a build of a trigger, recurring or Studio operation alters its program's instructions, if that fault is set (its own entry, else "*"). */
  orderHostileFor(operationId: string): OrderHostileKind | undefined {
    return this.operations.get(operationId)?.orderHostile ?? this.operations.get('*')?.orderHostile ?? undefined;
  }

  /** The stale blockhash a build of the operation carries, if that fault is set (its own entry, else "*"). */
  staleBlockhashFor(operationId: string): 'expired' | 'never_issued' | undefined {
    return this.operations.get(operationId)?.staleBlockhash ?? this.operations.get('*')?.staleBlockhash ?? undefined;
  }

  snapshot(): Record<string, OperationFaults> {
    return Object.fromEntries(this.operations);
  }

  decide(operationId: string): FaultDecision {
    const own = this.operations.get(operationId);
    const all = this.operations.get('*');
    if (!own && !all) return NONE;
    const f: OperationFaults = { ...all, ...own };
    const latency = f.latencyMs === undefined ? 0 : typeof f.latencyMs === 'number' ? f.latencyMs : this.rng.int(f.latencyMs.min, Math.max(f.latencyMs.min, f.latencyMs.max));
    const hit = (next: NextCounter, share: number | undefined) =>
      this.take(own ? operationId : '*', next) || (own && all ? this.take('*', next) : false) || this.rng.chance(share ?? 0);
    let outcome: FaultOutcome = 'ok';
    if (hit('resetNext', f.resetRate)) outcome = 'reset';
    else if (hit('hangNext', f.hangRate)) outcome = 'hang';
    else if (hit('errorNext', f.errorRate)) outcome = 'error';
    else if (hit('rateLimitNext', f.rateLimitRate)) outcome = 'rate_limited';
    else if (hit('malformedNext', f.malformedRate)) outcome = 'malformed';
    else if (hit('replyLostNext', f.replyLostRate)) outcome = 'reply_lost';
    return {
      latencyMs: latency,
      outcome,
      errorStatus: f.errorStatus ?? 503,
      malformedStatus: f.malformedStatus ?? 200,
      hangMs: f.hangMs ?? 120_000,
      frozen: f.frozen ?? false,
      replayLanded: f.replayLanded ?? false,
    };
  }

  private take(key: string, name: string): boolean {
    const left = this.counters.get(`${key}|${name}`) ?? 0;
    if (left <= 0) return false;
    this.counters.set(`${key}|${name}`, left - 1);
    return true;
  }
}

/** The HTML error page a misbehaving edge serves instead of JSON. */
export const MALFORMED_PAGE = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>
`;
