import type { z } from 'zod';

/**
 * How text from the environment or `--set key=value` becomes a value of the key. Files give
 * typed JSON; only text needs this.
 */
export type ValueKind = 'string' | 'int' | 'number' | 'boolean' | 'list' | 'object' | 'integer-string';

/** One configuration key, described once: convict's schema and the zod schema both come from it. */
interface KeySpec<S extends z.ZodType> {
  /** What the key does and why the default is what it is. */
  readonly doc: string;
  /** The key's zod schema; the whole config's schema is assembled from these. */
  readonly schema: S;
  readonly default: z.input<S>;
  readonly kind: ValueKind;
  /** Environment variable that sets the key. */
  readonly env?: string;
  /** Secret: masked in `config show`, never printed in an error. */
  readonly sensitive?: boolean;
  /** How a structured sensitive value is shown in `config show` (its secret members masked). */
  readonly mask?: (value: unknown) => unknown;
  /** A URL that may carry credentials (user:password, ?api-key=): `config show` masks those parts. */
  readonly urlMayHoldSecrets?: boolean;
  /** Human description of the accepted values, for docs and fix hints ("a cron expression"). */
  readonly format: string;
  /** A fix hint that says more than the generated one. */
  readonly fix?: string;
}

const KEY = Symbol('stratd.config.key');

export interface ConfigKey<S extends z.ZodType = z.ZodType> extends KeySpec<S> {
  readonly [KEY]: true;
}

/** A tree of sections whose leaves are keys. */
export interface KeyTree {
  readonly [name: string]: ConfigKey | KeyTree;
}

/** Declares a configuration key. */
export function key<S extends z.ZodType>(spec: KeySpec<S>): ConfigKey<S> {
  return { ...spec, [KEY]: true };
}

export function isConfigKey(node: ConfigKey | KeyTree): node is ConfigKey {
  return (node as Partial<ConfigKey>)[KEY] === true;
}

/** A key with its dotted path ("api.timeoutMs"). */
export interface KeyEntry {
  readonly path: string;
  readonly key: ConfigKey;
}

/** Every key of a tree, depth first, in declaration order. */
export function keyEntries(tree: KeyTree, prefix = ''): KeyEntry[] {
  const out: KeyEntry[] = [];
  for (const [name, node] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (isConfigKey(node)) out.push({ path, key: node });
    else out.push(...keyEntries(node, path));
  }
  return out;
}
