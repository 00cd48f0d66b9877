// Issue 31: with caps of a few records, real actions through the executor against the venue leave
// Redis capped, and everything that left Redis is in the audit archive (nothing lost), where
// `stratd actions` reads it; an archive that cannot be written trims nothing and recovers.
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import type { NotifyEventInput } from '../../src/kernel/notify-event.ts';
import { takeLease } from '../../src/kernel/redis-lease.ts';
import { actionRecordKey, settledIndexKey } from '../../src/pipeline/executor/action-store.ts';
import { archiveLeaseKey, type ArchivePass, AuditArchiver, type ArchiverBounds } from '../../src/pipeline/audit-archiver.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { archiveFamilyDir, archiveFiles, ArchiveWriter, readArchiveFile } from '../../src/records/audit-archive.ts';
import { outcomeMarkerKey } from '../../src/risk/risk-gate.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { runCli } from '../support/cli.ts';
import { redisScope } from '../support/redis-scope.ts';
import { type TestWallet, VenueExecutorHarness } from './venue-harness.ts';

const scope = redisScope(`redis-bounds-${process.pid}`);
const redis = scope.redis;
const prefix = scope.prefix;
const root = mkdtempSync(join(tmpdir(), 'stratd-redis-bounds-'));
const familyDir = archiveFamilyDir(root, prefix);
const events: NotifyEventInput[] = [];
const metrics = new Metrics({ defaults: false });
let h: VenueExecutorHarness;
let wallet: TestWallet;
let positionPubkey: string;
/** Every action and every ledger entry this test made, as Redis held them before any archiving. */
const actionIds: string[] = [];
const ledgerIds = new Set<string>();

const BOUNDS: ArchiverBounds = { settled: { maxRecords: 3, maxAgeMs: 86_400_000, minAgeMs: 0 }, ledgerMaxLen: 10, ledgerMaxAgeMs: 86_400_000 };

function archiver(bounds: ArchiverBounds = BOUNDS): AuditArchiver {
  // Files of ~2 KB: every action record (~4 KB) and every few ledger entries rotate them.
  const writer = new ArchiveWriter({ dir: familyDir, maxFileBytes: 2_000 });
  return new AuditArchiver({ redis, prefix, ledger: h.ledger, writer, bounds, everyMs: 60_000, logger: silentLogger, notifier: { notify: async (e) => void events.push(e) }, metrics, batch: 2 });
}

/** One pass of a fresh archiver (a process of its own), its files closed after. */
async function pass(bounds: ArchiverBounds = BOUNDS): Promise<ArchivePass> {
  const a = archiver(bounds);
  try {
    return await a.runOnce();
  } finally {
    await a.stop();
  }
}

async function runActions(n: number): Promise<void> {
  const executor = h.executor(wallet);
  for (let i = 0; i < n; i++) {
    const intent: Intent = { type: 'decrease', key: `trim:${String(actionIds.length)}`, reason: 'trim', notionalUsd: '1000000', positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '1000000' };
    const job = h.job(intent);
    actionIds.push(job.actionId);
    await executor.accept(job);
    expect(await executor.drive(job.actionId, h.signal)).toMatchObject({ state: 'landed', finalSettled: true });
  }
  for (const [id] of await redis.xrange(h.ledger.streamKey, '-', '+')) ledgerIds.add(id);
}

/** The ids of one kind's archive lines, across its .gz and plain files. */
async function archivedIds(kind: 'actions' | 'ledger'): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const file of await archiveFiles(familyDir, kind)) for (const line of await readArchiveFile(file)) ids.add(line.id);
  return ids;
}

async function expectNothingLost(): Promise<void> {
  const archivedActions = await archivedIds('actions');
  for (const id of actionIds) expect((await redis.exists(actionRecordKey(prefix, id))) === 1 || archivedActions.has(id), id).toBe(true);
  const inRedis = new Set((await redis.xrange(h.ledger.streamKey, '-', '+')).map(([id]) => id));
  const archivedLedger = await archivedIds('ledger');
  for (const id of ledgerIds) expect(inRedis.has(id) || archivedLedger.has(id), id).toBe(true);
}

beforeAll(async () => {
  await scope.clean();
  h = await VenueExecutorHarness.start(redis, prefix, { decreaseInstantShare: 1 });
  wallet = await h.fundedWallet();
  positionPubkey = (await h.positions(wallet)).map(positionView).find((v) => v?.marketMint === MINTS.SOL)!.positionPubkey;
  await runActions(6);
}, 60_000);
afterAll(async () => {
  await h.stop();
  await scope.clean();
  await scope.close();
  rmSync(root, { recursive: true, force: true });
});

