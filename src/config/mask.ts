import { looksLikeKeyMaterial } from '../chain/keys/key-material.ts';
import { keyEntries } from './key.ts';
import { configKeys, type Config } from './schema.ts';

import { maskUrlSecrets, REDACTED } from './mask-url.ts';

export { maskUrlSecrets };

const ENTRIES = keyEntries(configKeys);
/** Keys that name where the wallet key is (a path, a variable): an operator may paste the key itself there. */
const KEY_LOCATIONS = new Set(['wallet.keyFile', 'wallet.keyEnv', 'wallet.paperKeyFile']);

/**
 * The configuration as it may be shown: sensitive keys become "[redacted]" when set ("" stays
 * "", so an operator sees that a key is missing), credentials inside URLs (a Redis password, an
 * RPC provider's api-key parameter or path token) are masked, and a wallet key pasted where its
 * path or variable name belongs is hidden.
 */
export function maskedConfig(config: Config): Config {
  const copy = structuredClone(config) as unknown as Record<string, unknown>;
  for (const { path, key } of ENTRIES) {
    if (!key.sensitive && !key.urlMayHoldSecrets && !KEY_LOCATIONS.has(path)) continue;
    const names = path.split('.');
    const leaf = names.pop()!;
    const parent = names.reduce<Record<string, unknown>>((node, name) => node[name] as Record<string, unknown>, copy);
    const value = parent[leaf];
    if (key.mask) {
      parent[leaf] = key.mask(value);
      continue;
    }
    if (typeof value !== 'string' || value === '') continue;
    if (KEY_LOCATIONS.has(path)) {
      if (looksLikeKeyMaterial(value)) parent[leaf] = REDACTED;
      continue;
    }
    parent[leaf] = key.sensitive ? REDACTED : maskUrlSecrets(value);
  }
  return copy as unknown as Config;
}

