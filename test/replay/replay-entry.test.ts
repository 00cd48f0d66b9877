import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordingError, ReplayConfigError, replayRecording, type ReplayEvent } from 'stratd/replay';
import { samples } from 'stratd/testing';
import { RecordingWriter } from '../../src/records/recording.ts';
import { replay } from '../../src/replay/replay.ts';
import trailing from '../../strategies/trailing-stop/index.ts';

const USD = 1_000_000n;
const SL = samples.SAMPLE_TPSL;
const at = (mark: bigint, stop: bigint, tick: number) => samples.positions([samples.position({ markPriceUsd: mark * USD, liquidationPriceUsd: 100n * USD, tpsl: [{ pubkey: SL, type: 'sl', triggerPriceUsd: stop * USD }] })], samples.SAMPLE_TICK + tick);
const dir = mkdtempSync(join(tmpdir(), 'stratd-replay-entry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stratd/replay', () => {
  const snapshots = [at(150n, 130n, 0), at(160n, 130n, 5_000), at(155n, 130n, 10_000), at(170n, 130n, 15_000)];

  it('replays a recording file as `stratd replay` does: the same events as the replay core, byte for byte', async () => {
    const file = join(dir, 'day.jsonl');
    const writer = await RecordingWriter.open(file, 'stratd test', samples.SAMPLE_TICK);
    for (const s of snapshots) await writer.write(s);
    await writer.close();
    const seen: ReplayEvent[] = [];
    const events = await replayRecording(file, [{ strategy: trailing, config: { trailBps: 500 } }], { onEvent: (e) => seen.push(e) });
    expect(events.map((e) => ('intent' in e && e.intent.type === 'tpsl-update' ? e.intent.triggerPrice : e))).toEqual(['142500000', '152000000', '161500000']);
    expect(seen).toEqual(events);
    const core = await replay({ snapshots, strategies: [{ strategy: trailing, config: trailing.config.parse({ trailBps: 500 }), file: 'x' }], timeoutMs: 5_000 });
    expect(JSON.stringify(events)).toBe(JSON.stringify(core));
  });

  it('takes snapshots in memory and a bare strategy (default settings)', async () => {
    const events = await replayRecording(snapshots, [trailing]);
    expect(events.length).toBeGreaterThan(0);
  });

  it('refuses invalid settings and an invalid snapshot, naming them', async () => {
    await expect(replayRecording(snapshots, [{ strategy: trailing, config: { trailBps: 0 } }])).rejects.toThrow(ReplayConfigError);
    await expect(replayRecording(snapshots, [{ strategy: trailing, config: { trailBps: 0 } }])).rejects.toThrow(/trailBps/);
    await expect(replayRecording([{ ...snapshots[0]!, tickMs: -1 }], [trailing])).rejects.toThrow(RecordingError);
    await expect(replayRecording([{ ...snapshots[0]!, tickMs: -1 }], [trailing])).rejects.toThrow(/snapshot 0: .*tickMs/);
  });
});
