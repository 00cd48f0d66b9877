import { setTimeout as sleep } from 'node:timers/promises';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Ledger, type LedgerRecord } from '../../src/records/ledger.ts';
import { isBusinessRefusal, noteOutcomeForBackoff, readBackoffs, refusalBackoffKey } from '../../src/pipeline/strategy-runtime/refusal-backoff.ts';
import { redisScope } from '../support/redis-scope.ts';
import { testDaemonOverrides } from '../support/test-daemon-config.ts';

/**
 * Issue 25, item 4: a venue refusal for business reasons is not decided again every tick. A paper
 * daemon (in-process venue, real Redis, pollers every second) runs a strategy that asks, on every
 * positions snapshot, for a decrease the venue refuses (it would leave the SOL long under the $10
 * collateral minimum: perps 422 collateral_size_below_minimum). After the refusal its intent key
 * backs off (strategies.refusalBackoffMs, doubled per refusal in a row), and the ledger says so once.
 */

const scope = redisScope('refusal-backoff');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BASE_MS = 3_000;
let varDir: string;
let daemon: Daemon | undefined;
let ledger: Ledger;

const REFUSED_STRATEGY = `
import { defineStrategy, positionView, MINTS, z } from 'stratd/strategy';

// Cuts all but $0.000001 of the SOL long: the remainder's collateral is under the venue's minimum.
export default defineStrategy({
  name: 'refused',
  config: z.object({}),
  subscribes: ['positions'],
  onSnapshot(ctx, snapshot) {
    const sol = snapshot.positions.map(positionView).find((p) => p && p.marketMint === MINTS.SOL && p.side === 'long');
    if (!sol) return [];
    const cut = (sol.sizeUsd - 1n).toString();
    return [{ type: 'decrease', key: 'cut:' + sol.positionPubkey, reason: 'leave a dust position', notionalUsd: cut, positionPubkey: sol.positionPubkey, marketMint: sol.marketMint, side: sol.side, receiveToken: 'USDC', sizeUsdDelta: cut }];
  },
});
`;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const entries = async (): Promise<LedgerRecord[]> => (await ledger.read({ limit: 5_000, reverse: false })).filter((e) => e.strategy === 'refused');
const ofType = (all: LedgerRecord[], type: string) => all.filter((e) => e.type === type);

beforeAll(async () => {
  await scope.clean();
  varDir = await mkdtemp(join(tmpdir(), 'stratd-refusal-backoff-'));
  const strategiesDir = join(varDir, 'strategies');
  await mkdir(strategiesDir);
  await writeFile(join(strategiesDir, 'refused.ts'), REFUSED_STRATEGY);
  const { config } = loadConfig({
    env: {},
    overrides: {
      ...testDaemonOverrides({ redisUrl, redisPrefix: scope.redisPrefix, paperKeyFile: join(varDir, 'paper-wallet.json') }),
      'pollers.poolInfo.enabled': false,
      'strategies.dir': strategiesDir,
      'strategies.enabled': ['refused'],
      'strategies.refusalBackoffMs': BASE_MS,
      'strategies.refusalBackoffMaxMs': 60_000,
    },
  });
  ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 10_000 });
  daemon = await startDaemon({ config, roles: ['pollers', 'strategies', 'executor'], logger: silentLogger, env: { REDIS_URL: redisUrl }, varDir });
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
  await scope.clean();
  await scope.close();
  await rm(varDir, { recursive: true, force: true });
});

