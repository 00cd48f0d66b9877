import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditResult, Finding } from './audit.ts';
import type { ChaosOptions } from './options.ts';

export interface GoalRow {
  readonly measure: string;
  readonly value: string;
  /** The goal, or '' for a row that is information only. */
  readonly goal: string;
  /** true met, false missed, undefined not judged. */
  readonly met: boolean | undefined;
}

export interface ChaosReport {
  readonly command: string;
  readonly options: ChaosOptions;
  readonly startedAt: string;
  readonly wallClockSeconds: number;
  readonly rows: readonly GoalRow[];
  readonly goalsMet: boolean;
  readonly missed: readonly string[];
  readonly audit: AuditResult;
  readonly unexpectedExitTails: readonly string[];
}

const n = (xs: readonly unknown[]) => String(xs.length);
const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : `${(bytes / 1_048_576).toFixed(1)} MB`);

/** The table's rows: issue 8's goals first, then what explains them. */
export function goalRows(a: AuditResult, opts: ChaosOptions): GoalRow[] {
  const zero = (measure: string, xs: readonly unknown[]): GoalRow => ({ measure, value: n(xs), goal: '0', met: xs.length === 0 });
  const info = (measure: string, value: string | number): GoalRow => ({ measure, value: String(value), goal: '', met: undefined });
  const finals = Object.entries(a.actions.byFinalState).sort().map(([state, count]) => `${state} ${count}`).join(', ');
  const growth = a.memory.lastHalfGrowthPct;
  // Memory and the kill count are judged on a full-length run only: a short run has no steady state.
  const judged = !opts.short && opts.durationMs >= 600_000;
  const sigkills = a.fleet.kills + a.fleet.failpointExits;
  return [
    info('actions accepted (decided)', `${a.actions.accepted} (${a.actions.decided})`),
    info('actions by final state', finals || '-'),
    info('landed by intent type', Object.entries(a.actions.landedByType).sort().map(([type, count]) => `${type} ${count}`).join(', ') || '-'),
    info('opens: decided / landed (ledger) / increases executed on the venue', `${a.opens.decided} / ${a.opens.landed} / ${a.opens.executedOnVenue}`),
    zero('landed twice', a.landedTwice),
    zero('multi-signature', a.multiSignature),
    zero('lost (accepted, never final, not open)', a.lost),
    zero(`stuck (open > ${opts.stuckAfterMs / 1000} s at the audit)`, a.stuck),
    zero(`unsettled (final, lock or open entry held > ${opts.settleGraceMs / 1000} s)`, a.unsettled),
    zero('"landed" without its own fill', a.landedWithoutOwnFill),
    // Rejected or expired in the ledger but executed on the venue: the strategy may decide again
    // and double the action, so it is held to zero like a double landing.
    zero('final state contradicted by the venue (rejected/expired, executed there)', a.contradicted),
    zero(`preventable liquidations (its action pending ≥ ${opts.preventableAfterMs / 1000} s, no outage)`, a.preventableLiquidations),
    {
      measure: 'Redis used_memory growth, last half of the fault phase',
      value: growth === undefined ? `n/a (${a.memory.samples} samples)` : `${growth.toFixed(1)} % (${mb(a.memory.midBytes)} → ${mb(a.memory.endBytes)}, ${(a.memory.lastHalfSlopeMbPerMin ?? 0).toFixed(2)} MB/min)`,
      // Growth is what the goal guards against (unbounded keys); a fall — expiries catching up, or
      // a Redis restart in the window compacting the data set — is not a leak and passes.
      goal: '≤ +10 %',
      met: judged ? growth !== undefined && growth <= 10 : undefined,
    },
    { measure: 'SIGKILLs (killer + failpoints)', value: `${sigkills} (${a.fleet.kills} + ${a.fleet.failpointExits})`, goal: judged ? '≥ 100' : '', met: judged ? sigkills >= 100 : undefined },
    info('daemon starts / refused to start (Redis away) / unexpected exits', `${a.fleet.starts} / ${a.fleet.startRefusals} / ${a.fleet.unexpectedExits}`),
    info('Redis restarts (incl. the outage)', a.redisRestarts),
    info('outages and stalls', a.incidents.filter((i) => !i.what.startsWith('Redis restart')).length),
    info('positions opened near liquidation', a.positionsOpened),
    info('liquidations (all) / while pending during an outage', `${a.liquidations} / ${a.liquidatedDuringOutage.length}`),
    info('decided, never accepted', a.decidedNeverAccepted),
    info('still open, younger than the stuck bound', a.stillOpenYoung),
    info('venue landings of the wallet / not any action\'s', `${a.walletLandings} / ${a.orphanLandings}`),
    info('risk ledger entries', Object.entries(a.riskEntries).map(([k, v]) => `${k} ${v}`).join(', ') || '0'),
    info('Redis keys at the end, by kind', Object.entries(a.redisKeys).sort((x, y) => y[1] - x[1]).slice(0, 8).map(([k, v]) => `${k} ${v}`).join(', ') || '0'),
    info('ledger entries read (unreadable, gaps)', `${a.ledger.entries} (${a.ledger.unreadable}, ${a.ledger.gaps})`),
  ];
}

