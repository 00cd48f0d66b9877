// Preflight: live and dry-run refuse to start, within seconds, against an unreachable API, the
// wrong cluster or an empty wallet, naming the host and the fix; `stratd doctor` runs the same
// checks on demand. Real processes against the venue's real HTTP and JSON-RPC servers.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { runPreflight } from '../../src/ops/preflight.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { runCli } from '../support/cli.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueControl } from '../support/venue-control.ts';

const scope = redisScope('ops-preflight');
let dir = '';
let venue: Venue;
let genesisHash = '';
let unreachablePort = 0;
const funded = Keypair.generate();
const empty = Keypair.generate();

async function writeKeyFile(name: string, keypair: Keypair): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(Array.from(keypair.secretKey)), { mode: 0o600 });
  return path;
}

/** A port nothing listens on: bound once by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Live/dry-run settings against the venue; later --set entries win. */
function args(o: { mode: 'live' | 'dry-run'; keyFile: string; apiBaseUrl?: string; rpcUrl?: string; genesisHash?: string }): string[] {
  const set = {
    mode: o.mode,
    'api.key': 'test-api-key',
    'api.baseUrl': o.apiBaseUrl ?? venue.apiUrl,
    'rpc.url': o.rpcUrl ?? venue.rpcUrl,
    'wallet.keyFile': o.keyFile,
    'preflight.genesisHash': o.genesisHash ?? genesisHash,
    'redis.url': redisUrlFromEnv(),
    'redis.prefix': scope.redisPrefix,
    'ops.port': 0,
    'log.level': 'silent',
  };
  return Object.entries(set).flatMap(([k, v]) => ['--set', `${k}=${String(v)}`]);
}

