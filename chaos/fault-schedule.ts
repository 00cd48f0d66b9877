import type { FaultPatch, OperationFaults } from '../src/venue/http/faults.ts';
import type { Prng } from '../src/venue/market/prng.ts';
import type { ChaosOptions } from './options.ts';

export type OutageMode = 'reset' | 'hang' | '503' | 'frozen';

/** One thing the schedule does to the deployment at `atMs` (from the start of the fault phase). */
export type FaultEvent =
  | { readonly atMs: number; readonly kind: 'api-outage' | 'rpc-outage'; readonly mode: OutageMode; readonly forMs: number }
  | { readonly atMs: number; readonly kind: 'redis-outage'; readonly forMs: number }
  | { readonly atMs: number; readonly kind: 'redis-restart'; readonly how: 'graceful' | 'crash' }
  | { readonly atMs: number; readonly kind: 'keeper-stall'; readonly forMs: number };

export function describeEvent(e: FaultEvent): string {
  switch (e.kind) {
    case 'api-outage':
    case 'rpc-outage':
      return `${e.kind === 'api-outage' ? 'API' : 'RPC'} outage (${e.mode}) ${e.forMs / 1000} s`;
    case 'redis-outage':
      return `Redis outage (stopped) ${e.forMs / 1000} s`;
    case 'redis-restart':
      return `Redis restart (${e.how === 'crash' ? 'SIGKILL' : 'SIGTERM'})`;
    case 'keeper-stall':
      return `keeper stalled past maxRequestExecutionSec for ${e.forMs / 1000} s`;
  }
}

/**
 * The background faults: `share` of every API operation and of every RPC call fails, spread
 * over every kind a caller meets — 5xx, connection reset, processed but reply lost, a hang until
 * the caller gives up, 429, an HTML page — plus sends the chain accepts and never lands.
 */
export function backgroundFaults(share: number): { api: OperationFaults; rpc: OperationFaults; dropRate: number } {
  const part = (p: number) => Math.round(share * p * 10_000) / 10_000;
  return {
    api: { latencyMs: { min: 0, max: 80 }, errorRate: part(0.3), errorStatus: 503, resetRate: part(0.2), replyLostRate: part(0.2), hangRate: part(0.1), hangMs: 20_000, rateLimitRate: part(0.1), malformedRate: part(0.1) },
    rpc: { latencyMs: { min: 0, max: 40 }, errorRate: part(0.3), errorStatus: 503, resetRate: part(0.2), replyLostRate: part(0.25), hangRate: part(0.1), hangMs: 20_000, rateLimitRate: part(0.15) },
    dropRate: part(0.25),
  };
}

/** The whole-service fault of an outage of one kind. */
export function outageFaults(mode: OutageMode, forMs: number): OperationFaults {
  switch (mode) {
    case 'reset':
      return { resetRate: 1 };
    case 'hang':
      return { hangRate: 1, hangMs: forMs };
    case '503':
      return { errorRate: 1, errorStatus: 503 };
    case 'frozen':
      return { frozen: true };
  }
}

/** The patch that starts (or, `on: false`, ends) an API or RPC outage, restoring the background faults after. */
export function outagePatch(kind: 'api-outage' | 'rpc-outage', mode: OutageMode, forMs: number, on: boolean, share: number): FaultPatch {
  const background = backgroundFaults(share);
  if (kind === 'api-outage') return { operations: { '*': on ? outageFaults(mode, forMs) : background.api } };
  if (mode === 'frozen') return { rpc: { frozen: on } };
  return { rpc: { methods: { '*': on ? outageFaults(mode, forMs) : background.rpc } } };
}

/**
 * The run's timeline. A full run has a 30 s outage of each kind for the API and for the RPC
 * (reset, hang, 503, frozen), a 30 s Redis outage, a keeper stall, and Redis restarts (SIGTERM and
 * SIGKILL) in the gaps; a short run a few of them. Outages do not overlap; their order follows the seed.
 */
export function faultSchedule(opts: ChaosOptions, rng: Prng): FaultEvent[] {
  const modes: OutageMode[] = ['reset', 'hang', '503', 'frozen'];
  type Outage = { kind: 'api-outage' | 'rpc-outage'; mode: OutageMode } | { kind: 'redis-outage' } | { kind: 'keeper-stall' };
  const outages: Outage[] = opts.short
    ? [{ kind: 'api-outage', mode: 'reset' }, { kind: 'rpc-outage', mode: 'hang' }, { kind: 'redis-outage' }]
    : [...modes.map((mode) => ({ kind: 'api-outage' as const, mode })), ...modes.map((mode) => ({ kind: 'rpc-outage' as const, mode })), { kind: 'redis-outage' }, { kind: 'keeper-stall' }];
  shuffle(outages, rng);
  const restarts: Array<'graceful' | 'crash'> = opts.short ? ['crash'] : ['crash', 'graceful', 'crash', 'graceful'];
  const from = opts.durationMs * 0.08;
  const to = opts.durationMs * 0.9;
  // A run too short for every outage at full length gets shorter outages (at least 2 s gaps).
  const outageMs = Math.min(opts.outageMs, Math.floor((to - from) / outages.length - 2_000));
  if (outageMs < 1_000) throw new RangeError(`a ${opts.durationMs / 1000} s run cannot hold ${outages.length} outages`);
  const gap = (to - from - outages.length * outageMs) / outages.length;
  const events: FaultEvent[] = [];
  outages.forEach((outage, i) => {
    const atMs = Math.round(from + i * (outageMs + gap));
    events.push(outage.kind === 'redis-outage' || outage.kind === 'keeper-stall' ? { atMs, kind: outage.kind, forMs: outageMs } : { atMs, kind: outage.kind, mode: outage.mode, forMs: outageMs });
    // A restart in the middle of some gaps, after the outage ended.
    const how = i % 2 === 0 ? restarts.shift() : undefined;
    if (how) events.push({ atMs: Math.round(atMs + outageMs + gap / 2), kind: 'redis-restart', how });
  });
  return events.sort((a, b) => a.atMs - b.atMs);
}

function shuffle<T>(items: T[], rng: Prng): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
