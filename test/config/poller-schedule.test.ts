import { parse } from 'node-cron';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { SNAPSHOT_KINDS } from '../../src/sdk/snapshot.ts';

describe('default poller schedules', () => {
  const { config } = loadConfig({ env: {}, configDir: '/nonexistent-stratd-config' });
  const seconds = (cron: string) => new Set(parse(cron).second);

  it('give positions seconds of their own: no other source ticks on a positions second', () => {
    const positions = seconds(config.pollers.positions.cron);
    for (const kind of SNAPSHOT_KINDS.filter((k) => k !== 'positions')) {
      const shared = [...seconds(config.pollers[kind].cron)].filter((s) => positions.has(s));
      expect(shared, `${kind} (${config.pollers[kind].cron}) ticks with positions`).toEqual([]);
    }
  });

  it('read collateral limits one second after a positions tick, so they see fresh positions', () => {
    const positions = seconds(config.pollers.positions.cron);
    for (const s of seconds(config.pollers.collateralLimits.cron)) expect(positions.has((s + 59) % 60), `second ${s}`).toBe(true);
  });
});
