// End-to-end: one `stratd run` against a venue that builds hostile transactions for every write
// operation, through each kind of tampering in turn. For every kind the daemon must refuse the
// liquidation guard's decreases with the policy rule named, trip the guard's circuit breaker (its
// new actions stopped), and across the whole run sign nothing and land nothing.
//
// One daemon for all kinds keeps the file fast (booting `stratd run` costs seconds): after each
// trip the test switches the venue's tampering and resumes trading through the kill switch's
// Redis state (a resume resets the breakers). Each refused action is attributed to a kind by reading its stored transaction
// bytes with web3.js, so a build straddling a switch cannot be misattributed.
import { PublicKey } from '@solana/web3.js';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyRule } from '../../src/chain/policy/verdict.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { keyPrefix } from '../../src/pipeline/queues.ts';
import { connectRedis } from '../../src/kernel/redis.ts';
import { CircuitBreakers, type BreakerTrip } from '../../src/risk/circuit-breaker.ts';
import { TradingStateStore } from '../../src/risk/trading-state.ts';
import { HOSTILE_KINDS, type HostileKind } from '../../src/venue/tx/hostile.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { DaemonExited, startDaemonProcess, type DaemonProcess } from '../support/daemon-process.ts';
import { lastStates, ledgerThroughCli, storedActionRecords } from './support/deployment-records.ts';
import { carriesNoSignature, hostileContentOf } from './support/hostile-content.ts';
import { deleteEverythingContaining } from './support/redis-values.ts';
import { createTestWallet, type TestWallet } from './support/test-wallet.ts';
import { VenueControl, type Funded } from '../support/venue-control.ts';
import { waitUntil } from '../support/wait-until.ts';

const EXPECTED_RULE: Record<HostileKind, PolicyRule> = {
  sol_transfer: 'value_transfer',
  token_transfer: 'value_transfer',
  token_approve: 'token_approval',
  fee_payer: 'fee_payer',
  unknown_program: 'program_not_allowed',
  durable_nonce: 'durable_nonce',
  price_slippage: 'intent_exceeded',
};

/** Rejections in a row before the breaker trips (config risk.circuitBreakerRejections). */
const BREAKER = 3;

const redisPrefix = `stratd-test-e2e-safety-hostile-${process.pid}`;
const prefix = keyPrefix(redisPrefix);
const redis: Redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const tradingState = new TradingStateStore(redis, prefix);
const breakers = new CircuitBreakers(redis, prefix);
let venue: Venue | undefined;
let wallet: TestWallet | undefined;
let daemon: DaemonProcess | undefined;
let funded: Funded | undefined;

function daemonOutput(): string {
  const stdout = daemon?.stdout() ?? '';
  const lines = stdout.split('\n').filter((line) => !line.includes('cooling down'));
  return `--- daemon stdout (tail) ---\n${lines.join('\n').slice(-12_000)}\n--- stderr ---\n${(daemon?.stderr() ?? '').slice(-2_000)}`;
}

/** Waits until the guard's breaker tripped on `rule` after `sinceMs`, with no action unfinished. */
async function trippedOn(rule: PolicyRule, sinceMs: number, what: string): Promise<BreakerTrip> {
  return waitUntil(
    async () => {
      if (!daemon?.running) throw new DaemonExited(`the daemon exited early\n${daemonOutput()}`);
      const trip = await breakers.active('liquidation-guard', Date.now());
      // A run of rejections may straddle the switch of tampering: the trip names the latest rule first
      // ("policy:<rule> (and N other policy violations in a row)").
      if (!trip || trip.trippedAtMs < sinceMs || !(trip.reason === `policy:${rule}` || trip.reason.startsWith(`policy:${rule} (`))) return undefined;
      return (await redis.zcard(`${prefix}actions:open`)) === 0 ? trip : undefined;
    },
    { timeoutMs: 40_000, what, context: daemonOutput, retryErrors: false },
  );
}

/** Policy-refused action records with the tampering each one's transaction carries. */
async function refusedByPolicy(): Promise<Array<{ record: ActionRecord; kinds: HostileKind[] }>> {
  const records = await storedActionRecords(redis, prefix);
  const owner = new PublicKey(wallet!.publicKey);
  return records.filter((r) => r.reason?.startsWith('policy:')).map((record) => ({ record, kinds: hostileContentOf(record.unsignedTx!, owner) }));
}

beforeAll(async () => {
  await deleteEverythingContaining(redis, redisPrefix);
  venue = await startVenue({ seed: 101, faults: { operations: { '*': { hostile: HOSTILE_KINDS[0] } } } });
  wallet = await createTestWallet('hostile');
  // Two positions near liquidation, so the liquidation guard keeps deciding while the venue is hostile.
  funded = await new VenueControl(venue.apiUrl).fund({
    wallet: wallet.publicKey,
    sol: '10000000000',
    usdc: '5000000000',
    positions: [
      { market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '2.5' },
      { market: 'ETH', side: 'long', collateralUsd: '150000000', liquidationDistancePct: '3' },
    ],
  });
  daemon = startDaemonProcess({
    'rpc.url': venue.rpcUrl,
    'api.baseUrl': venue.apiUrl,
    'redis.prefix': redisPrefix,
    'wallet.paperKeyFile': wallet.keyFile,
    'pollers.positions.cron': '* * * * * *',
    'risk.circuitBreakerRejections': String(BREAKER),
    // Every refused decrease still books its notional; keep the hourly limits out of the way so
    // the breaker is the only gate at work.
    'risk.maxNotionalPerHourUsd': '1000000000000000',
    'risk.maxActionsPerStrategyPerHour': '100000',
    'log.level': 'debug',
  });
}, 30_000);