describe('Redis bounded by count, the audit trail archived before it leaves', () => {
  it('a settled record younger than archive.minAgeMs stays, whatever the cap', async () => {
    const first = await pass({ ...BOUNDS, settled: { ...BOUNDS.settled, minAgeMs: 3_600_000 } });
    expect(first).toMatchObject({ ran: true, actions: 0, ledger: ledgerIds.size - 10 });
    expect(await redis.zcard(settledIndexKey(prefix))).toBe(6);
    // The ledger has no such minimum: it is capped already.
    expect(await redis.xlen(h.ledger.streamKey)).toBe(10);
  });

  it('caps the settled records and the ledger; every action id and ledger entry is in Redis or the archive; an unsettled action is untouched', async () => {
    // An unsettled action: accepted, never driven. Its record, open-set entry and intent lock stay.
    const executor = h.executor(wallet);
    const open = h.job({ type: 'decrease', key: 'trim:open', reason: 'trim', notionalUsd: '1000000', positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '1000000' });
    await executor.accept(open);
    actionIds.push(open.actionId);
    for (const [id] of await redis.xrange(h.ledger.streamKey, '-', '+')) ledgerIds.add(id);
    const signatures = new Map<string, string>();
    for (const id of actionIds.slice(0, 6)) {
      signatures.set(id, (await h.store.load(id))!.record.signature!);
      // The harness settles without the risk gate: its outcome marker, as the gate's booking leaves it.
      await redis.set(outcomeMarkerKey(prefix, id), '1', 'EX', 600);
    }

    const ledgerBefore = await redis.xlen(h.ledger.streamKey);
    expect(await pass()).toMatchObject({ ran: true, actions: 3, ledger: ledgerBefore - 10 });
    expect(await redis.zcard(settledIndexKey(prefix))).toBe(3);
    expect(await redis.xlen(h.ledger.streamKey)).toBe(10);
    await expectNothingLost();
    // The oldest three left with their outcome markers and signature claims; the newest three kept theirs.
    for (const [i, id] of actionIds.slice(0, 6).entries()) {
      const kept = i >= 3 ? 1 : 0;
      expect(await redis.exists(actionRecordKey(prefix, id)), id).toBe(kept);
      expect(await redis.exists(outcomeMarkerKey(prefix, id)), id).toBe(kept);
      expect(await redis.exists(`${prefix}sig:${signatures.get(id)!}`), id).toBe(kept);
    }
    expect((await h.store.load(open.actionId))?.record.state).toBe('accepted');
    expect(await h.store.openActionIds()).toContain(open.actionId);
    // Rotated by size, compressed when rotated.
    expect(readdirSync(familyDir).some((n) => /^actions-\d{4}-\d{2}-\d{2}\.\d+\.jsonl\.gz$/.test(n))).toBe(true);
    expect((await metrics.archived.get()).values.find((v) => v.labels.kind === 'actions')?.value).toBe(3);
  });

  it('stratd actions reads across Redis and the archive (.gz files too), newest last, each entry once, and says where each part came from', async () => {
    const env = { STRATD_REDIS_PREFIX: scope.redisPrefix, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', STRATD_ARCHIVE_DIR: root };
    const result = await runCli(['actions', '--all', '--json', '--limit', '1000'], { env });
    expect(result.code, result.stderr).toBe(0);
    const ids = result.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set([...ledgerIds]));
    expect(ids).toEqual([...ids].sort((a, b) => (BigInt(a.split('-')[0]!) === BigInt(b.split('-')[0]!) ? Number(a.split('-')[1]) - Number(b.split('-')[1]) : Number(BigInt(a.split('-')[0]!) - BigInt(b.split('-')[0]!)))));
    expect(readdirSync(familyDir).some((n) => /^ledger-.*\.jsonl\.gz$/.test(n))).toBe(true);
    const header = result.stderr.split('\n');
    expect(header[0]).toMatch(/^reading redis:\/\/.* prefix /);
    expect(header[1]).toContain(`older entries (${String(ledgerIds.size - 10)}) from the archive ${familyDir}: ledger-`);
  });

  it('an unwritable archive: alert, metric, nothing trimmed; recovers by itself when it can write again', async () => {
    await runActions(2);
    const settledBefore = await redis.zcard(settledIndexKey(prefix));
    const ledgerBefore = await redis.xlen(h.ledger.streamKey);
    expect(settledBefore).toBe(5);
    renameSync(familyDir, `${familyDir}.moved`);
    writeFileSync(familyDir, 'a file where the folder should be');
    const a = archiver();
    afterAll(() => a.stop());
    const failed = await a.runOnce();
    expect(failed.failure).toMatchObject({ kind: 'unwritable' });
    expect(await redis.zcard(settledIndexKey(prefix))).toBe(settledBefore);
    expect(await redis.xlen(h.ledger.streamKey)).toBe(ledgerBefore);
    expect(events.filter((e) => e.kind === 'archive_failed').map((e) => e.severity)).toEqual(['critical']);
    expect((await metrics.archiveWritable.get()).values[0]?.value).toBe(0);
    // Still failing: no second alert.
    await a.runOnce();
    expect(events.filter((e) => e.kind === 'archive_failed')).toHaveLength(1);

    rmSync(familyDir);
    renameSync(`${familyDir}.moved`, familyDir);
    const recovered = await a.runOnce();
    expect(recovered.failure).toBeUndefined();
    expect(events.filter((e) => e.kind === 'archive_failed').map((e) => e.severity)).toEqual(['critical', 'info']);
    expect((await metrics.archiveWritable.get()).values[0]?.value).toBe(1);
    expect(await redis.zcard(settledIndexKey(prefix))).toBe(3);
    expect(await redis.xlen(h.ledger.streamKey)).toBe(10);
    await expectNothingLost();
  });

  it('one process archives at a time: a pass while another holds the lease does nothing', async () => {
    expect(await takeLease(redis, archiveLeaseKey(prefix), 'another-process', 5_000)).toBe(true);
    await runActions(1);
    expect(await pass()).toEqual({ ran: false, actions: 0, ledger: 0 });
    expect(await redis.zcard(settledIndexKey(prefix))).toBe(4);
    await redis.del(archiveLeaseKey(prefix));
  });
});
