import type { ScheduledTask } from 'node-cron';

/** How far back the search for a schedule's last slot goes before it gives up. */
const SEARCH_MINUTES = 8 * 24 * 60;

/**
 * The latest slot of a schedule at or before `atMs` — the tick time that a cron run at that
 * moment would have had. Replicas that tick "now" (tickNow) then agree on the snapshot job
 * id with each other and with the scheduled run. Searches minute by minute backwards, testing
 * only the seconds the expression allows; a schedule with no slot in the last 8 days falls
 * back to `atMs` rounded down to the second.
 */
export function lastSlotAtOrBefore(task: Pick<ScheduledTask, 'match'>, seconds: readonly number[], atMs: number): number {
  const wholeSecond = atMs - (atMs % 1000);
  const minuteStart = wholeSecond - (wholeSecond % 60_000);
  const descending = [...seconds].sort((a, b) => b - a);
  for (let m = 0; m <= SEARCH_MINUTES; m++) {
    const start = minuteStart - m * 60_000;
    for (const second of descending) {
      const candidate = start + second * 1000;
      if (candidate > wholeSecond) continue;
      if (task.match(new Date(candidate))) return candidate;
    }
  }
  return wholeSecond;
}