const doctorJson = z.object({
  mode: z.string(),
  ok: z.boolean(),
  checks: z.array(z.object({ check: z.string(), ok: z.boolean(), host: z.string(), detail: z.string(), fix: z.string().optional() })),
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratd-preflight-'));
  venue = await startVenue({ seed: 29, clock: { speed: 1 } });
  await new VenueControl(venue.apiUrl).fund({ wallet: funded.publicKey.toBase58(), sol: '1000000000' });
  const reply = await fetch(venue.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getGenesisHash' }) });
  genesisHash = z.object({ result: z.string() }).parse(await reply.json()).result;
  unreachablePort = await closedPort();
});

afterAll(async () => {
  await venue?.close();
  await rm(dir, { recursive: true, force: true });
  await scope.clean();
  await scope.close();
});

describe('preflight at start (stratd run, live and dry-run)', () => {
  it('dry-run against an unreachable API exits non-zero, naming the host and the fix', async () => {
    const keyFile = await writeKeyFile('funded.json', funded);
    const apiBaseUrl = `http://127.0.0.1:${unreachablePort}`;
    // Without a preflight the daemon starts and retries for ever: runCli kills it at its deadline.
    const result = await runCli(['run', ...args({ mode: 'dry-run', keyFile, apiBaseUrl })], { timeoutMs: 15_000 });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain(`127.0.0.1:${unreachablePort}`);
    expect(result.stderr).toContain('fix: check api.baseUrl');
    expect(result.stderr).not.toContain('test-api-key');
  }, 30_000);

  it('live against the venue with another expected genesis hash names the cluster mismatch', async () => {
    const keyFile = await writeKeyFile('funded.json', funded);
    const result = await runCli(['run', ...args({ mode: 'live', keyFile, genesisHash: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d' })], { timeoutMs: 15_000 });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain('cluster mismatch');
    expect(result.stderr).toContain('expected mainnet-beta');
    expect(result.stderr).toContain(genesisHash);
    expect(result.stderr).toContain('fix: point rpc.url at an RPC of mainnet-beta');
  }, 30_000);
});

describe('stratd doctor', () => {
  it('against a healthy venue: every check passes, exit 0', async () => {
    const keyFile = await writeKeyFile('funded.json', funded);
    const text = await runCli(['doctor', ...args({ mode: 'live', keyFile })]);
    expect(text.code, text.stdout + text.stderr).toBe(0);
    for (const check of ['api', 'rpc', 'cluster', 'fee-balance', 'clock']) expect(text.stdout).toMatch(new RegExp(`^ok +${check} `, 'm'));
    expect(text.stdout).toContain('all checks passed');

    const json = await runCli(['doctor', '--json', ...args({ mode: 'dry-run', keyFile })]);
    expect(json.code, json.stderr).toBe(0);
    const report = doctorJson.parse(JSON.parse(json.stdout));
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => [c.check, c.ok])).toEqual([['api', true], ['rpc', true], ['cluster', true], ['fee-balance', true], ['clock', true]]);
  }, 30_000);

  it('an empty wallet and a refused key fail their checks with a fix each, exit 1', async () => {
    const keyFile = await writeKeyFile('empty.json', empty);
    const control = new VenueControl(venue.apiUrl);
    await control.faults({ apiKeys: ['another-key'] });
    try {
      const result = await runCli(['doctor', '--json', ...args({ mode: 'live', keyFile })]);
      expect(result.code, result.stderr).toBe(1);
      const report = doctorJson.parse(JSON.parse(result.stdout));
      const byName = Object.fromEntries(report.checks.map((c) => [c.check, c]));
      expect(byName.api).toMatchObject({ ok: false, detail: 'the API refused the key (HTTP 401)' });
      expect(byName.api?.fix).toContain('api.key');
      expect(byName['fee-balance']).toMatchObject({ ok: false });
      expect(byName['fee-balance']?.detail).toContain(`wallet ${empty.publicKey.toBase58()} holds 0 SOL, less than the 0.01 SOL needed for fees`);
      expect(byName['fee-balance']?.fix).toContain(`send at least 0.01 SOL to ${empty.publicKey.toBase58()}`);
      expect(byName.cluster?.ok).toBe(true);
      expect(result.stdout).not.toContain('test-api-key');
    } finally {
      // Clearing the fault plan keeps the key list: any key is accepted again only with null.
      await control.faults({ apiKeys: null });
      await control.clearFaults();
    }
  }, 30_000);

  it('an unreachable RPC fails rpc, cluster and fee-balance with the rpc.url fix; the clock is read from the API', async () => {
    const keyFile = await writeKeyFile('funded.json', funded);
    const rpcUrl = `http://127.0.0.1:${unreachablePort}`;
    const result = await runCli(['doctor', ...args({ mode: 'dry-run', keyFile, rpcUrl })]);
    expect(result.code, result.stderr).toBe(1);
    for (const check of ['rpc', 'cluster', 'fee-balance']) expect(result.stdout).toMatch(new RegExp(`^FAIL +${check} +http://127\\.0\\.0\\.1:${unreachablePort}/: `, 'm'));
    expect(result.stdout).toContain('fix: check rpc.url (STRATD_RPC_URL)');
    expect(result.stdout).toMatch(/^ok +api /m);
    expect(result.stdout).toMatch(/^ok +clock /m);
  }, 30_000);

  it('paper mode has nothing to check and says so', async () => {
    const result = await runCli(['doctor', '--set', 'mode=paper']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('paper mode');
  });
});

describe('clock check', () => {
  it('a local clock a minute ahead of the hosts fails, naming how far and the fix', async () => {
    const options = { apiBaseUrl: venue.apiUrl, apiKey: 'test-api-key', rpcUrl: venue.rpcUrl, wallet: funded.publicKey.toBase58(), expectedGenesisHash: genesisHash, minLamports: 1n, maxClockSkewMs: 5_000, timeoutMs: 3_000 };
    const inTime = await runPreflight(options);
    expect(inTime.find((c) => c.check === 'clock')?.ok).toBe(true);
    const ahead = await runPreflight({ ...options, now: () => Date.now() + 60_000 });
    const clock = ahead.find((c) => c.check === 'clock');
    expect(clock?.ok).toBe(false);
    expect(clock?.detail).toMatch(/^local clock is (59|60)\d{3} ms ahead of the host's \(allowed 5000 ms\)$/);
    expect(clock?.fix).toContain('NTP');
  });
});

describe('timeouts', () => {
  it('an API that accepts the connection but never answers fails after preflight.timeoutMs', async () => {
    // Holds every connection open without a reply, as a black-holed host behind a proxy does.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const checks = await runPreflight({ apiBaseUrl: `http://127.0.0.1:${port}`, apiKey: 'test-api-key', rpcUrl: venue.rpcUrl, wallet: funded.publicKey.toBase58(), expectedGenesisHash: genesisHash, minLamports: 1n, maxClockSkewMs: 5_000, timeoutMs: 300 });
      expect(checks.find((c) => c.check === 'api')).toMatchObject({ ok: false, host: `http://127.0.0.1:${port}/`, detail: 'the API: no answer within 300 ms' });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
