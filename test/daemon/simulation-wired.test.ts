// The daemon's own executor assembly (assembleExecutor, as `stratd run` composes it) runs the
// simulation check from the configuration: in paper mode against the venue's node by default, a
// build whose simulated effect moves USDC out of the wallet (the venue's test fault
// simulatedOutflow) is refused with simulation_delta and counted; with policy.simulation.enabled
// off the same build is signed. Without the wiring in daemon.ts this test fails.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { writeKeyFile } from '../../src/chain/signer.ts';
import { loadConfig } from '../../src/config/index.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { actionIdFor, actionJobSchema } from '../../src/records/action.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { daemonExecutor } from '../support/daemon-executor.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`simulation-wired-${process.pid}`);
let venue: Venue;
let dir: string;

beforeAll(async () => {
  venue = await startVenue({ seed: 5, clock: { speed: 1 }, volatility: 0 });
  dir = await mkdtemp(join(tmpdir(), 'stratd-simulation-wired-'));
});
afterAll(async () => {
  await venue.close();
  await rm(dir, { recursive: true, force: true });
  await scope.clean();
  await scope.close();
});

async function runTriggerCreate(simulation: boolean, name: string): Promise<{ state: string; reason?: string; refused: number }> {
  const keypair = Keypair.generate();
  const keyFile = join(dir, `${name}.json`);
  await writeKeyFile(keyFile, keypair);
  const wallet = keypair.publicKey.toBase58();
  const funded = await fetch(`${venue.apiUrl}/__venue/fund`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ wallet, sol: '10000000000', usdc: '1000000000' }) });
  expect(funded.status).toBe(200);
  const { config } = loadConfig({
    env: {},
    overrides: { mode: 'paper', 'api.baseUrl': venue.apiUrl, 'rpc.url': venue.rpcUrl, 'redis.url': process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'redis.prefix': `${scope.redisPrefix}-${name}`, 'wallet.paperKeyFile': keyFile, 'policy.simulation.enabled': simulation },
  });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0 });
  const metrics = new Metrics({ defaults: false });
  const executor = await daemonExecutor({ config, scope, client, rpcUrl: venue.rpcUrl, keyFile, metrics });
  try {
    const now = Date.now();
    // A trigger order adds risk: the risk gate values it against a fresh positions snapshot (none open).
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: now, wallet, positions: [] });
    const intent = { type: 'trigger-create', key: `trigger:${name}`, reason: 'buy SOL low', notionalUsd: '100000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '100000000', takingAmount: '1000000000' };
    const job = actionJobSchema.parse({ actionId: actionIdFor('wired', intent.key, now), strategy: 'wired', intent, decidedAtMs: now, window: now, trigger: { kind: 'positions', key: 'wired', tickMs: now, receivedAtMs: now } });
    await executor.accept(job);
    const final = await executor.drive(job.actionId);
    const refused = (await metrics.policySimulations.get()).values.find((v) => v.labels.outcome === 'refused')?.value ?? 0;
    return { state: final?.state ?? 'none', reason: final?.reason, refused };
  } finally {
    await client.close();
  }
}

describe("the daemon's executor runs the simulation check", () => {
  it('refuses a build whose simulated effect moves USDC out of the wallet; signs it with the check off', async () => {
    venue.applyFaults({ simulatedOutflow: { mint: MINTS.USDC, amount: '3000000' } });
    try {
      expect(await runTriggerCreate(true, 'on')).toMatchObject({ state: 'rejected', reason: 'policy:simulation_delta', refused: 1 });
      expect(await runTriggerCreate(false, 'off')).toMatchObject({ state: 'landed', refused: 0 });
    } finally {
      venue.applyFaults({ simulatedOutflow: null });
    }
  });
});
