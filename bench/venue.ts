// Requests per second of the simulated venue over loopback: pool-info (a read) and a decrease
// build (a write that quotes, builds and registers a real transaction). An autocannon-like loop:
// N concurrent connections through an undici Pool, bounded by a request count and a time limit.
//
//   node bin/run-ts.js bench/venue.ts [--connections 32] [--requests 20000] [--seconds 10]
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Keypair } from '@solana/web3.js';
import { Pool } from 'undici';
import { MINTS } from '../src/api/mints.ts';
import { startVenue } from '../src/venue/venue.ts';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '32' },
    requests: { type: 'string', default: '20000' },
    seconds: { type: 'string', default: '10' },
  },
});
const connections = Number(values.connections);
const maxRequests = Number(values.requests);
const maxMs = Number(values.seconds) * 1000;

interface Figures {
  readonly name: string;
  readonly requests: number;
  readonly errors: number;
  readonly seconds: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
}

async function load(name: string, pool: Pool, make: () => { method: 'GET' | 'POST'; path: string; body?: string }): Promise<Figures> {
  const latencies: number[] = [];
  let sent = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + maxMs;
  const worker = async () => {
    while (sent < maxRequests && performance.now() < deadline) {
      sent++;
      const req = make();
      const t0 = performance.now();
      const res = await pool.request({ method: req.method, path: req.path, body: req.body, headers: req.body ? { 'content-type': 'application/json' } : {} });
      await res.body.text();
      latencies.push(performance.now() - t0);
      if (res.statusCode !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { name, requests: latencies.length, errors, seconds, rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

const venue = await startVenue({ seed: 1, tickMs: 250 });
const pool = new Pool(venue.apiUrl, { connections, pipelining: 1 });
try {
  const wallet = Keypair.generate().publicKey.toBase58();
  const fund = await pool.request({
    method: 'POST',
    path: '/__venue/fund',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wallet, sol: '1000000000000', positions: [{ market: 'SOL', side: 'long', leverage: '5', collateralUsd: '1000000000' }] }),
  });
  const funded = (await fund.body.json()) as { positions: { positionPubkey: string }[] };
  const positionPubkey = funded.positions[0]?.positionPubkey as string;

  // Warm up the JIT and the connections.
  await load('warm-up', pool, () => ({ method: 'GET', path: `/perps/v1/pool-info?mint=${MINTS.SOL}` }));
  const results = [
    await load('GET /perps/v1/pool-info', pool, () => ({ method: 'GET', path: `/perps/v1/pool-info?mint=${MINTS.SOL}` })),
    await load('POST /perps/v1/positions/decrease (build)', pool, () => ({
      method: 'POST',
      path: '/perps/v1/positions/decrease',
      body: JSON.stringify({ positionPubkey, receiveToken: 'USDC', sizeUsdDelta: '10000000' }),
    })),
  ];
  console.log(`venue over loopback: ${String(connections)} connections, at most ${String(maxRequests)} requests or ${String(maxMs / 1000)} s per run`);
  for (const r of results) {
    console.log(
      `${r.name.padEnd(44)} ${r.rps.toFixed(0).padStart(7)} req/s  ${String(r.requests).padStart(6)} requests in ${r.seconds.toFixed(2)} s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${String(r.errors)}`,
    );
  }
  if (results.some((r) => r.errors > 0)) process.exitCode = 1;
} finally {
  await pool.close();
  await venue.close();
}
