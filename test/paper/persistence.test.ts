import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startPaperPersistence, type PaperPersistence } from '../../src/paper/state-file.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { waitUntil } from '../support/wait-until.ts';

// The paper state is written when the venue changes — a burst of changes in one write, nothing
// while nothing changes — not on a timer, and atomically (no temporary file left, owner-only).

const DELAY_MS = 100;
let dir: string;
let venue: Venue;
let persistence: PaperPersistence | undefined;
const wallet = Keypair.generate().publicKey.toBase58();
const path = () => join(dir, 'venue', 'state.json');
const savedLamports = async () => (JSON.parse(await readFile(path(), 'utf8')) as { venue: { chain: { lamports: Record<string, string> } } }).venue.chain.lamports[wallet];
const quiet = (ms: number) => sleep(ms);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratd-paper-persist-'));
  venue = await startVenue({ seed: 5, tickMs: 0 });
});
afterEach(async () => {
  await persistence?.stop();
  persistence = undefined;
  await venue.close();
  await rm(dir, { recursive: true, force: true });
});

describe('paper state persistence', () => {
  it('writes once at start, once per burst of changes, never while nothing changes, and on stop', async () => {
    persistence = await startPaperPersistence({ venue, wallet, path: path(), delayMs: DELAY_MS, logger: silentLogger });
    expect(persistence.writes).toBe(1);
    for (let i = 0; i < 50; i++) venue.chain.credit(wallet, 1_000n);
    expect(persistence.writes).toBe(1);
    await waitUntil(() => (persistence!.writes === 2 ? true : undefined), { what: 'the burst written', timeoutMs: 5_000 });
    expect(await savedLamports()).toBe('50000');
    // Price steps alone are not a change worth a write.
    venue.advance(5_000);
    await quiet(DELAY_MS * 4);
    expect(persistence.writes).toBe(2);

    venue.chain.credit(wallet, 1n);
    await persistence.stop();
    persistence = undefined;
    expect(await savedLamports()).toBe('50001');
    expect(await readdir(join(dir, 'venue'))).toEqual(['state.json']);
    expect((await stat(path())).mode & 0o777).toBe(0o600);
  });
});
