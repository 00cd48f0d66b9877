import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { readLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { listProcesses } from '../../src/ops/process-presence.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { runCli, type CliResult } from '../support/cli.ts';
import { VenueControl } from '../support/venue-control.ts';
import { DaemonFleet, REPO_ROOT, type DaemonProcess } from '../support/daemon-process.ts';
import { E2eDeployment } from './support/e2e-deployment.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * `stratd act` end to end: a real `stratd run` (paper mode, its own prefix) against a venue in
 * this process, and `stratd act` as the operator runs it — a dry run, a confirmation declined on
 * a terminal, a refusal without one, bad input, a close with --yes, and, once the daemon is gone,
 * an act carried out in the act's own process.
 */
describe('stratd act', () => {
  const fleet = new DaemonFleet();
  let venue: Venue;
  let control: VenueControl;
  let deployment: E2eDeployment;
  let daemon: DaemonProcess;
  let sol: string;
  let eth: string;
  let sets: string[];

  const act = (args: string[], input?: string): Promise<CliResult> => runCli(['act', ...args, ...sets.flatMap((s) => ['--set', s])], { input, timeoutMs: 60_000 });
  const decisions = async () => (await deployment.ledger()).filter((e) => e.type === 'decision');

  beforeAll(async () => {
    venue = await startVenue({ seed: 61, clock: { speed: 1 } });
    control = new VenueControl(venue.apiUrl);
    deployment = await E2eDeployment.create('act');
    const funded = await control.fund({
      wallet: deployment.walletAddress,
      sol: '10000000000', // lamports: 10 SOL, what the opens pay
      usdc: '1000000000',
      positions: [
        { market: 'SOL', side: 'long', collateralUsd: '200000000', leverage: '2' },
        { market: 'ETH', side: 'long', collateralUsd: '200000000', leverage: '2' },
      ],
    });
    [sol, eth] = funded.positions.map((p) => p.positionPubkey) as [string, string];
    // The protective simulation's 300 ms is a production bound; on a loaded test machine it refused acts this test is not about.
    const patient = { 'policy.simulation.protectiveTimeoutMs': 5_000 };
    sets = deployment.sets({ ...E2eDeployment.externalVenue(venue), ...patient });
    daemon = fleet.start({ name: 'daemon', sets: deployment.sets({ ...E2eDeployment.againstVenue(venue), ...patient, 'pollers.marketStats.cron': '* * * * * *' }) });
    await waitUntil(async () => (await readLatestSnapshot(deployment.redis, deployment.prefix, 'positions', deployment.walletAddress)) && (await readLatestSnapshot(deployment.redis, deployment.prefix, 'marketStats', MINTS.SOL)) && (await listProcesses(deployment.redis, deployment.prefix)).length > 0, {
      what: 'the daemon polled positions and market prices and announced itself',
      timeoutMs: 30_000,
      context: () => daemon.logTail(),
    });
  }, 60_000);

  afterAll(async () => {
    await fleet.killAll();
    await deployment?.close();
    await venue?.close();
  });

  it('bad input: one line naming the argument and the allowed values, exit 2, nothing decided', async () => {
    const before = (await decisions()).length;
    const [unknown, noTty, held] = await Promise.all([
      act(['open', 'DOGE', 'long', '--collateral', '1SOL', '--leverage', '2', '--sl', '5%', '--yes']),
      act(['close', sol]),
      act(['open', 'SOL', 'long', '--collateral', '0.5SOL', '--leverage', '2', '--sl', '5%', '--yes']),
    ]);
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^stratd act: <market>: "DOGE" is not a perps market; allowed: SOL, ETH, BTC$/)]);
    // The wallet holds a SOL long: the venue would add to it, so the open is refused, naming the command that adds.
    expect(held.code, held.stdout + held.stderr).toBe(2);
    expect(held.stderr.trim().split('\n')).toEqual([`stratd act: open: the wallet already holds a SOL long position (${sol}); to add to it: stratd act increase ${sol} --collateral … (--leverage … | --size …)`]);
    // Every other kind of bad input (decimals, tokens, leverage, positions) is read by the same code: test/cli/act-intent.test.ts.
    // Without a terminal and without --yes nothing is even read.
    expect(noTty.code).toBe(2);
    expect(noTty.stderr.trim().split('\n')).toHaveLength(1);
    expect(noTty.stderr).toMatch(/--yes: no terminal to confirm on/);
    expect(await decisions()).toHaveLength(before);
  });

  it('--dry-run builds and inspects through the daemon, prints the preview, signs nothing', async () => {
    const landedBefore = (await control.landed()).length;
    const dry = await act(['tpsl', sol, '--sl', '20%', '--dry-run']);
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/through the daemon's executor/);
    expect(dry.stdout).toMatch(/stop-loss at \$[\d,.]+ on SOL long/);
    expect(dry.stdout).toMatch(/transaction: .*message sha256 [0-9a-f]{64}/);
    expect(dry.stdout).toMatch(/fees: [\d.]+ SOL at most/);
    expect(dry.stdout).toMatch(/dry run: nothing signed/);
    const actionId = /action (act-[0-9a-f]{40})/.exec(dry.stdout)![1]!;
    const record = await deployment.record(actionId);
    expect(record).toMatchObject({ state: 'inspected', dryRun: true, strategy: 'operator' });
    expect(record?.signature).toBeUndefined();
    expect((await control.landed()).length).toBe(landedBefore);
  });

  it('intents that add risk meet the risk gate before the build: refused by the limit\'s name, or built and previewed', async () => {
    // $1,001 of USDC is beyond risk.maxSpendPerHourUsd ($1,000).
    const [spend, open] = await Promise.all([
      act(['swap', '1001', 'USDC', 'SOL', '--dry-run']),
      act(['open', 'SOL', 'short', '--collateral', '50USDC', '--leverage', '3', '--sl', '10%', '--dry-run']),
    ]);
    expect(spend.code, spend.stdout + spend.stderr).toBe(1);
    expect(spend.stdout).toMatch(/^rejected: risk:max_spend_per_hour/m);
    // Within every limit, the open is built, inspected and previewed; nothing signed.
    expect(open.code, open.stdout + open.stderr).toBe(0);
    expect(open.stdout).toMatch(/dry run: nothing signed/);
  });

  it('a confirmation answered "n" on a terminal ends the action rejected, nothing signed', async () => {
    const answered = await onTerminal(['act', 'close', sol, ...sets.flatMap((s) => ['--set', s])], 'n\n');
    expect(answered.code, answered.stdout).toBe(1);
    expect(answered.stdout).toMatch(/sign and send this transaction\? \[y\/N\]/);
    expect(answered.stdout).toMatch(/rejected: operator:declined/);
    const actionId = /action (act-[0-9a-f]{40})/.exec(answered.stdout)![1]!;
    expect(await deployment.record(actionId)).toMatchObject({ state: 'rejected', reason: 'operator:declined' });
    expect((await deployment.record(actionId))?.signature).toBeUndefined();
    expect(await control.positionSize(sol)).toBeGreaterThan(0n);
  });

  it('close with --yes lands (exit 0), in the ledger with who and why', async () => {
    const closed = await act(['close', sol, '--yes', '--who', 'alice', '--reason', 'flatten SOL before the news']);
    expect(closed.code, closed.stdout + closed.stderr).toBe(0);
    expect(closed.stdout).toMatch(/position now: SOL long size \$[\d,.]+.*after: size \$0\.00 \(closed\)/);
    expect(closed.stdout).toMatch(/^landed: \w+/m);
    const actionId = /action (act-[0-9a-f]{40})/.exec(closed.stdout)![1]!;
    const entries = (await deployment.ledger()).filter((e) => e.actionId === actionId);
    expect(entries.find((e) => e.type === 'decision')).toMatchObject({ strategy: 'operator', detail: { who: 'alice', why: 'flatten SOL before the news', intentType: 'decrease' } });
    expect(entries.find((e) => e.type === 'action_state' && e.state === 'accepted')).toMatchObject({ detail: { who: 'alice', why: 'flatten SOL before the news' } });
    expect(entries.map((e) => e.state).filter(Boolean)).toEqual(expect.arrayContaining(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed']));
    expect((await control.positionSize(sol)) ?? 0n).toBe(0n);
  });

  it('open with --yes lands (exit 0): the position and its stop-loss are on the venue', async () => {
    // After the close above the wallet holds no SOL long: this open makes one (the same account, a position's address is per market and side).
    const solLong = (state: Awaited<ReturnType<VenueControl['state']>>) => state.positions.filter((p) => p.owner === deployment.walletAddress && p.asset === 'SOL' && p.side === 'long' && BigInt(p.sizeUsd) > 0n);
    expect(solLong(await control.state())).toEqual([]);
    // The act and the risk gate judge the daemon's latest positions snapshot: until the pollers read
    // the wallet again after the close, it still lists the SOL long, and the open is refused as
    // position_held (it was, once, on a loaded CI host).
    await waitUntil(
      async () => {
        const seen = await readLatestSnapshot(deployment.redis, deployment.prefix, 'positions', deployment.walletAddress);
        const held = seen === undefined || seen.positions.map(positionView).some((p) => p?.marketMint === MINTS.SOL && p.side === 'long' && p.sizeUsd > 0n);
        return held ? undefined : true;
      },
      { what: 'a positions snapshot without the closed SOL long', timeoutMs: 30_000, context: () => daemon.logTail() },
    );
    const opened = await act(['open', 'SOL', 'long', '--collateral', '0.3SOL', '--leverage', '2', '--sl', '5%', '--yes', '--reason', 'enter SOL']);
    expect(opened.code, opened.stdout + opened.stderr).toBe(0);
    expect(opened.stdout).toMatch(/^landed: \w+/m);
    const actionId = /action (act-[0-9a-f]{40})/.exec(opened.stdout)![1]!;
    const record = await deployment.record(actionId);
    expect(record).toMatchObject({ state: 'landed', strategy: 'operator', intent: { type: 'open', marketMint: MINTS.SOL, side: 'long', stopLossPrice: expect.stringMatching(/^\d+$/) } });
    // The venue's word, not our records: one SOL long of the wallet, and on it one active stop-loss at the act's trigger.
    const state = await control.state();
    const [position, ...more] = solLong(state);
    expect(more).toEqual([]);
    const stops = (state.tpsl as Array<{ positionPubkey: string; requestType: string; status: string; triggerPrice: unknown }>).filter((t) => t.positionPubkey === position!.positionPubkey && t.requestType === 'sl' && t.status === 'active');
    expect(stops.map((t) => String(t.triggerPrice))).toEqual([(record!.intent as { stopLossPrice: string }).stopLossPrice]);
  }, 60_000);

  it('with no daemon listening, the act runs the executor in its own process', async () => {
    daemon.signal('SIGTERM');
    await daemon.waitForExit(30_000);
    expect(await listProcesses(deployment.redis, deployment.prefix)).toEqual([]);
    const decreased = await act(['decrease', eth, '--size', '50USD', '--yes', '--reason', 'trim ETH']);
    expect(decreased.code, decreased.stdout + decreased.stderr).toBe(0);
    expect(decreased.stdout).toMatch(/in this process \(no daemon listens/);
    expect(decreased.stdout).toMatch(/^landed: /m);
    const actionId = /action (act-[0-9a-f]{40})/.exec(decreased.stdout)![1]!;
    expect(await deployment.record(actionId)).toMatchObject({ state: 'landed', strategy: 'operator', operator: { why: 'trim ETH' } });
  });
});

/** Runs `stratd <args>` on a pseudo-terminal (util-linux `script`), typing `input`. */
function onTerminal(args: string[], input: string): Promise<CliResult> {
  const command = [process.execPath, 'bin/stratd.js', ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: REPO_ROOT, env: process.env });
    let stdout = '';
    let typed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Typed once the question is asked: a terminal's input typed earlier could be read by nothing.
      if (!typed && stdout.includes('[y/N]')) {
        typed = true;
        child.stdin.write(input);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr: '' });
    });
  });
}
