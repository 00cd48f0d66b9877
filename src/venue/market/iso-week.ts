const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/** Monday 00:00 UTC of ISO week 1 of `year` (the week that holds 4 January). */
function weekOneStartMs(year: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  const isoDay = new Date(jan4).getUTCDay() || 7;
  return jan4 - (isoDay - 1) * DAY_MS;
}

/** 52 or 53: a year has 53 ISO weeks when it starts on a Thursday, or on a Wednesday in a leap year. */
export function isoWeeksInYear(year: number): number {
  return (weekOneStartMs(year + 1) - weekOneStartMs(year)) / WEEK_MS;
}

interface IsoWeek {
  readonly year: number;
  readonly week: number;
}

/** The ISO week holding `ms`. */
export function isoWeekOf(ms: number): IsoWeek {
  const year = new Date(ms).getUTCFullYear();
  for (const candidate of [year + 1, year, year - 1]) {
    const start = weekOneStartMs(candidate);
    if (ms >= start) return { year: candidate, week: Math.floor((ms - start) / WEEK_MS) + 1 };
  }
  throw new RangeError(`no ISO week for ${String(ms)}`);
}

/** [startMs, endMs) of an ISO week; undefined when the year has no such week. */
export function isoWeekRange(year: number, week: number): { startMs: number; endMs: number } | undefined {
  if (!Number.isInteger(week) || week < 1 || week > isoWeeksInYear(year)) return undefined;
  const startMs = weekOneStartMs(year) + (week - 1) * WEEK_MS;
  return { startMs, endMs: startMs + WEEK_MS };
}
