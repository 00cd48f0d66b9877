import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { actionRecordKey, settledIndexKey } from '../../src/pipeline/executor/action-store.ts';
import { archiveFamilyDir, archiveFiles, readArchiveFile } from '../../src/records/audit-archive.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { redisScope } from '../support/redis-scope.ts';
import { testDaemonOverrides } from '../support/test-daemon-config.ts';

/**
 * The daemon runs the archiver with the configured bounds and folder: a ledger and settled
 * records beyond small caps are archived and trimmed by a real `stratd run` process (in-process).
 */

const scope = redisScope(`archive-wired-${process.pid}`);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let varDir: string;
let daemon: Daemon | undefined;
const settledIds = Array.from({ length: 5 }, (_, i) => `act-archive-wired-${String(i)}`);

async function archivedIds(kind: 'actions' | 'ledger'): Promise<string[]> {
  const ids: string[] = [];
  for (const file of await archiveFiles(archiveFamilyDir(join(varDir, 'archive'), scope.prefix), kind)) ids.push(...(await readArchiveFile(file)).map((l) => l.id));
  return ids;
}

beforeAll(async () => {
  await scope.clean();
  varDir = await mkdtemp(join(tmpdir(), 'stratd-archive-wired-'));
  const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 5 });
  for (let i = 0; i < 20; i++) await ledger.append({ at: Date.now(), type: 'system', detail: { n: i } });
  // Settled an hour ago, as the executor's settled write leaves them.
  for (const [i, id] of settledIds.entries()) {
    await scope.redis.hset(actionRecordKey(scope.prefix, id), 'v', '9', 'json', JSON.stringify({ actionId: id, state: 'landed', finalSettled: true }));
    await scope.redis.zadd(settledIndexKey(scope.prefix), Date.now() - 3_600_000 + i, id);
  }
  const { config } = loadConfig({
    env: {},
    overrides: {
      ...testDaemonOverrides({ redisUrl, redisPrefix: scope.redisPrefix, paperKeyFile: join(varDir, 'paper-wallet.json') }),
      'ledger.maxLen': 5,
      'execution.maxSettledRecords': 2,
      'archive.everyMs': 50,
    },
  });
  daemon = await startDaemon({ config, roles: ['strategies'], logger: silentLogger, env: { REDIS_URL: redisUrl }, varDir });
}, 60_000);
afterAll(async () => {
  await daemon?.stop();
  await scope.clean();
  await scope.close();
  await rm(varDir, { recursive: true, force: true });
});

describe('the daemon archives what is beyond its bounds', () => {
  it('settled records beyond execution.maxSettledRecords and ledger entries beyond ledger.maxLen go to archive.dir, then leave Redis', async () => {
    await expect.poll(() => scope.redis.zcard(settledIndexKey(scope.prefix)), { timeout: 15_000, interval: 50 }).toBe(2);
    expect(await archivedIds('actions')).toEqual(settledIds.slice(0, 3));
    await expect.poll(() => scope.redis.xlen(`${scope.prefix}ledger`), { timeout: 15_000, interval: 50 }).toBeLessThanOrEqual(5);
    expect((await archivedIds('ledger')).length).toBeGreaterThanOrEqual(16);
  });
});
