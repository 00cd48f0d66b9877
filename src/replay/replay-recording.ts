/**
 * `stratd/replay`: replays a recording in an author's own tests — what `stratd replay` does, with
 * the strategies and settings given in code instead of the configuration. The same decision code
 * as the strategy worker (decideOne), the recorded clock, state carried in memory as if every
 * action landed; nothing is executed. The same recording and settings give the same events.
 *
 *   import { replayRecording } from 'stratd/replay';
 *   import strategy from '../strategies/my-stop/index.ts';
 *
 *   const events = await replayRecording('test/fixtures/tuesday.jsonl', [{ strategy, config: { trailBps: 300 } }]);
 *   expect(events.filter((e) => 'intent' in e).map((e) => e.intent.type)).toEqual(['tpsl-update']);
 */
import { describeIssues, fieldIssues } from '../api/issues.ts';
import { readRecording, RecordingError } from '../records/recording.ts';
import { isStrategy, type Strategy } from '../sdk/define.ts';
import { snapshotSchema, type Snapshot } from '../sdk/snapshot.ts';
import { replay, type ReplayEvent } from './replay.ts';

export type { ReplayEvent } from './replay.ts';
export { RecordingError } from '../records/recording.ts';

/** A strategy and its settings (strategies.settings.<name>; default {}). */
export interface ReplayStrategy {
  readonly strategy: Strategy;
  readonly config?: unknown;
}

export interface ReplayRecordingOptions {
  /** Longest one decision may take (default 5000 ms, the daemon's default). */
  readonly timeoutMs?: number;
  /** Told of every event as it comes. */
  readonly onEvent?: (event: ReplayEvent) => void;
}

/** A strategy's settings do not parse with its own schema. */
export class ReplayConfigError extends Error {
  override readonly name = 'ReplayConfigError';
  readonly kind = 'invalid_config' as const;
}

/**
 * Runs `strategies` over a recording — a file `stratd record` wrote, or its snapshots — and answers
 * the events `stratd replay` prints: one per intent (with its action id) and one per failed
 * decision, in order. Throws RecordingError for an unreadable recording (naming the line and
 * field), ReplayConfigError for invalid settings.
 */
export async function replayRecording(recording: string | readonly unknown[], strategies: readonly (Strategy | ReplayStrategy)[], options: ReplayRecordingOptions = {}): Promise<ReplayEvent[]> {
  const loaded = strategies.map((entry) => {
    const { strategy, config } = isStrategy(entry) ? { strategy: entry, config: undefined } : entry;
    const parsed = strategy.config.safeParse(config ?? {});
    if (!parsed.success) throw new ReplayConfigError(`settings of ${strategy.name}: ${describeIssues(fieldIssues(parsed.error))}`);
    return { strategy, config: parsed.data, file: `${strategy.name} (replay)` };
  });
  const snapshots = typeof recording === 'string' ? (await readRecording(recording)).snapshots : recording.map(checkedSnapshot);
  return replay({ snapshots, strategies: loaded, timeoutMs: options.timeoutMs ?? 5_000, ...(options.onEvent ? { onEvent: options.onEvent } : {}) });
}

function checkedSnapshot(value: unknown, index: number): Snapshot {
  const parsed = snapshotSchema.safeParse(value);
  if (!parsed.success) throw new RecordingError('unreadable_recording', `snapshot ${index}: ${describeIssues(fieldIssues(parsed.error))}`);
  return parsed.data;
}