afterAll(async () => {
  await daemon?.stop(5_000);
  await venue?.close();
  await wallet?.remove();
  await deleteEverythingContaining(redis, redisPrefix);
  await redis.quit();
}, 30_000);

describe('stratd run against a venue that tampers with every write operation', () => {
  let phaseStartMs = 0;

  it.each(HOSTILE_KINDS.map((kind, index) => [kind, EXPECTED_RULE[kind], index] as const))(
    'with %s: every decrease is rejected with policy:%s, unsigned, and the circuit breaker stops the guard',
    async (kind, rule, index) => {
      if (index > 0) {
        // The previous kind tripped the breaker with nothing in flight: switch the tampering, then resume.
        await new VenueControl(venue!.apiUrl).setHostile(kind);
        phaseStartMs = Date.now();
        await tradingState.set('active', `e2e: next hostile kind ${kind}`, 'test');
      }
      const trip = await trippedOn(rule, phaseStartMs, `the breaker to trip on policy:${rule} (${kind})`);
      expect(trip.count).toBeGreaterThanOrEqual(BREAKER);

      const refused = await refusedByPolicy();
      const ofThisKind = refused.filter((r) => r.kinds.includes(kind));
      expect(ofThisKind.length, daemonOutput()).toBeGreaterThanOrEqual(1);
      for (const { record, kinds } of refused) {
        // Exactly one tampering per transaction, and the rejection names that tampering's rule.
        expect(kinds).toHaveLength(1);
        expect(record.reason).toBe(`policy:${EXPECTED_RULE[kinds[0]!]}`);
        expect(record.violations?.map((v) => v.rule)).toContain(EXPECTED_RULE[kinds[0]!]);
        expect(record.detail).toContain(`${EXPECTED_RULE[kinds[0]!]}:`);
        // Refused by the price bound itself (the daemon's own mark was known), not for want of a mark.
        if (kinds[0] === 'price_slippage') expect(record.detail).toContain('accepts a worse price than');
      }
    },
    45_000,
  );

  it('signed nothing, ended every action rejected, alerted per refusal, and landed nothing', async () => {
    const exit = await daemon!.stop();
    expect({ code: exit.code, signal: exit.signal }, daemonOutput()).toEqual({ code: 0, signal: null });

    // The ledger, through the operator's own tool.
    const { entries } = await ledgerThroughCli(redisPrefix);
    const states = entries.filter((e) => e.type === 'action_state');
    expect(states.filter((e) => ['inspected', 'signed', 'submitted', 'landed', 'expired'].includes(e.state ?? ''))).toEqual([]);
    expect(states.filter((e) => e.detail.signature !== undefined)).toEqual([]);
    const last = lastStates(entries);
    const finals = [...last.values()];
    expect(finals.filter((e) => e.state !== 'rejected')).toEqual([]);
    // Refused by the policy, or refused by the gate while the breaker held the guard.
    const reasons = new Set(finals.map((e) => String(e.detail.reason)));
    const allowedReasons = new Set([...Object.values(EXPECTED_RULE).map((rule) => `policy:${rule}`), 'risk:circuit_breaker']);
    expect([...reasons].filter((reason) => !allowedReasons.has(reason))).toEqual([]);
    // Every decision the strategy made reached the executor and ended there.
    const decided = entries.filter((e) => e.type === 'decision').map((e) => e.actionId);
    expect(decided.length).toBeGreaterThan(0);
    expect(decided.filter((id) => id === undefined || !last.has(id))).toEqual([]);

    // The stored records agree: no signature, no signed bytes, and the built bytes unsigned.
    const records = await storedActionRecords(redis, prefix);
    expect(records.map((r) => r.actionId).sort()).toEqual([...last.keys()].sort());
    for (const record of records) {
      expect(record.state).toBe('rejected');
      expect(record.signature).toBeUndefined();
      expect(record.signedTx).toBeUndefined();
      if (record.unsignedTx !== undefined) expect(carriesNoSignature(record.unsignedTx)).toBe(true);
    }
    const refused = await refusedByPolicy();
    expect(new Set(refused.flatMap((r) => r.kinds))).toEqual(new Set(HOSTILE_KINDS));

    // One operator alert (an error-level log line) per policy refusal.
    const alerted = daemon!
      .stdout()
      .split('\n')
      .filter((line) => line.includes('ALERT: transaction refused by policy'))
      .map((line) => (JSON.parse(line) as { level: number; actionId: string }))
      .filter((line) => line.level >= 50)
      .map((line) => line.actionId);
    expect(new Set(alerted)).toEqual(new Set(refused.map((r) => r.record.actionId)));

    // Nothing reached the chain, and the wallet kept everything it was funded with.
    const control = new VenueControl(venue!.apiUrl);
    expect(await control.landed()).toEqual([]);
    const balances = await control.balances(wallet!.publicKey);
    expect({ lamports: balances.lamports, tokens: balances.tokens }).toEqual({ lamports: funded!.lamports, tokens: funded!.tokens });
  }, 45_000);
});
