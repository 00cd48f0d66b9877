import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { runCli } from '../support/cli.ts';
import { DaemonFleet } from '../support/daemon-process.ts';
import { E2eDeployment } from './support/e2e-deployment.ts';
import { actionHistories, landedExactlyOnceProblems } from './support/exactly-once.ts';
import { eventCounts, queueEvents } from './support/queue-events.ts';
import { VenueControl } from '../support/venue-control.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * Acceptance: two daemon processes (every role each) on one Redis — same prefix, same wallet,
 * same venue — produce each snapshot once and each action once: every snapshot job id is added
 * to the market queue once (the other process's add is a "duplicated" no-op) and processed
 * once; every action is decided, accepted, signed and landed once.
 */

describe('two daemon processes on one Redis', () => {
  const fleet = new DaemonFleet();
  let venue: Venue;
  let control: VenueControl;
  let deployment: E2eDeployment;

  beforeAll(async () => {
    venue = await startVenue({ seed: 53, clock: { speed: 1 } });
    control = new VenueControl(venue.apiUrl);
    deployment = await E2eDeployment.create('two');
  });

  afterEach(async () => {
    await fleet.killAll();
  });

  afterAll(async () => {
    await deployment?.close();
    await venue?.close();
  });

  it('produces each snapshot job and each action once', async () => {
    await control.fundWithPositionNearLiquidation(deployment.walletAddress);
    const sets = deployment.sets(E2eDeployment.againstVenue(venue));
    const a = fleet.start({ name: 'daemon A', sets });
    const b = fleet.start({ name: 'daemon B', sets });
    const context = () => fleet.logTails();

    // Run until an action landed and both processes have ticked together for a while.
    await waitUntil(async () => {
      if (!a.running || !b.running) throw new Error('a daemon exited');
      return (await deployment.ledger()).find((e) => e.type === 'action_state' && e.state === 'landed');
    }, { what: 'an action landed', timeoutMs: 45_000, context });
    // Long enough for the checks below to mean something: ten slots both ticked, and more than ten
    // snapshot jobs in all (a run whose action landed at once had seen only ten, and failed the count).
    await waitUntil(async () => {
      const events = await queueEvents(deployment.redis, deployment.prefix, 'market');
      const duplicated = events.filter((e) => e.event === 'duplicated');
      return duplicated.length >= 10 && eventCounts(events).size > 10 ? duplicated : undefined;
    }, { what: 'both pollers ticked the same slots (ten duplicate adds) and more than ten snapshot jobs', timeoutMs: 30_000, context });
    // The kill switch reaches both real daemons: pause and resume list each one by pid.
    const cliSets = sets.flatMap((s) => ['--set', s]);
    const paused = await runCli(['pause', '--reducing', '--reason', 'drill', ...cliSets]);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toContain('acknowledged by 2 processes');
    for (const pid of [a.pid, b.pid]) expect(paused.stdout).toContain(`pid ${pid} (pollers, strategies, executor): now reducing`);
    const resumed = await runCli(['resume', ...cliSets]);
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const pid of [a.pid, b.pid]) expect(resumed.stdout).toContain(`pid ${pid} (pollers, strategies, executor): now active`);

    a.signal('SIGTERM');
    b.signal('SIGTERM');
    expect((await a.waitForExit(20_000)).code, a.logTail()).toBe(0);
    expect((await b.waitForExit(20_000)).code, b.logTail()).toBe(0);

    // Both processes ran (one start entry each).
    const ledger = await deployment.ledger();
    const pids = ledger.filter((e) => e.type === 'system' && e.detail.event === 'start').map((e) => e.detail.pid);
    expect(new Set(pids)).toEqual(new Set([a.pid, b.pid]));

    // Snapshots: each job id added once, taken and completed at most once, never failed.
    const market = eventCounts(await queueEvents(deployment.redis, deployment.prefix, 'market'));
    expect(market.size).toBeGreaterThan(10);
    const snapshotProblems: string[] = [];
    let completed = 0;
    for (const [jobId, counts] of market) {
      if (counts.get('added') !== 1) snapshotProblems.push(`${jobId}: added ${counts.get('added') ?? 0} times`);
      if ((counts.get('active') ?? 0) > 1) snapshotProblems.push(`${jobId}: processed ${counts.get('active')} times`);
      if ((counts.get('completed') ?? 0) > 1) snapshotProblems.push(`${jobId}: completed ${counts.get('completed')} times`);
      if (counts.has('failed')) snapshotProblems.push(`${jobId}: failed ${counts.get('failed')} times`);
      completed += counts.get('completed') ?? 0;
    }
    expect(snapshotProblems).toEqual([]);
    expect(completed).toBeGreaterThan(10);

    // Actions: each decided once, stored by an executor of the deciding process with no job (a
    // job, written only for an action its process could not store, would be added once), and
    // landed exactly once on the venue.
    const histories = actionHistories(ledger);
    expect(histories.size).toBeGreaterThan(0);
    const actions = eventCounts(await queueEvents(deployment.redis, deployment.prefix, 'actions'));
    const [landed, trades] = await Promise.all([control.landed(), control.decreaseTrades(deployment.walletAddress)]);
    const actionProblems: string[] = [];
    for (const history of histories.values()) {
      const decisions = ledger.filter((e) => e.type === 'decision' && e.actionId === history.actionId).length;
      if (decisions !== 1) actionProblems.push(`${history.actionId}: ${decisions} decision entries`);
      if ((actions.get(history.actionId)?.get('added') ?? 0) > 1) actionProblems.push(`${history.actionId}: action job added ${actions.get(history.actionId)?.get('added')} times`);
      actionProblems.push(...landedExactlyOnceProblems({ history, record: await deployment.record(history.actionId), landed, decreaseTrades: trades }));
    }
    expect(actionProblems, context()).toEqual([]);
    expect(trades).toHaveLength(histories.size);
  }, 120_000);
});
