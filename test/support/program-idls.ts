// The Anchor IDLs of the product programs, read from the maintainers' data folder beside the
// checkout (never copied into the repository; see shared-data.ts). Tests that need them skip with
// one line when they are absent.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { needsShared, sharedDir, sharedText } from './shared-data.ts';

/** The IDL files of each product program whose instruction table the source transcribes. */
export const PROGRAM_IDL_FILES = {
  limitOrder: ['jupiter-limit-order-v2-idl.json'],
  dca: ['jupiter-dca-idl.json'],
  // Two generations of the same program: the older one's routes, the later one's route_v2 family.
  aggregator: ['jupiter-aggregator-v6-idl.json', 'jupiter-aggregator-v6-routev2-idl.json'],
  dbc: ['meteora-dbc-idl.json'],
} as const;

export const PROGRAM_IDLS_SKIP_REASON = `product program instructions against their IDLs ${needsShared('idl')}`;

export function programIdlsAvailable(): boolean {
  return sharedDir('idl') !== undefined;
}

interface Idl {
  readonly instructions: ReadonlyArray<{ readonly name: string; readonly discriminator?: readonly number[] }>;
}

/** Anchor's rule: sha256("global:" + snake_case(name))[0..8]; legacy IDLs write names in camelCase. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function anchorDiscriminator(snakeName: string): string {
  return createHash('sha256').update(`global:${snakeName}`).digest().subarray(0, 8).toString('hex');
}

/**
 * Every instruction of the IDL files, snake_case name → discriminator, computed from the name;
 * an IDL that carries its own discriminator array (Anchor 0.30+) must agree with it.
 */
export function idlInstructionTable(files: readonly string[]): Record<string, string> {
  const dir = sharedDir('idl');
  if (dir === undefined) throw new Error('the IDL folder is absent');
  const table: Record<string, string> = {};
  for (const file of files) {
    const idl = JSON.parse(sharedText(dir, file)) as Idl;
    for (const ix of idl.instructions) {
      const name = snakeCase(ix.name);
      const disc = anchorDiscriminator(name);
      if (ix.discriminator !== undefined && Buffer.from(ix.discriminator).toString('hex') !== disc) {
        throw new Error(`${join('idl', file)}: ${ix.name} carries discriminator ${Buffer.from(ix.discriminator).toString('hex')}, not sha256("global:${name}") ${disc}`);
      }
      if (table[name] !== undefined && table[name] !== disc) throw new Error(`${name}: two discriminators`);
      table[name] = disc;
    }
  }
  return table;
}
