import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The published response bodies (../shared/fixtures/api-bodies), next to the checkout. */
export const FIXTURE_DIR = resolve(here, '../../../shared/fixtures/api-bodies');

export function fixtureText(name: string): string {
  return readFileSync(join(FIXTURE_DIR, name), 'utf8');
}

export function fixtureNames(): string[] {
  return readdirSync(FIXTURE_DIR).filter((f) => f.endsWith('.json')).sort();
}
