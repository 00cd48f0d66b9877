import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { FaultPatch } from '../src/venue/http/faults.ts';
import type { ProcessRegistry } from './process-registry.ts';

const STRATD = fileURLToPath(new URL('../bin/stratd.js', import.meta.url));

/** The venue did not start, or refused a control request. */
export class ChaosVenueError extends Error {
  override readonly name = 'ChaosVenueError';
  readonly kind = 'chaos_venue';
}

const startedLine = z.looseObject({ apiUrl: z.string().url(), rpcUrl: z.string().url() });

export const landedTx = z.looseObject({
  signature: z.string(),
  landedAtMs: z.number(),
  err: z.unknown(),
  request: z.looseObject({ requestId: z.string(), operationId: z.string(), wallet: z.string() }).nullable(),
});
export type LandedTx = z.infer<typeof landedTx>;

export const venueTrade = z.looseObject({
  seq: z.number(),
  createdMs: z.number(),
  action: z.string(),
  orderType: z.string(),
  owner: z.string(),
  positionPubkey: z.string(),
  size: z.string(),
  txHash: z.string(),
});
export type VenueTrade = z.infer<typeof venueTrade>;

export const requestOutcome = z.looseObject({
  requestPubkey: z.string(),
  kind: z.string(),
  signature: z.string(),
  status: z.enum(['executed', 'rejected']),
  reason: z.string().nullable(),
  atMs: z.number(),
});
export type RequestOutcome = z.infer<typeof requestOutcome>;

const venuePosition = z.looseObject({ owner: z.string(), positionPubkey: z.string(), asset: z.string(), side: z.string(), sizeUsd: z.string() });
const stateSchema = z.looseObject({ nowMs: z.number(), positions: z.array(venuePosition) });

export type Market = 'SOL' | 'ETH' | 'BTC';
export type Side = 'long' | 'short';

/**
 * The run's own `stratd venue` process on free loopback ports (so its CPU work is not on the
 * orchestrator's event loop), and its control API (docs/venue.md), every reply validated.
 * Control calls are never faulted: faults apply to the trading API and the JSON-RPC only.
 */
export class ChaosVenue {
  private constructor(
    readonly apiUrl: string,
    readonly rpcUrl: string,
  ) {}

  static async start(opts: { seed: number; volatilityPct: number }, registry: ProcessRegistry): Promise<ChaosVenue> {
    const args = [STRATD, 'venue', '--host', '127.0.0.1', '--port', '0', '--rpc-port', '0', '--seed', String(opts.seed), '--volatility', String(opts.volatilityPct), '--log-level', 'error'];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    registry.add(child, 'stratd venue');
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new ChaosVenueError(`stratd venue exited with ${String(code)} before printing its URLs`))));
    exited.catch(() => undefined);
    const lines = createInterface({ input: child.stdout! });
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([
      new Promise<string>((resolve) => lines.once('line', resolve)),
      exited,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new ChaosVenueError('stratd venue did not start within 30 s')), 30_000))),
    ]).finally(() => clearTimeout(timer));
    lines.close();
    child.stdout?.resume();
    const urls = startedLine.parse(JSON.parse(first));
    return new ChaosVenue(urls.apiUrl, urls.rpcUrl);
  }

  private async json(path: string, init?: RequestInit): Promise<unknown> {
    const res = await fetch(`${this.apiUrl}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    if (!res.ok) throw new ChaosVenueError(`venue ${init?.method ?? 'GET'} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as unknown;
  }

  private post(path: string, body: unknown): Promise<unknown> {
    return this.json(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }

  async fund(wallet: string, body: { sol?: string; usdc?: string; positions?: Array<{ market: Market; side: Side; collateralUsd: string; liquidationDistancePct: string }> }): Promise<void> {
    await this.post('/__venue/fund', { wallet, ...body });
  }

  async faults(patch: FaultPatch): Promise<void> {
    await this.post('/__venue/faults', patch);
  }

  async clearFaults(): Promise<void> {
    await this.json('/__venue/faults', { method: 'DELETE' });
  }

  /** The wallet's open positions (size above zero). */
  async openPositions(wallet: string): Promise<Array<z.infer<typeof venuePosition>>> {
    const state = stateSchema.parse(await this.json('/__venue/state'));
    return state.positions.filter((p) => p.owner === wallet && BigInt(p.sizeUsd) > 0n);
  }

  async landed(): Promise<LandedTx[]> {
    return z.array(landedTx).parse(await this.json('/__venue/landed'));
  }

  async trades(): Promise<VenueTrade[]> {
    return z.array(venueTrade).parse(await this.json('/__venue/trades'));
  }

  async requestOutcomes(): Promise<RequestOutcome[]> {
    return z.array(requestOutcome).parse(await this.json('/__venue/request-outcomes'));
  }
}
