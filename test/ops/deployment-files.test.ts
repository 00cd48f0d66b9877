import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Keypair } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startOpsServer } from '../../src/ops/http-server.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { Watchdog } from '../../src/kernel/watchdog.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { redisScope } from '../support/redis-scope.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const scope = redisScope('ops-deployment-files');

afterAll(async () => {
  await scope.clean();
  await scope.close();
});

/** The HEALTHCHECK's exec form, as Docker runs it. */
async function healthcheckCommand(): Promise<string[]> {
  const dockerfile = (await readFile(join(ROOT, 'Dockerfile'), 'utf8')).replace(/\\\n\s*/g, ' ');
  const line = /^HEALTHCHECK .*?CMD (\[.*\])\s*$/m.exec(dockerfile);
  expect(line, 'Dockerfile has a HEALTHCHECK in exec form').not.toBeNull();
  return z.array(z.string()).min(1).parse(JSON.parse(line![1]!));
}

async function runHealthcheck(port: number): Promise<number> {
  const [command, ...args] = await healthcheckCommand();
  expect(command).toBe('node');
  return run(process.execPath, args, { env: { ...process.env, STRATD_OPS_PORT: String(port) }, timeout: 15_000 }).then(
    () => 0,
    (error: { code?: number }) => error.code ?? -1,
  );
}

describe('deployment files', () => {
  it("the image's HEALTHCHECK passes on a healthy ops server and fails on a stuck loop or no server", async () => {
    let now = Date.now();
    const watchdog = new Watchdog(() => now);
    const ops = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      controlToken: '',
      redis: scope.redis,
      prefix: scope.prefix,
      identity: { mode: 'paper', wallet: Keypair.generate().publicKey.toBase58(), roles: ['pollers'] },
      ledger: new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 100 }),
      metrics: new Metrics({ defaults: false }),
      watchdog,
      logger: silentLogger,
      now: () => now,
    });
    try {
      watchdog.register('poller:positions', 1_000);
      watchdog.beat('poller:positions');
      expect(await runHealthcheck(ops.port)).toBe(0);
      now += 10_000;
      expect(await runHealthcheck(ops.port)).toBe(1);
    } finally {
      await ops.close();
    }
    expect(await runHealthcheck(ops.port)).toBe(1);
  });

  it('npm start, pm2 and the image start the daemon with the same Node flags (bin/node-flags.js)', async () => {
    const { NODE_FLAGS } = await import('../../bin/node-flags.js');
    expect(NODE_FLAGS.length).toBeGreaterThan(0);
    const pkg = z.object({ scripts: z.object({ start: z.string() }) }).parse(JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')));
    expect(pkg.scripts.start).toBe(`node ${NODE_FLAGS.join(' ')} bin/stratd.js run`);
    const { createRequire } = await import('node:module');
    const ecosystem = createRequire(import.meta.url)(join(ROOT, 'ecosystem.config.cjs')) as { apps: Array<{ script: string; node_args?: string[] }> };
    expect(ecosystem.apps.map((a) => a.node_args)).toEqual(ecosystem.apps.map(() => NODE_FLAGS));
    const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
    const cmd = /^CMD (\[.*\])\s*$/m.exec(dockerfile);
    expect(z.array(z.string()).parse(JSON.parse(cmd![1]!))).toEqual(['node', ...NODE_FLAGS, 'bin/stratd.js', 'run']);
  });

  it('.dockerignore keeps the paper wallet, secrets, dependencies, git and outputs out of the build context', async () => {
    const ignored = (await readFile(join(ROOT, '.dockerignore'), 'utf8')).split('\n').map((l) => l.trim());
    for (const entry of ['var/', 'secrets/', '.env', 'node_modules/', '.git/', 'test-output/', 'bench/results/']) expect(ignored).toContain(entry);
  });

  it('compose gives Redis an explicit maxmemory with noeviction and the live key only as a secret', async () => {
    const compose = await readFile(join(ROOT, 'compose.yaml'), 'utf8');
    expect(compose).toMatch(/- --maxmemory\n\s+- \$\{STRATD_REDIS_MAXMEMORY:-\d+[mg]b\}/);
    expect(compose).toMatch(/- --maxmemory-policy\n\s+- noeviction/);
    const live = await readFile(join(ROOT, 'compose.live.yaml'), 'utf8');
    expect(live).toContain('STRATD_WALLET_KEY_FILE: /run/secrets/wallet_key');
    expect(live).toMatch(/secrets:\n\s+wallet_key:\n\s+file: /);
    expect(live).not.toMatch(/STRATD_WALLET_KEY:/);
  });
});
