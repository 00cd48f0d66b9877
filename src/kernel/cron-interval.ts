import type { ScheduledTask } from 'node-cron';

/** How many upcoming runs are compared; enough to see the gaps of any per-minute or hourly pattern. */
const LOOK_AHEAD_RUNS = 64;

/**
 * The interval a cron-driven loop is expected to beat at, for the watchdog: the longest gap
 * between its next runs (so an irregular pattern such as "0,5 * * * * *" is judged by its
 * 55 s gap, not its 5 s one). At least one second, the finest cron granularity.
 */
export function expectedCronIntervalMs(task: Pick<ScheduledTask, 'getNextRuns'>): number {
  const runs = task.getNextRuns(LOOK_AHEAD_RUNS).map((d) => d.getTime());
  let longest = 1_000;
  for (let i = 1; i < runs.length; i++) longest = Math.max(longest, runs[i]! - runs[i - 1]!);
  return longest;
}
