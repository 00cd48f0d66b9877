/**
 * One decision at a time per strategy in this process. Snapshots are handed to the strategy
 * worker as their replies arrive (not through the queue's concurrency), so two of one tick (SOL's
 * and ETH's market stats) would run one strategy twice at once: both read the same state and
 * intents in flight before either claims its own, and a strategy held to one position opened two.
 * A decision takes the turn of every strategy it runs, all at once, and waits for those taken
 * before it; no cycle can form, since turns are queued in the order decisions ask for them.
 */
export class StrategyTurns {
  /** Per strategy, the end of the last decision that took its turn. */
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(strategies: readonly string[], decide: () => Promise<T>): Promise<T> {
    const names = [...new Set(strategies)];
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const before = names.map((name) => this.#tails.get(name));
    for (const name of names) this.#tails.set(name, done);
    try {
      await Promise.all(before);
      return await decide();
    } finally {
      release();
      for (const name of names) if (this.#tails.get(name) === done) this.#tails.delete(name);
    }
  }
}
