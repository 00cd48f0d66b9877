import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { balanceRecorder } from '../../src/daemon/balance-recording.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { walletBalanceReader } from '../../src/ops/wallet-balances.ts';
import { readRecording, RecordingWriter } from '../../src/records/recording.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { VenueControl } from '../support/venue-control.ts';

// `stratd run --record` writes the wallet's balances at the start and again only when they change.
describe('the balances line of a recording', () => {
  it('is written on the first look and on a change, not on a look that finds them unchanged', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stratd-balance-recording-'));
    const venue = await startVenue({ seed: 3, clock: { startMs: 1_800_000_000_000, speed: 0 }, volatility: 0, tickMs: 0 });
    try {
      const wallet = Keypair.generate().publicKey.toBase58();
      const control = new VenueControl(venue.apiUrl);
      await control.fund({ wallet, sol: '2000000000' });
      const path = join(dir, 'run.jsonl');
      const writer = await RecordingWriter.open(path, 'balance-recording-test');
      const recorder = balanceRecorder({ read: walletBalanceReader(new Connection(venue.rpcUrl), wallet, { ttlMs: 0 }), writer, wallet, logger: silentLogger });
      const look = async () => {
        recorder.check();
        await recorder.settled();
      };
      await look();
      await look();
      await control.fund({ wallet, sol: '500000000' });
      await look();
      await look();
      await writer.close();
      const { balances } = await readRecording(path);
      expect(balances.map((b) => b.lamports)).toEqual(['2000000000', '2500000000']);
    } finally {
      await venue.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
