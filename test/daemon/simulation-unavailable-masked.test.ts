// The daemon's executor (assembleExecutor, as `stratd run` composes it) with
// policy.simulation.onUnavailable = alert signs when the RPC cannot simulate, and raises the
// simulation_unavailable alert with the transport's message. A provider's node puts its API key in
// the URL's path or query and its error text may echo it: the log line and the notification carry
// the message with those parts masked. The RPC here is a real relay in front of the venue's node
// that answers simulateTransaction with an error echoing the URL it was reached on.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Keypair } from '@solana/web3.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { writeKeyFile } from '../../src/chain/signer.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { NotifyEventInput } from '../../src/kernel/notify-event.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { actionIdFor, actionJobSchema } from '../../src/records/action.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { daemonExecutor } from '../support/daemon-executor.ts';
import { redisScope } from '../support/redis-scope.ts';

const PATH_SECRET = 'pathsecret-Q7r2Kx9LmN4p';
const QUERY_SECRET = 'querysecret-Zt5Vb8Hc3Wd1';
const scope = redisScope(`simulation-unavailable-masked-${process.pid}`);
let venue: Venue;
let relay: Server;
let rpcUrl: string;
let dir: string;

/** Forwards every JSON-RPC call to the venue's node but simulateTransaction, answered with an error that echoes the URL. */
function startRelay(target: string): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const call = JSON.parse(body) as { id: unknown; method?: string };
      if (call.method === 'simulateTransaction') {
        const reached = `http://${req.headers.host ?? ''}${req.url ?? ''}`;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32603, message: `upstream ${reached} overloaded (key ${QUERY_SECRET}, route ${req.url ?? ''})` } }));
        return;
      }
      void fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        async (answer) => {
          res.statusCode = answer.status;
          res.setHeader('content-type', 'application/json');
          res.end(await answer.text());
        },
        (error: unknown) => {
          res.statusCode = 502;
          res.end(String(error));
        },
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  venue = await startVenue({ seed: 7, clock: { speed: 1 }, volatility: 0 });
  relay = await startRelay(venue.rpcUrl);
  rpcUrl = `http://127.0.0.1:${String((relay.address() as AddressInfo).port)}/v2/${PATH_SECRET}?api-key=${QUERY_SECRET}`;
  dir = await mkdtemp(join(tmpdir(), 'stratd-simulation-masked-'));
});
afterAll(async () => {
  relay.closeAllConnections();
  await new Promise<void>((resolve) => relay.close(() => resolve()));
  await venue.close();
  await rm(dir, { recursive: true, force: true });
  await scope.clean();
  await scope.close();
});

describe('simulation_unavailable alert', () => {
  it('signs unchecked and alerts with the RPC URL\'s path and query masked in the log line and the notification', async () => {
    const keypair = Keypair.generate();
    const keyFile = join(dir, 'key.json');
    await writeKeyFile(keyFile, keypair);
    const wallet = keypair.publicKey.toBase58();
    const funded = await fetch(`${venue.apiUrl}/__venue/fund`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ wallet, sol: '10000000000', usdc: '1000000000' }) });
    expect(funded.status).toBe(200);
    const { config } = loadConfig({
      env: {},
      overrides: { mode: 'paper', 'api.baseUrl': venue.apiUrl, 'rpc.url': rpcUrl, 'redis.url': process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'redis.prefix': scope.redisPrefix, 'wallet.paperKeyFile': keyFile, 'policy.simulation.onUnavailable': 'alert' },
    });
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString('utf8')), done()) }));
    const events: NotifyEventInput[] = [];
    const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0 });
    const executor = await daemonExecutor({ config, scope, client, rpcUrl, keyFile, metrics: new Metrics({ defaults: false }), logger, notifier: { notify: async (event) => void events.push(event) } });
    try {
      const now = Date.now();
      await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: now, wallet, positions: [] });
      const intent = { type: 'trigger-create', key: 'trigger:masked', reason: 'buy SOL low', notionalUsd: '100000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '100000000', takingAmount: '1000000000' };
      const job = actionJobSchema.parse({ actionId: actionIdFor('masked', intent.key, now), strategy: 'masked', intent, decidedAtMs: now, window: now, trigger: { kind: 'positions', key: 'masked', tickMs: now, receivedAtMs: now } });
      await executor.accept(job);
      expect(await executor.drive(job.actionId)).toMatchObject({ state: 'landed' });
    } finally {
      await client.close();
    }
    const alert = events.find((e) => e.kind === 'simulation_unavailable');
    const logged = lines.filter((l) => l.includes('signing without the simulation check'));
    expect(alert?.text).toContain('simulateTransaction: upstream http://127.0.0.1');
    expect(logged).toHaveLength(1);
    for (const text of [alert?.text ?? '', ...logged]) {
      expect(text).toContain('[redacted]');
      expect(text).not.toContain(PATH_SECRET);
      expect(text).not.toContain(QUERY_SECRET);
    }
  });
});