export function buildReport(a: AuditResult, opts: ChaosOptions, command: string, startedAtMs: number, unexpectedExitTails: readonly string[]): ChaosReport {
  const rows = goalRows(a, opts);
  const missed = rows.filter((r) => r.met === false).map((r) => `${r.measure}: ${r.value} (goal ${r.goal})`);
  return { command, options: opts, startedAt: new Date(startedAtMs).toISOString(), wallClockSeconds: Math.round((Date.now() - startedAtMs) / 1000), rows, goalsMet: missed.length === 0, missed, audit: a, unexpectedExitTails };
}

/** The table for a terminal, then up to `detail` findings per problem. */
export function formatReport(report: ChaosReport, detail = 10): string {
  const widths = [0, 1, 2].map((i) => Math.max(...report.rows.map((r) => [r.measure, r.value, r.goal][i]!.length), ['measure', 'value', 'goal'][i]!.length));
  const line = (cells: string[], verdict: string) => `${cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')}  ${verdict}`.trimEnd();
  const out = [
    `stratd chaos: ${report.command}`,
    `seed ${report.options.seed}, ${report.options.daemons} daemons, fault phase ${report.options.durationMs / 1000} s, ${report.wallClockSeconds} s in all`,
    '',
    line(['measure', 'value', 'goal'], 'verdict'),
    ...report.rows.map((r) => line([r.measure, r.value, r.goal], r.met === undefined ? '' : r.met ? 'ok' : 'MISSED')),
  ];
  const a = report.audit;
  const lists: Array<[string, readonly Finding[]]> = [
    ['landed twice', a.landedTwice], ['multi-signature', a.multiSignature], ['lost', a.lost], ['stuck', a.stuck],
    ['"landed" without its own fill', a.landedWithoutOwnFill], ['preventable liquidations', a.preventableLiquidations], ['liquidated while pending, during an outage', a.liquidatedDuringOutage], ['contradicted', a.contradicted],
    ['unsettled', a.unsettled.map((u) => ({ actionId: u.actionId, why: `${u.finalState}, ${u.intentLockHeld ? 'intent lock held' : ''}${u.intentLockHeld && u.inOpenSet ? ' and ' : ''}${u.inOpenSet ? 'still in actions:open' : ''} ${Math.round((u.seenAtMs - u.finalAtMs) / 1000)} s after its final write` }))],
  ];
  for (const [name, findings] of lists) {
    if (findings.length === 0) continue;
    out.push('', `${name} (${findings.length}):`, ...findings.slice(0, detail).map((f) => `  ${f.actionId}  ${f.why}`));
    if (findings.length > detail) out.push(`  … ${findings.length - detail} more in the JSON`);
  }
  const reasons = Object.entries(a.actions.rejectedReasons).sort((x, y) => y[1] - x[1]).slice(0, 8);
  if (reasons.length) out.push('', 'rejected/expired by reason:', ...reasons.map(([r, c]) => `  ${String(c).padStart(5)}  ${r}`));
  if (a.incidents.length) out.push('', 'incidents:', ...a.incidents.map((i) => `  +${Math.round((i.fromMs - Date.parse(report.startedAt)) / 1000)} s  ${i.what}`));
  out.push('', report.goalsMet ? 'every goal met' : `goals missed: ${report.missed.length}`);
  return out.join('\n');
}

/** Writes the report as JSON (`latest.json` and a timestamped copy) under `dir`; answers the path. */
export async function writeReport(report: ChaosReport, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const json = JSON.stringify(report, null, 2);
  const stamped = join(dir, `chaos-${report.startedAt.replace(/[:.]/g, '-')}.json`);
  await writeFile(stamped, json);
  const latest = join(dir, 'latest.json');
  await writeFile(latest, json);
  return latest;
}
