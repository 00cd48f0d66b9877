import type { Config } from '../config/index.ts';

/**
 * A group of settings a running daemon takes without a restart (risk limits, poller cadences,
 * notification targets). A reload prepares every group that changed first — where anything can
 * still fail — and commits them only when all prepared, so nothing is half-applied.
 */
export interface LiveSetting {
  /** What it is, for the log: "risk limits". */
  readonly name: string;
  /** Key paths, or key-path prefixes ("risk", "pollers"), this group applies live. */
  readonly keys: readonly string[];
  /** Builds what the new values need; throws when they cannot apply (the reload is refused). */
  prepare(next: Config): Promise<PreparedSetting>;
}

export interface PreparedSetting {
  /** Puts the prepared values in force (one assignment or a swap of prepared objects). */
  commit(): Promise<void>;
  /** Releases what prepare built, when another group refused. */
  discard(): Promise<void>;
}

/** Whether a changed key path belongs to one of these keys or key prefixes. */
export function coveredBy(path: string, keys: readonly string[]): boolean {
  return keys.some((key) => path === key || path.startsWith(`${key}.`));
}

/** A group whose values are read through a holder: prepare computes them, commit assigns them. */
export function heldSetting<T>(name: string, keys: readonly string[], holder: { current: T }, derive: (config: Config) => T): LiveSetting {
  return {
    name,
    keys,
    async prepare(next) {
      const value = derive(next);
      return {
        async commit() {
          holder.current = value;
        },
        async discard() {},
      };
    },
  };
}
