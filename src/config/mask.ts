import { keyEntries } from './key.ts';
import { configKeys, type Config } from './schema.ts';

export const REDACTED = '[redacted]';

const ENTRIES = keyEntries(configKeys);

/**
 * The configuration as it may be shown: sensitive keys become "[redacted]" when set ("" stays
 * "", so an operator sees that a key is missing), and credentials inside URLs (a Redis
 * password, an RPC provider's api-key parameter or path token) are masked.
 */
export function maskedConfig(config: Config): Config {
  const copy = structuredClone(config) as unknown as Record<string, unknown>;
  for (const { path, key } of ENTRIES) {
    if (!key.sensitive && !key.urlMayHoldSecrets) continue;
    const names = path.split('.');
    const leaf = names.pop()!;
    const parent = names.reduce<Record<string, unknown>>((node, name) => node[name] as Record<string, unknown>, copy);
    const value = parent[leaf];
    if (typeof value !== 'string' || value === '') continue;
    parent[leaf] = key.sensitive ? REDACTED : maskUrlSecrets(value);
  }
  return copy as unknown as Config;
}

/** Keeps scheme, host and port; masks user info, query values and any path (providers put keys there). */
export function maskUrlSecrets(text: string): string {
  if (!URL.canParse(text)) return REDACTED;
  const url = new URL(text);
  if (url.username) url.username = REDACTED;
  if (url.password) url.password = REDACTED;
  for (const name of [...url.searchParams.keys()]) url.searchParams.set(name, REDACTED);
  // A bare "/" or a Redis database number ("/0") reveals nothing.
  if (!/^\/?\d*$/.test(url.pathname)) url.pathname = `/${REDACTED}`;
  return decodeURIComponent(url.toString());
}
