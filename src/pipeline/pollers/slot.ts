import type { ParsedFields, ScheduledTask } from 'node-cron';

/** How far back the search for a schedule's last slot goes before it gives up. */
const SEARCH_MINUTES = 35 * 24 * 60;

/**
 * The latest slot of a schedule at or before `atMs` — the tick time a cron run at that moment
 * would have had — so replicas that tick "now" (tickNow) agree on the snapshot job id with each
 * other and with the scheduled run. Walks back minute by minute in the schedule's time zone,
 * skipping with plain arithmetic every minute whose minute, hour, day or month the expression
 * excludes; node-cron's own `match` (slow: it formats dates per time zone) confirms the
 * candidates. A schedule with no slot in the last 35 days falls back to `atMs` rounded down to
 * the second.
 */
export function lastSlotAtOrBefore(task: Pick<ScheduledTask, 'match'>, fields: ParsedFields, timeZone: string, atMs: number): number {
  const wholeSecond = atMs - (atMs % 1000);
  const minuteStart = wholeSecond - (wholeSecond % 60_000);
  const seconds = [...fields.second].sort((a, b) => b - a);
  const allows = prefilter(fields);
  const offsetMs = zoneOffsetMs(timeZone, wholeSecond);
  for (let m = 0; m <= SEARCH_MINUTES; m++) {
    const start = minuteStart - m * 60_000;
    if (!allows(new Date(start + offsetMs))) continue;
    for (const second of seconds) {
      const candidate = start + second * 1000;
      if (candidate <= wholeSecond && task.match(new Date(candidate))) return candidate;
    }
  }
  return wholeSecond;
}

/** A cheap test of a minute's wall-clock fields (read with the UTC getters of a shifted date). */
function prefilter(fields: ParsedFields): (local: Date) => boolean {
  const minutes = new Set(fields.minute);
  const hours = new Set(fields.hour);
  const months = new Set(fields.month);
  // Special day forms (L, W, #) are left to node-cron's match.
  const days = fields.dayOfMonth.every((d) => typeof d === 'number') ? new Set(fields.dayOfMonth) : undefined;
  const weekdays = fields.dayOfWeek.every((d) => typeof d === 'number') ? new Set(fields.dayOfWeek.map((d) => Number(d) % 7)) : undefined;
  return (local) =>
    minutes.has(local.getUTCMinutes()) &&
    hours.has(local.getUTCHours()) &&
    months.has(local.getUTCMonth() + 1) &&
    (days === undefined || days.has(local.getUTCDate())) &&
    (weekdays === undefined || weekdays.has(local.getUTCDay()));
}

/**
 * Wall-clock time minus UTC in a time zone at an instant. Taken once per search: a
 * daylight-saving change inside the searched span can hide slots from before it (UTC, the
 * default, has none).
 */
function zoneOffsetMs(timeZone: string, atMs: number): number {
  const parts = wallClockFormat(timeZone).formatToParts(new Date(atMs));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - atMs;
}

/**
 * One formatter per time zone, kept: building an Intl.DateTimeFormat costs far more than using
 * it, and every source's tick asks (about twenty times a second on a busy daemon). A process
 * names one or two zones.
 */
const wallClockFormats = new Map<string, Intl.DateTimeFormat>();
function wallClockFormat(timeZone: string): Intl.DateTimeFormat {
  let format = wallClockFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallClockFormats.set(timeZone, format);
  }
  return format;
}
