import type { Job } from 'bullmq';
import { z } from 'zod';
import { MINTS } from '../../src/api/mints.ts';
import type { SnapshotResult } from '../../src/pipeline/strategy-worker.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import { POSITION, WALLET } from '../strategy/samples.ts';

/**
 * A strategy named "always" that decides the same whole decrease of POSITION on every positions
 * snapshot, loaded as the strategy worker loads one: the tests of what the worker does with a
 * decision (claims, suppressed notes, the hand-over) use it.
 */
export function alwaysDecrease(decisionWindowMs: number): LoadedStrategy {
  const strategy = defineStrategy({
    name: 'always',
    config: z.object({}),
    subscribes: ['positions'],
    decisionWindowMs,
    onSnapshot: () => [{ type: 'decrease', key: `decrease:${POSITION}`, reason: 'test', notionalUsd: '1', positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', entirePosition: true, receiveToken: 'USDC' }],
  });
  return { strategy, config: {}, file: 'always.ts' } as LoadedStrategy;
}

/** Runs a snapshot job handler on an empty positions snapshot of WALLET at `tickMs` (the same job id for the same tick, as a retry has). */
export function positionsTick(handle: (job: Job<unknown>) => Promise<SnapshotResult>, tickMs: number): Promise<SnapshotResult> {
  return handle({ id: `t-${tickMs}`, data: { kind: 'positions', source: 'perps.positions', key: WALLET, wallet: WALLET, positions: [], tickMs, receivedAtMs: tickMs } } as Job<unknown>);
}
