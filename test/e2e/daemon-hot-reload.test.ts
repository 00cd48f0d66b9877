import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QUEUES } from '../../src/pipeline/queues.ts';
import { openQueue } from '../../src/pipeline/queues.ts';
import { readStrategyState } from '../../src/pipeline/strategy-runtime/state.ts';
import { runCli } from '../support/cli.ts';
import { buildDistIfStale, productionEnv } from '../support/dist-build.ts';
import { DaemonFleet } from '../support/daemon-process.ts';
import { E2eDeployment } from './support/e2e-deployment.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * Acceptance (issue 13, hot reload): a strategy module that does not parse and is not enabled does
 * not stop `stratd run`; SIGHUP with a good setting applies it between jobs without a failed job;
 * `stratd reload` (through Redis) with a bad setting is refused whole, says why in the log and the
 * ledger, and the running settings stay. Real daemon process (compiled, as production runs), real Redis.
 */

const repo = (path: string) => new URL(`../../${path}`, import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'stratd-reload-'));
const strategiesDir = join(dir, 'strategies');
cpSync(repo('strategies/liquidation-guard'), join(strategiesDir, 'liquidation-guard'), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
// A half-written module nobody enabled.
writeFileSync(join(strategiesDir, 'half-written.ts'), "import { defineStrategy } from 'stratd/strategy';\nexport default defineStrategy({ name: 'half-written',\n");
// A probe whose committed state shows the setting it ran with and how many snapshots it saw.
writeFileSync(
  join(strategiesDir, 'probe.ts'),
  `import { defineStrategy, z } from 'stratd/strategy';
export default defineStrategy({
  name: 'probe',
  config: z.object({ mark: z.string().regex(/^[a-z]+$/).default('initial') }),
  state: z.object({ mark: z.string(), seen: z.number() }),
  subscribes: ['positions'],
  onSnapshot(ctx) {
    return { intents: [], state: { mark: ctx.config.mark, seen: (ctx.state?.seen ?? 0) + 1 } };
  },
});
`,
);
const configFile = join(dir, 'stratd.json');
const writeConfig = (mark: unknown) =>
  writeFileSync(configFile, JSON.stringify({ strategies: { dir: strategiesDir, enabled: ['liquidation-guard', 'probe'], settings: { probe: { mark } } } }));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hot reload (stratd run, SIGHUP, stratd reload)', () => {
  const fleet = new DaemonFleet();
  let deployment: E2eDeployment;

  beforeAll(() => buildDistIfStale(), 300_000);
  beforeEach(async () => {
    deployment = await E2eDeployment.create('reload');
  });
  afterEach(async () => {
    await fleet.killAll();
    await deployment.close();
  });

  it('skips an unparsable module that is not enabled, applies a good setting on SIGHUP and refuses a bad one from stratd reload and from SIGHUP, keeping the old', async () => {
    writeConfig('alpha');
    const sets = deployment.sets({ 'pollers.positions.cron': '* * * * * *' });
    const daemon = fleet.start({ name: 'stratd run', sets, args: ['--config', configFile], env: productionEnv() });
    const probeState = async () => (await readStrategyState(deployment.redis, deployment.prefix, 'probe')) as { mark: string; seen: number } | undefined;
    const alive = () => {
      if (!daemon.running) throw new Error(`the daemon exited\n${daemon.logTail()}`);
    };

    await waitUntil(async () => (alive(), (await probeState())?.mark === 'alpha' ? true : undefined), { what: 'the probe ran with alpha', timeoutMs: 60_000, context: () => daemon.logTail() });
    expect(daemon.output().some((l) => l.includes('strategy module skipped') && l.includes('half-written.ts')), daemon.logTail()).toBe(true);

    // A good setting, by signal: applied, and the probe's next decisions run with it.
    writeConfig('beta');
    daemon.signal('SIGHUP');
    await waitUntil(async () => (alive(), (await probeState())?.mark === 'beta' ? true : undefined), { what: 'the probe ran with beta', timeoutMs: 30_000, context: () => daemon.logTail() });
    const applied = (await deployment.ledger()).find((e) => e.type === 'system' && e.detail.event === 'reload' && e.detail.outcome === 'applied');
    expect(applied?.detail).toMatchObject({ trigger: 'SIGHUP', changed: ['strategies.settings.probe.mark'], strategies: ['liquidation-guard', 'probe'] });

    // A bad setting, through Redis: refused whole, with the field named; the running one stays.
    writeConfig('NOT LOWER CASE');
    const cli = await runCli(['reload', ...sets.flatMap((s) => ['--set', s])], { timeoutMs: 60_000 });
    expect(cli.code, cli.stdout + cli.stderr).toBe(1);
    expect(cli.stdout).toContain('refused');
    expect(cli.stdout).toContain('strategies.settings.probe.mark');
    const refused = (await deployment.ledger()).find((e) => e.type === 'system' && e.detail.event === 'reload' && e.detail.outcome === 'refused');
    expect(refused?.detail.reason).toContain('strategies.settings.probe.mark');
    expect(daemon.output().some((l) => l.includes('reload refused'))).toBe(true);
    const seenAfterRefusal = (await probeState())!.seen;
    await waitUntil(async () => (alive(), ((await probeState())?.seen ?? 0) > seenAfterRefusal + 2 ? true : undefined), { what: 'the probe kept deciding', timeoutMs: 30_000, context: () => daemon.logTail() });
    expect((await probeState())?.mark).toBe('beta');

    // A bad setting by signal too: refused with the reason in the ledger, the running one stays.
    writeConfig('ALSO NOT LOWER CASE');
    daemon.signal('SIGHUP');
    const bySignal = await waitUntil(
      async () => (alive(), (await deployment.ledger()).find((e) => e.type === 'system' && e.detail.event === 'reload' && e.detail.outcome === 'refused' && e.detail.trigger === 'SIGHUP')),
      { what: 'the SIGHUP reload was refused', timeoutMs: 30_000, context: () => daemon.logTail() },
    );
    expect(bySignal.detail.reason).toContain('strategies.settings.probe.mark');
    const seenAfterSignal = (await probeState())!.seen;
    await waitUntil(async () => (alive(), ((await probeState())?.seen ?? 0) > seenAfterSignal + 2 ? true : undefined), { what: 'the probe kept deciding', timeoutMs: 30_000, context: () => daemon.logTail() });
    expect((await probeState())?.mark).toBe('beta');

    // No snapshot job failed and no strategy erred across both reloads.
    const market = openQueue(QUEUES.market, { connection: deployment.redis, prefix: deployment.prefix });
    try {
      expect(await market.getFailedCount()).toBe(0);
    } finally {
      await market.close();
    }
    expect((await deployment.ledger()).filter((e) => e.type === 'strategy_error')).toEqual([]);
    expect(daemon.running).toBe(true);
  }, 240_000);
});
