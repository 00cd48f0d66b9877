import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ledgerEntrySchema } from '../../src/records/ledger.ts';
import { runCli } from '../support/cli.ts';
import { buildDistIfStale, productionEnv } from '../support/dist-build.ts';
import { DaemonFleet } from '../support/daemon-process.ts';
import { E2eDeployment } from './support/e2e-deployment.ts';
import { VenueControl } from '../support/venue-control.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * Acceptance: `stratd run` with nothing but Redis — its own in-process venue, a paper wallet it
 * seeds with a SOL long close to liquidation — lands a liquidation-guard decrease within 60 s,
 * `stratd actions` shows it, and SIGTERM stops the process cleanly within the grace period. It runs
 * what `npm start` runs: the compiled JavaScript in dist/ (built by `npm ci`'s prepare script).
 */

const GRACE_MS = 10_000;

describe('stratd run out of the box (paper mode, in-process venue)', () => {
  const fleet = new DaemonFleet();
  let deployment: E2eDeployment;

  beforeAll(() => buildDistIfStale(), 300_000);

  beforeEach(async () => {
    deployment = await E2eDeployment.create('oob');
  });

  afterEach(async () => {
    await fleet.killAll();
    await deployment.close();
  });

  it('lands a liquidation-guard decrease within 60 s, shows it in stratd actions, and exits 0 on SIGTERM', async () => {
    // Only what a test must isolate: its own Redis prefix and key file. Pollers, strategy and
    // venue run on their defaults, as `npm start` runs them.
    const sets = deployment.sets({ 'shutdown.graceMs': GRACE_MS });
    const startedAt = Date.now();
    const daemon = fleet.start({ name: 'stratd run', sets, env: productionEnv() });

    const landed = await waitUntil(
      async () => {
        if (!daemon.running) throw new Error(`the daemon exited early\n${daemon.logTail()}`);
        return (await deployment.ledger()).find((e) => e.type === 'action_state' && e.state === 'landed' && e.strategy === 'liquidation-guard');
      },
      { what: 'a liquidation-guard action landed', timeoutMs: 60_000, intervalMs: 250, context: () => daemon.logTail() },
    );
    expect(Date.now() - startedAt).toBeLessThan(60_000);
    expect(daemon.output().some((line) => line.includes('"runtime":"dist"')), daemon.logTail()).toBe(true);

    // What an operator runs, with the same flags.
    const cli = await runCli(['actions', '--json', '--limit', '1000', ...sets.flatMap((s) => ['--set', s])]);
    expect(cli.code, cli.stderr).toBe(0);
    const entries = cli.stdout.trim().split('\n').map((line) => ledgerEntrySchema.extend({ id: z.string() }).parse(JSON.parse(line)));
    const decision = entries.find((e) => e.type === 'decision' && e.actionId === landed.actionId);
    expect(decision?.strategy).toBe('liquidation-guard');
    expect(decision?.detail.intentType).toBe('decrease');
    const states = entries.filter((e) => e.type === 'action_state' && e.actionId === landed.actionId).map((e) => e.state);
    expect(states).toEqual(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed']);

    // It landed on the daemon's own venue: the signature is in its landed list and the keeper
    // applied the decrease (a Decrease trade with that transaction hash).
    const signature = landed.detail.signature;
    expect(typeof signature).toBe('string');
    const venueUrl = daemon
      .output()
      .map((line) => /"apiUrl":"(http:\/\/[^"]+)"/.exec(line)?.[1])
      .find((url) => url !== undefined);
    expect(venueUrl, daemon.logTail()).toBeDefined();
    const venue = new VenueControl(venueUrl!);
    expect((await venue.landed()).filter((l) => l.signature === signature)).toHaveLength(1);
    expect((await venue.decreaseTrades(deployment.walletAddress)).filter((t) => t.txHash === signature)).toHaveLength(1);

    const signalledAt = Date.now();
    daemon.signal('SIGTERM');
    const exit = await daemon.waitForExit(GRACE_MS + 5_000);
    expect({ code: exit.code, signal: exit.signal }, daemon.logTail()).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(GRACE_MS);
    expect(daemon.output().some((line) => line.includes('"msg":"stopped"'))).toBe(true);
  }, 90_000);
});