describe('backoff after a business refusal', () => {
  it('decides a refused intent key again only after its backoff, doubling it, and says why once', async () => {
    const refused = await waitFor('the first refusal', async () => ofType(await entries(), 'action_state').find((e) => e.state === 'rejected'));
    expect(refused.detail.reason).toBe('api:business');
    expect(String(refused.detail.detail)).toContain('collateral_size_below_minimum');
    const firstDecisionAt = ofType(await entries(), 'decision')[0]!.at;

    // The next ticks are skipped; the ledger says why once.
    const backedOff = await waitFor('the backed-off note', async () => ofType(await entries(), 'decision_backed_off')[0]);
    expect(backedOff.detail).toMatchObject({ intentKey: expect.stringMatching(/^cut:/), refusals: 1, refusedAction: refused.actionId });
    expect(String(backedOff.detail.reason)).toContain('api:business');
    const until = backedOff.detail.untilMs as number;
    expect(until - refused.at).toBeGreaterThan(BASE_MS - 1_000);
    expect(until - refused.at).toBeLessThanOrEqual(BASE_MS + 1_000);
    // Ticks every second while it backs off: one decision, one note.
    await sleep(Math.max(0, until - Date.now() - 300));
    let all = await entries();
    expect(ofType(all, 'decision')).toHaveLength(1);
    expect(ofType(all, 'decision_backed_off')).toHaveLength(1);

    // Once it expires the key is decided again, refused again, and waits twice as long.
    const second = await waitFor('the second refusal', async () => ofType(await entries(), 'action_state').filter((e) => e.state === 'rejected')[1]);
    expect(second.at).toBeGreaterThanOrEqual(until);
    const secondNote = await waitFor('the second note', async () => ofType(await entries(), 'decision_backed_off')[1]);
    expect(secondNote.detail).toMatchObject({ refusals: 2, refusedAction: second.actionId });
    expect((secondNote.detail.untilMs as number) - second.at).toBeGreaterThan(2 * BASE_MS - 1_000);
    all = await entries();
    expect(ofType(all, 'decision')).toHaveLength(2);
    expect(ofType(all, 'decision')[1]!.at - firstDecisionAt).toBeGreaterThanOrEqual(BASE_MS - 1_000);
  }, 60_000);
});

describe('what backs off', () => {
  const action = (actionId: string, reason?: string) => ({ actionId, strategy: 'unit', intent: { key: 'k:1', type: 'decrease' }, reason });
  const settings = { baseMs: 1_000, maxMs: 4_000 };

  it('only refusals of the request itself; transient failures, policy and risk rejections and expiries do not', () => {
    for (const reason of ['api:business', 'api:http', 'execute:business', 'execute:http']) expect(isBusinessRefusal(reason), reason).toBe(true);
    for (const reason of [undefined, 'api:invalid_response', 'execute:rate_limited', 'execute:network', 'policy:programs', 'risk:daily_loss', 'stale_decision', 'chain:failed']) expect(isBusinessRefusal(reason), String(reason)).toBe(false);
  });

  it('grows per refusal in a row up to the cap, counts a settlement run twice once, and is forgotten when an action of the key lands', async () => {
    const key = { strategy: 'unit', intentKey: 'k:1', shape: 'decrease' };
    await noteOutcomeForBackoff(scope.redis, scope.prefix, action('a1', 'api:business'), 'rejected', 10_000, settings);
    await noteOutcomeForBackoff(scope.redis, scope.prefix, action('a1', 'api:business'), 'rejected', 10_000, settings);
    expect((await readBackoffs(scope.redis, scope.prefix, [key], 10_500))[0]).toMatchObject({ untilMs: 11_000, attempts: 1, first: true });
    expect((await readBackoffs(scope.redis, scope.prefix, [key], 10_600))[0]).toMatchObject({ first: false });
    expect((await readBackoffs(scope.redis, scope.prefix, [key], 11_000))[0]).toBeUndefined();
    await noteOutcomeForBackoff(scope.redis, scope.prefix, action('a2', 'execute:http'), 'rejected', 11_000, settings);
    await noteOutcomeForBackoff(scope.redis, scope.prefix, action('a3', 'api:http'), 'rejected', 13_000, settings);
    await noteOutcomeForBackoff(scope.redis, scope.prefix, action('a4', 'api:http'), 'rejected', 17_000, settings);
    expect((await readBackoffs(scope.redis, scope.prefix, [key], 17_000))[0]).toMatchObject({ untilMs: 21_000, attempts: 4, first: true });
    // Another kind of request for the key (a close after refused partial decreases) is not held back.
    expect((await readBackoffs(scope.redis, scope.prefix, [{ ...key, shape: 'decrease:entire' }], 17_500))[0]).toBeUndefined();
    await noteOutcomeForBackoff(scope.redis, scope.prefix, action('a5', 'execute:network'), 'rejected', 21_000, settings);
    expect(await scope.redis.hget(refusalBackoffKey(scope.prefix, 'unit', 'k:1'), 'attempts')).toBe('4');
    await noteOutcomeForBackoff(scope.redis, scope.prefix, action('a6'), 'landed', 21_000, settings);
    expect(await scope.redis.exists(refusalBackoffKey(scope.prefix, 'unit', 'k:1'))).toBe(0);
  });
});
