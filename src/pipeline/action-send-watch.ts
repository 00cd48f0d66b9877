import { isFinalRecord, type ActionRecord } from '../records/action-record.ts';

/**
 * Which of this process's actions were sent (reached `submitted`) or ended, told by the executor's
 * transitions, so that the pollers' positions-first order (pollers/positions-first.ts) can let the
 * other sources read once the positions' decisions are on their way. Only a scheduling hint: a wait
 * here is always bounded by its caller, and an action this process never drives is simply waited
 * out.
 */
export class ActionSendWatch {
  /** Actions seen sent or ended, oldest first (bounded: a wait for a forgotten one is only waited out). */
  readonly #gone = new Set<string>();
  readonly #waiters = new Map<string, Array<() => void>>();

  /** Every transition of this process's executor. */
  observe(record: Pick<ActionRecord, 'actionId' | 'state' | 'dryRun'>): void {
    if (record.state !== 'submitted' && !isFinalRecord(record)) return;
    if (this.#gone.size >= REMEMBERED) this.#gone.delete(this.#gone.values().next().value!);
    this.#gone.add(record.actionId);
    const waiting = this.#waiters.get(record.actionId);
    if (!waiting) return;
    this.#waiters.delete(record.actionId);
    for (const resolve of waiting) resolve();
  }

  /** Resolves once every one of `actionIds` was sent or ended, or after `maxWaitMs`. */
  async untilSent(actionIds: readonly string[], maxWaitMs: number): Promise<void> {
    const pending = actionIds.filter((id) => !this.#gone.has(id));
    if (pending.length === 0 || maxWaitMs <= 0) return;
    const resolvers: Array<[string, () => void]> = [];
    const all = Promise.all(
      pending.map(
        (id) =>
          new Promise<void>((resolve) => {
            resolvers.push([id, resolve]);
            const list = this.#waiters.get(id);
            if (list) list.push(resolve);
            else this.#waiters.set(id, [resolve]);
          }),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, maxWaitMs)))]);
    clearTimeout(timer);
    // Waiters of actions that did not go in time are dropped: nothing is kept for them.
    for (const [id, resolve] of resolvers) {
      const list = this.#waiters.get(id);
      if (!list) continue;
      const rest = list.filter((r) => r !== resolve);
      if (rest.length === 0) this.#waiters.delete(id);
      else this.#waiters.set(id, rest);
    }
  }

  /** Actions with a waiter (tests: none are left behind). */
  get waiting(): number {
    return this.#waiters.size;
  }
}

const REMEMBERED = 10_000;
