// The venue of bench/daemon.ts: its own process on loopback (so its CPU work does not sit on the
// daemon's event loop, and the bench's RSS is the daemon's), funded through its control API.
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ApiClient } from '../src/api/client.ts';
import { MARKET_SYMBOL, type MarketMint } from '../src/api/mints.ts';
import type { Side } from '../src/api/schemas/common.ts';
import { positionView } from '../src/sdk/position-view.ts';

export interface BenchVenueSettings {
  readonly seed: number;
  readonly slotMs: number;
  readonly keeperDelayMs: number;
}

export interface BenchVenue {
  readonly apiUrl: string;
  readonly rpcUrl: string;
  readonly pid: number;
  close(): Promise<void>;
}

const STRATD = fileURLToPath(new URL('../bin/stratd.js', import.meta.url));
const startedLine = z.object({ apiUrl: z.string().url(), rpcUrl: z.string().url() });

/** The venue did not start, or refused a control request. */
export class BenchVenueError extends Error {
  override readonly name = 'BenchVenueError';
  readonly kind = 'bench_venue';
}

/** `stratd venue` on free loopback ports (`nodeArgs`: e.g. a CPU profile's flags); resolves once it printed its URLs. */
export async function startVenueProcess(settings: BenchVenueSettings, nodeArgs: readonly string[] = []): Promise<BenchVenue> {
  const args = [...nodeArgs, STRATD, 'venue', '--host', '127.0.0.1', '--port', '0', '--rpc-port', '0', '--seed', String(settings.seed), '--slot-ms', String(settings.slotMs), '--keeper-delay-ms', String(settings.keeperDelayMs), '--log-level', 'error'];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A bench that dies must not leave this process behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    new Promise<string>((resolve) => lines.once('line', resolve)),
    exited.then(() => {
      throw new BenchVenueError('stratd venue exited before printing its URLs');
    }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new BenchVenueError('stratd venue did not start within 20 s')), 20_000).unref()),
  ]);
  lines.close();
  const urls = startedLine.parse(JSON.parse(first));
  return {
    ...urls,
    pid: child.pid!,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface SeedPosition {
  readonly market: 'SOL' | 'ETH' | 'BTC';
  readonly side: Side;
  /** USD × 10^6 (default $100). */
  readonly collateralUsd?: string;
}

/** Every market on both sides: the six positions one wallet can hold. */
export const ALL_POSITIONS: readonly SeedPosition[] = (['SOL', 'ETH', 'BTC'] as const).flatMap((market) => (['long', 'short'] as const).map((side) => ({ market, side })));

/** How close to liquidation a seeded position opens (percent of the mark); the guard acts within 5 %. */
const LIQUIDATION_DISTANCE_PCT = '2';

/** Funds a wallet (fees, USDC) and opens `positions` near their liquidation price (`distancePct` of the mark). */
export async function fundWallet(apiUrl: string, wallet: string, positions: readonly SeedPosition[], withBalances: boolean, distancePct = LIQUIDATION_DISTANCE_PCT): Promise<void> {
  const res = await fetch(`${apiUrl}/__venue/fund`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      wallet,
      ...(withBalances ? { sol: '100000000000', usdc: '100000000000' } : {}),
      positions: positions.map((p) => ({ ...p, collateralUsd: p.collateralUsd ?? '100000000', liquidationDistancePct: distancePct })),
    }),
  });
  if (!res.ok) throw new BenchVenueError(`funding ${wallet} failed: ${res.status} ${await res.text()}`);
}

/** The position a landed decrease closed, to be opened again so the load keeps going. */
export function positionOf(marketMint: MarketMint, side: Side): SeedPosition {
  return { market: MARKET_SYMBOL[marketMint], side };
}

export interface PositionKeeper {
  /** Positions opened again so far. */
  reopened(): number;
  stop(): Promise<void>;
}

/**
 * Keeps the load going while daemons run in their own processes: every `everyMs` each wallet's
 * positions are read through the API, and each of `positions` that is no longer open (its
 * decrease landed) is opened again near liquidation.
 */
export function keepPositionsOpen(client: ApiClient, apiUrl: string, wallets: readonly string[], positions: readonly SeedPosition[], everyMs: number, onError: (error: unknown) => void): PositionKeeper {
  let reopened = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const wallet of wallets) {
        try {
          const open = new Set(
            (await client.call('perps.positions', { walletAddress: wallet })).dataList.flatMap((item) => {
              const view = positionView(item);
              return view && view.sizeUsd > 0n ? [`${MARKET_SYMBOL[view.marketMint]}/${view.side}`] : [];
            }),
          );
          const missing = positions.filter((p) => !open.has(`${p.market}/${p.side}`));
          if (missing.length > 0) {
            await fundWallet(apiUrl, wallet, missing, false);
            reopened += missing.length;
          }
        } catch (error) {
          onError(error);
        }
      }
      await sleep(everyMs);
    }
  })();
  return {
    reopened: () => reopened,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
