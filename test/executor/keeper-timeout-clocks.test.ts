// A legacy (keeper-executed) perps request the keeper fills is never called `expired
// keeper_timeout` because of this host's clock (an adversarial review's proofs; before, the intent
// key was freed and the risk gate told the request never executed, while the keeper filled it):
//   - the daemon's clock 200 s ahead of the chain's: the last look's window of fills starts 15
//     minutes before the build (it started 2 minutes before, after the fill);
//   - the wall clock stepping 70 s forward (NTP) while the keeper is inside its window: the window
//     is timed on the monotonic clock of the process that saw the landing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { LocalKeypairSigner, writeKeyFile } from '../../src/chain/signer.ts';
import { loadConfig } from '../../src/config/index.ts';
import { assembleExecutor } from '../../src/daemon/executor-role.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Watchdog } from '../../src/kernel/watchdog.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { claimIntent, intentHolder } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { actionIdFor, actionJobSchema } from '../../src/records/action.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { startVenue, type Venue, type VenueOptions } from '../../src/venue/venue.ts';
import { redisScope } from '../support/redis-scope.ts';

const realNow = Date.now;
let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  Date.now = realNow;
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function setup(name: string, venueOpts: Partial<VenueOptions>, overrides: Record<string, unknown>, hooks: { onLandingSeen?: () => void } = {}) {
  const scope = redisScope(`keeper-clocks-${name}-${process.pid}`);
  const venue: Venue = await startVenue({ seed: 7, clock: { speed: 1 }, volatility: 0, ...venueOpts });
  const dir = await mkdtemp(join(tmpdir(), 'stratd-keeper-clocks-'));
  const keypair = Keypair.generate();
  const keyFile = join(dir, 'wallet.json');
  await writeKeyFile(keyFile, keypair);
  const wallet = keypair.publicKey.toBase58();
  const funded = await fetch(`${venue.apiUrl}/__venue/fund`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wallet, sol: '20000000000', usdc: '10000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '100000000', leverage: '3' }] }),
  });
  expect(funded.status).toBe(200);
  const { config } = loadConfig({
    env: {},
    overrides: { mode: 'paper', 'api.baseUrl': venue.apiUrl, 'rpc.url': venue.rpcUrl, 'redis.url': process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'redis.prefix': scope.redisPrefix, 'wallet.paperKeyFile': keyFile, 'execution.confirmPollMs': 100, 'policy.simulation.enabled': false, ...overrides },
  });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0 });
  const executor = await assembleExecutor({
    config, redis: scope.redis, prefix: scope.prefix, client, rpcUrl: venue.rpcUrl,
    signer: await LocalKeypairSigner.fromKeyFile(keyFile, { mode: 'paper' }),
    ledger: new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 }),
    logger: silentLogger, metrics: new Metrics({ defaults: false }), watchdog: new Watchdog(),
    onLandingSeen: hooks.onLandingSeen,
  });
  cleanup.push(async () => {
    await client.close();
    await venue.close();
    await rm(dir, { recursive: true, force: true });
    await scope.clean();
    await scope.close();
  });
  const positions = async () => (await client.call('perps.positions', { walletAddress: wallet })).dataList;
  /** The strategy's decision: claim the intent key as the worker does, then the executor's accept and drive. */
  async function decreaseOnce(key: string) {
    const now = Date.now();
    const list = await positions();
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: now, wallet, positions: list });
    const long = list.map(positionView).find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL)!;
    const actionId = actionIdFor('clocks', key, now);
    expect(await claimIntent(scope.redis, scope.prefix, 'clocks', key, actionId, 300_000)).toBe('claimed');
    const job = actionJobSchema.parse({ actionId, strategy: 'clocks', intent: { key, reason: 'clocks', type: 'decrease', notionalUsd: '50000000', positionPubkey: long.positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '50000000' }, decidedAtMs: now, window: now, trigger: { kind: 'positions', key: 'clocks', tickMs: now, receivedAtMs: now } });
    await executor.accept(job);
    const final = await executor.drive(actionId);
    return { final, holder: await intentHolder(scope.redis, scope.prefix, 'clocks', key), sizeBefore: long.sizeUsd };
  }
  return { venue, decreaseOnce, positions };
}

describe('a request the keeper fills is landed, whatever this host\'s clock does', () => {
  it('with the daemon\'s clock 200 s ahead of the chain', async () => {
    const { venue, decreaseOnce } = await setup('skew', { clock: { speed: 1, startMs: Date.now() - 200_000 }, keeperDelayMs: 300, maxRequestExecutionSec: 3 }, { 'execution.maxRequestExecutionSecFallback': 3, 'execution.keeperFillGraceMs': 2_000 });
    const { final } = await decreaseOnce('dec-skew');
    expect(venue.market.perps.outcomes.find((o) => o.signature === final!.signature)?.status).toBe('executed');
    expect(final).toMatchObject({ state: 'landed' });
  }, 60_000);

  it('with the wall clock stepping 70 s forward while the keeper is inside maxRequestExecutionSec', async () => {
    let offset = 0;
    Date.now = () => realNow() + offset; // before the executor takes its clock
    const { venue, decreaseOnce } = await setup('step', { keeperDelayMs: 6_000, maxRequestExecutionSec: 45 }, {}, { onLandingSeen: () => void (offset += 70_000) });
    const { final } = await decreaseOnce('dec-step');
    expect(final).toMatchObject({ state: 'landed' });
    expect(venue.market.perps.outcomes.find((o) => o.signature === final!.signature)?.status).toBe('executed');
  }, 60_000);
});
