// Tick-to-submit of every action of one deployment, read back from what the daemon persists: the
// action record (the trigger's receivedAtMs, decidedAtMs, acceptedAtMs, builtAtMs, and when the first
// send returned) and the ledger's action_state entries (when `signed` and `submitted` were written). The daemon processes and the
// floor are measured by this one function, so both figures mean the same thing.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { ActionStore } from '../src/pipeline/executor/action-store.ts';
import { Ledger } from '../src/records/ledger.ts';

export interface ActionTiming {
  readonly actionId: string;
  /** The poll response that led to the action arrived (the snapshot's receivedAtMs). */
  readonly receivedAtMs: number;
  readonly decidedAtMs: number;
  readonly acceptedAtMs: number;
  readonly builtAtMs: number;
  readonly signedAtMs: number;
  /**
   * The venue accepted the signed transaction: for a transaction sent through the RPC, when the
   * first send returned (the record's submitStartedAtMs, taken right after it, where the floor
   * stops its clock too); otherwise the `submitted` transition.
   */
  readonly submittedAtMs: number;
}

/** Actions of the deployment under `prefix` that reached `submitted`, with their stage times. */
export async function actionTimings(redis: Redis, prefix: string): Promise<ActionTiming[]> {
  const entries = await new Ledger(redis, { prefix, maxLen: 100_000 }).read({ limit: 10_000, reverse: false, types: ['action_state'] });
  const firstAt = new Map<string, number>();
  for (const e of entries) {
    const key = `${e.actionId}|${e.state}`;
    if (e.actionId && e.state && !firstAt.has(key)) firstAt.set(key, e.at);
  }
  const store = new ActionStore(redis, prefix);
  const ids = [...new Set(entries.filter((e) => e.state === 'submitted' && e.actionId).map((e) => e.actionId!))];
  const out: ActionTiming[] = [];
  for (const actionId of ids) {
    const record = (await store.load(actionId))?.record;
    const signedAtMs = firstAt.get(`${actionId}|signed`);
    const submittedAtMs = firstAt.get(`${actionId}|submitted`);
    if (!record?.trigger || record.trigger.receivedAtMs === 0 || signedAtMs === undefined || submittedAtMs === undefined) continue;
    out.push({
      actionId,
      receivedAtMs: record.trigger.receivedAtMs,
      decidedAtMs: record.decidedAtMs,
      acceptedAtMs: record.acceptedAtMs,
      builtAtMs: record.builtAtMs ?? record.acceptedAtMs,
      signedAtMs,
      // Not the `submitted` write: it follows the send by two round trips (the strategy's state,
      // then the record) that the floor does not make and that nothing waits for on the chain.
      submittedAtMs: record.route === 'rpc' && record.submitStartedAtMs !== undefined ? record.submitStartedAtMs : submittedAtMs,
    });
  }
  return out;
}

/** Nearest-rank percentile (p in 0..100) of already-sorted values; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export function tickToSubmit(timings: readonly ActionTiming[]): LatencySummary {
  const ms = timings.map((t) => t.submittedAtMs - t.receivedAtMs).sort((a, b) => a - b);
  return { count: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms.at(-1) ?? Number.NaN };
}

type Stage = readonly [label: string, from: (t: ActionTiming) => number, to: (t: ActionTiming) => number];

/** The stages of tick-to-submit. Their p50s need not add up to the total's p50. */
export const STAGES: readonly Stage[] = [
  ['poll in → strategy decided', (t) => t.receivedAtMs, (t) => t.decidedAtMs],
  ['decided → executor accepted', (t) => t.decidedAtMs, (t) => t.acceptedAtMs],
  ['accepted → built (API build call)', (t) => t.acceptedAtMs, (t) => t.builtAtMs],
  ['built → inspected → signed', (t) => t.builtAtMs, (t) => t.signedAtMs],
  ['signed → submitted (venue accepted)', (t) => t.signedAtMs, (t) => t.submittedAtMs],
];

/** Each action's tick-to-submit and its stages (ms, in STAGES order), oldest first. */
export function actionSamples(timings: readonly ActionTiming[]): Array<{ readonly tickToSubmitMs: number; readonly stagesMs: number[] }> {
  return [...timings]
    .sort((a, b) => a.submittedAtMs - b.submittedAtMs)
    .map((t) => ({ tickToSubmitMs: t.submittedAtMs - t.receivedAtMs, stagesMs: STAGES.map((stage) => stage[2](t) - stage[1](t)) }));
}

export function stageP50(timings: readonly ActionTiming[], stage: Stage): number {
  return percentile(timings.map((t) => stage[2](t) - stage[1](t)).sort((a, b) => a - b), 50);
}

export function fixed(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}

/** Rows of cells: the first column left-aligned, the others right-aligned. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}

/** How long snapshot jobs waited in the market queue and how long the strategy worker took for each. */
export interface QueueTimings {
  readonly jobs: number;
  readonly waitP50: number;
  readonly waitP99: number;
  readonly runP50: number;
  readonly runP99: number;
}

/** From the completed jobs BullMQ keeps (added, processedOn, finishedOn), for jobs added in [fromMs, toMs]. */
export async function queueTimings(queue: Queue, fromMs: number, toMs: number, name?: string): Promise<QueueTimings> {
  const jobs = (await queue.getJobs(['completed'], 0, 20_000)).filter((j) => j.timestamp >= fromMs && j.timestamp <= toMs && j.processedOn !== undefined && j.finishedOn !== undefined && (name === undefined || j.name === name));
  const waits = jobs.map((j) => j.processedOn! - j.timestamp).sort((a, b) => a - b);
  const runs = jobs.map((j) => j.finishedOn! - j.processedOn!).sort((a, b) => a - b);
  return { jobs: jobs.length, waitP50: percentile(waits, 50), waitP99: percentile(waits, 99), runP50: percentile(runs, 50), runP99: percentile(runs, 99) };
}
