import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecording, RECORDING_VERSION } from '../../src/records/recording.ts';
import { runCli } from '../support/cli.ts';
import { buildDistIfStale, productionEnv } from '../support/dist-build.ts';
import { DaemonFleet } from '../support/daemon-process.ts';
import { E2eDeployment } from '../e2e/support/e2e-deployment.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * Acceptance (issue 13 item 5): `stratd record` (a real compiled process, its own paper venue,
 * real Redis) writes the snapshots it reads after a versioned header; `stratd replay` of that
 * recording prints the liquidation guard's decrease, the same bytes twice; a recording of a newer
 * format version is refused with a message that says so.
 */

describe('stratd record and stratd replay', () => {
  const fleet = new DaemonFleet();
  let deployment: E2eDeployment;
  let recording: string;

  beforeAll(async () => {
    buildDistIfStale();
    deployment = await E2eDeployment.create('record');
    recording = join(deployment.keyFile, '..', 'run.jsonl');
    const sets = deployment.sets({ 'pollers.positions.cron': '* * * * * *', 'pollers.poolInfo.cron': '* * * * * *' });
    const recorder = fleet.start({ name: 'stratd record', sets, env: productionEnv(), args: ['--out', recording], command: 'record' });
    await waitUntil(
      () => {
        if (!recorder.running) throw new Error(`stratd record exited\n${recorder.logTail()}`);
        let text: string;
        try {
          text = readFileSync(recording, 'utf8');
        } catch {
          return undefined;
        }
        return text.split('\n').filter((l) => l.includes('"kind":"positions"')).length >= 3 ? true : undefined;
      },
      { what: 'three positions snapshots recorded', timeoutMs: 90_000, context: () => recorder.logTail() },
    );
    recorder.signal('SIGTERM');
    expect((await recorder.waitForExit(20_000)).code).toBe(0);
  }, 300_000);

  afterAll(async () => {
    await fleet.killAll();
    await deployment.close();
  });

  it('writes a header with the format version, then one snapshot per line', () => {
    const [header, ...lines] = readFileSync(recording, 'utf8').trim().split('\n');
    expect(JSON.parse(header!)).toMatchObject({ format: 'stratd-recording', version: RECORDING_VERSION });
    expect(lines.map((l) => JSON.parse(l) as { kind: string }).some((s) => s.kind === 'poolInfo')).toBe(true);
  });

  it('writes the wallet balances the daemon reads as their own lines, which the reader validates', async () => {
    const { balances, snapshots } = await readRecording(recording);
    expect(snapshots.length).toBeGreaterThan(0);
    // The paper venue answers getBalance (it keeps no token accounts, so no USDC): SOL is known from the start.
    expect(balances.length).toBeGreaterThan(0);
    expect(balances[0]!.lamports).toMatch(/^\d+$/);
  });

  it('replays the liquidation guard over it deterministically: the decrease, byte-identical twice', async () => {
    const first = await runCli(['replay', recording, '--strategy', 'liquidation-guard'], { env: productionEnv(), timeoutMs: 60_000 });
    const second = await runCli(['replay', recording, '--strategy', 'liquidation-guard'], { env: productionEnv(), timeoutMs: 60_000 });
    expect(first.code, first.stderr).toBe(0);
    const events = first.stdout.trim().split('\n').map((l) => JSON.parse(l) as { strategy: string; intent?: { type: string } });
    expect(events.some((e) => e.strategy === 'liquidation-guard' && e.intent?.type === 'decrease'), first.stdout).toBe(true);
    expect(second.stdout).toBe(first.stdout);
  }, 120_000);

  it('refuses a recording of a newer format version, saying so', async () => {
    const [header, ...lines] = readFileSync(recording, 'utf8').trim().split('\n');
    const future = join(deployment.keyFile, '..', 'future.jsonl');
    writeFileSync(future, [JSON.stringify({ ...JSON.parse(header!), version: RECORDING_VERSION + 1 }), ...lines].join('\n'));
    const result = await runCli(['replay', future, '--strategy', 'liquidation-guard'], { timeoutMs: 60_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`recording format version ${RECORDING_VERSION + 1} is newer than this stratd reads (up to ${RECORDING_VERSION})`);
  }, 120_000);
});
