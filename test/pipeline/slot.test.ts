import { createTask, parse } from 'node-cron';
import { afterAll, describe, expect, it } from 'vitest';
import { lastSlotAtOrBefore } from '../../src/pipeline/pollers/slot.ts';

const tasks: Array<ReturnType<typeof createTask>> = [];
afterAll(async () => {
  for (const t of tasks) await t.destroy();
});

function slot(cron: string, at: number, timezone = 'UTC'): number {
  const task = createTask(cron, () => undefined, { timezone });
  tasks.push(task);
  return lastSlotAtOrBefore(task, parse(cron), timezone, at);
}

describe('lastSlotAtOrBefore', () => {
  const at = Date.UTC(2026, 5, 17, 13, 47, 38, 250); // a Wednesday

  it('rounds down to the schedule', () => {
    expect(slot('*/10 * * * * *', at)).toBe(Date.UTC(2026, 5, 17, 13, 47, 30));
    expect(slot('*/5 * * * *', at)).toBe(Date.UTC(2026, 5, 17, 13, 45, 0));
    expect(slot('0 0 * * *', at)).toBe(Date.UTC(2026, 5, 17, 0, 0, 0));
    expect(slot('0 30 9 * * MON', at)).toBe(Date.UTC(2026, 5, 15, 9, 30, 0));
    expect(slot('0 0 1 * *', at)).toBe(Date.UTC(2026, 5, 1, 0, 0, 0));
    expect(slot('0 0 L * *', at)).toBe(Date.UTC(2026, 4, 31, 0, 0, 0));
  });

  it('an instant on a slot is its own slot', () => {
    expect(slot('*/10 * * * * *', Date.UTC(2026, 5, 17, 13, 47, 30))).toBe(Date.UTC(2026, 5, 17, 13, 47, 30));
  });

  it('reads the expression in its time zone', () => {
    // 09:00 in Kathmandu (UTC+05:45) is 03:15 UTC.
    expect(slot('0 0 9 * * *', at, 'Asia/Kathmandu')).toBe(Date.UTC(2026, 5, 17, 3, 15, 0));
  });

  it('falls back to the whole second when nothing matched in the last 35 days', () => {
    expect(slot('0 0 0 1 1 *', at)).toBe(Date.UTC(2026, 5, 17, 13, 47, 38));
  });
});
