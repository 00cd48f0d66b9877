import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { runCli } from '../support/cli.ts';

describe('stratd venue', () => {
  it('--help explains every option', async () => {
    const result = await runCli(['venue', '--help']);
    expect(result.code).toBe(0);
    for (const option of ['--port', '--rpc-port', '--seed', '--speed', '--volatility', '--price-file', '--keeper-delay-ms', '--max-request-execution-sec', '--rate-limit', '--faults', '--api-key']) {
      expect(result.stdout).toContain(option);
    }
  });

  it('refuses a bad option value with the usage exit code', async () => {
    const result = await runCli(['venue', '--seed', 'many']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--seed');
  });

  it('starts on free ports, serves the API and the RPC, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/stratd.js', 'venue', '--port', '0', '--rpc-port', '0', '--seed', '3', '--log-level', 'silent'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', () => reject(new Error('venue exited before printing its URLs')));
      });
      const { apiUrl, rpcUrl } = JSON.parse(first) as { apiUrl: string; rpcUrl: string };
      const client = new ApiClient({ baseUrl: apiUrl, retries: 0 });
      expect((await client.call('perps.poolInfo', { mint: MINTS.BTC })).maxRequestExecutionSec).toBe('45');
      await client.close();
      const rpc = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }) });
      expect(((await rpc.json()) as { result: number }).result).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
