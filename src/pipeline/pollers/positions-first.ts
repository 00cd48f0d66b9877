/**
 * Positions first. When the positions source and others are scheduled on the same slot (every
 * source every second, as a busy deployment polls), the other sources of that slot start their
 * reads only once the positions of that slot were read, decided on, and the actions decided were
 * sent — or after `maxWaitMs`, whichever comes first. Their replies (a 100 KB ranking list among
 * them) would otherwise be parsed, validated, stored and decided on in the same turns of the event
 * loop as the positions' protective actions, and every one of those actions would be sent at the
 * end of that burst instead of at its start. Measured (bench/daemon.ts --busy-only): the accept
 * stage of the busy daemon's decreases took 23 ms with every source read at once and 8 ms with
 * the positions read alone.
 *
 * Nothing waits for longer than `maxWaitMs` (a quarter of the source's interval at most, see
 * pollers.ts): a positions tick that never comes for this slot (skipped because the last one still
 * runs, failed, or decided nothing that will be sent) only delays the others by that bound. The
 * snapshots keep their slot's tick time: only the moment of the read moves.
 */
export class PositionsFirst {
  /** The positions window of each slot (tick time): resolved when its decisions were sent. */
  readonly #windows = new Map<number, Window>();

  /**
   * The positions tick of slot `tickMs` starts. Returns what to call when its decisions were sent
   * (or it gave up): the other sources of the slot then read. Call it exactly once.
   */
  begin(tickMs: number): () => void {
    const window = this.#window(tickMs);
    return () => window.open();
  }

  /** Another source of slot `tickMs` waits for that slot's positions, at most `maxWaitMs`. */
  async wait(tickMs: number, maxWaitMs: number): Promise<void> {
    if (maxWaitMs <= 0) return;
    const window = this.#window(tickMs);
    if (window.opened) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([window.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, maxWaitMs)))]);
    clearTimeout(timer);
    // The positions tick of this slot may never come: its window goes once no one waits on it.
    window.forgetAfter(maxWaitMs);
  }

  #window(tickMs: number): Window {
    let window = this.#windows.get(tickMs);
    if (!window) {
      window = new Window(() => {
        if (this.#windows.get(tickMs) === window) this.#windows.delete(tickMs);
      });
      this.#windows.set(tickMs, window);
    }
    return window;
  }
}

/** One slot's window: closed until its positions' decisions were sent. */
class Window {
  opened = false;
  readonly done: Promise<void>;
  #resolve!: () => void;
  #forgetTimer: NodeJS.Timeout | undefined;

  constructor(private readonly forget: () => void) {
    this.done = new Promise((resolve) => (this.#resolve = resolve));
  }

  open(): void {
    if (this.opened) return;
    this.opened = true;
    this.#resolve();
    // Sources of the slot that tick later find it open for a while (a slot is at least a second).
    this.forgetAfter(FORGET_OPENED_MS);
  }

  forgetAfter(ms: number): void {
    clearTimeout(this.#forgetTimer);
    this.#forgetTimer = setTimeout(this.forget, Math.max(ms, FORGET_OPENED_MS));
    this.#forgetTimer.unref();
  }
}

/** How long a slot's window is kept after it opened or was last waited on. */
const FORGET_OPENED_MS = 2_000;
