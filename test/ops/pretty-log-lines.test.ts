import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DaemonFleet } from '../support/daemon-process.ts';
import { E2eDeployment } from '../e2e/support/e2e-deployment.ts';
import { waitUntil } from '../support/wait-until.ts';
import { MINTS } from '../../src/api/mints.ts';
import { prettyLine } from '../../src/kernel/pretty-line.ts';
import { actionLogFields } from '../../src/pipeline/executor/action-log-fields.ts';

/**
 * Issue 29: on a terminal (log.format pretty, as auto picks for a TTY), every event is one line,
 * and an action's line says what the action is — intent type, market, amounts in dollars. A real
 * paper daemon (its own in-process venue, the seeded SOL long the liquidation guard cuts) runs
 * from the sources with pretty logs; its stdout is read as a person would see it.
 */

// pino-pretty's line head: "[2026-11-27 07:45:01.123] INFO:" (time as log.prettyTime writes it).
const HEAD = /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL):/;

describe('pretty logs on a terminal', () => {
  const fleet = new DaemonFleet();
  let deployment: E2eDeployment;

  beforeEach(async () => {
    deployment = await E2eDeployment.create('pretty');
  });

  afterEach(async () => {
    await fleet.killAll();
    await deployment.close();
  });

  it("a paper daemon writes one line per event; an action's line names intent, market and dollars", async () => {
    const daemon = fleet.start({ name: 'stratd run (pretty)', sets: deployment.sets({ 'log.format': 'pretty' }), env: { STRATD_RUNTIME: 'src' } });
    const landed = await waitUntil(
      () => {
        if (!daemon.running) throw new Error(`the daemon exited early\n${daemon.logTail()}`);
        return daemon.output().find((line) => line.includes('action state') && line.includes('landed') && line.includes('strategy=liquidation-guard'));
      },
      { what: 'a landed action line', timeoutMs: 60_000, intervalMs: 250, context: () => daemon.logTail() },
    );
    // The guard's cut of the seeded SOL long, in dollars; the raw USD × 10^6 integers are not shown.
    expect(landed).toMatch(/INFO: action state {2}landed {2}decrease {2}SOL long {2}notional \$[\d,]+\.\d\d {2}size \$[\d,]+\.\d\d/);
    expect(landed).toContain('strategy=liquidation-guard');
    expect(landed).not.toMatch(/notionalUsd|sizeUsd|"\d{7,}"/);
    // Every line the daemon wrote starts an event: no field spills onto lines of its own.
    const lines = daemon.output();
    expect(lines.filter((line) => !HEAD.test(line)), daemon.logTail()).toEqual([]);
    expect(lines.filter((line) => line.includes('action state')).length).toBeGreaterThanOrEqual(6);
    daemon.signal('SIGTERM');
    await daemon.waitForExit(15_000);
  }, 90_000);

  it("renders every intent's action line from the executor's fields: market, and dollars where money moves", () => {
    const line = (intent: Parameters<typeof actionLogFields>[0]) => prettyLine({ level: 30, msg: 'action state', actionId: 'act-1', state: 'accepted', ...actionLogFields(intent) });
    const common = { key: 'k', reason: 'r', positionPubkey: MINTS.JLP, marketMint: MINTS.ETH, side: 'short' as const, receiveToken: 'USDC' as const };
    expect(line({ type: 'decrease', ...common, notionalUsd: '2699184602', sizeUsdDelta: '2699184602', collateralUsdDelta: '4000' })).toBe(
      'action state  accepted  decrease  ETH short  notional $2,699.18  size $2,699.18  collateral $0.004  actionId=act-1',
    );
    // A TP/SL moves no money: no "notional $0.00", but its trigger in dollars.
    expect(line({ type: 'tpsl-update', key: 'k', reason: 'r', notionalUsd: '0', tpslPubkey: MINTS.JLP, triggerPrice: '161500000' })).toBe('action state  accepted  tpsl-update  triggerPrice $161.50  actionId=act-1');
    const bonk = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
    expect(line({ type: 'trigger-create', key: 'k', reason: 'r', notionalUsd: '25000000', inputMint: MINTS.USDC, outputMint: bonk, makingAmount: '25000000', takingAmount: '1' })).toBe(
      'action state  accepted  trigger-create  USDC→DezXAZ…  notional $25.00  actionId=act-1',
    );
    // An open says where it is stopped.
    expect(line({ type: 'open', key: 'k', reason: 'r', notionalUsd: '300000000', marketMint: MINTS.SOL, side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000', leverage: '3', stopLossPrice: '165000000' })).toBe(
      'action state  accepted  open  SOL short  notional $300.00  triggerPrice $165.00  actionId=act-1',
    );
  });

  it('keeps an error line one line, with its stack under it only at error level', () => {
    const err = { type: 'ApiError', kind: 'http', message: 'the API answered 503', stack: 'ApiError: the API answered 503\n    at call (client.ts:1:1)' };
    expect(prettyLine({ level: 40, msg: 'executor step failed; retrying', actionId: 'act-1', err })).toBe('executor step failed; retrying  actionId=act-1  err="ApiError (http): the API answered 503"');
    expect(prettyLine({ level: 50, msg: 'boom', err }).split('\n')).toEqual(['boom  err="ApiError (http): the API answered 503"', '    at call (client.ts:1:1)']);
    // A reason with a newline cannot start a line of its own.
    expect(prettyLine({ level: 30, msg: 'note', reason: 'a\nb', collateralUsdDelta: '-12300000' })).toBe('note  reason="a\\nb"  collateralUsdDelta=-$12.30');
  });
});
