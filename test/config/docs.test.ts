import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderKeyReference } from '../../src/config/docs.ts';
import { keyEntries } from '../../src/config/key.ts';
import { configKeys } from '../../src/config/schema.ts';

const doc = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');

describe('docs/config.md', () => {
  it('holds the generated key reference exactly (regenerate with `stratd config docs`)', () => {
    const start = doc.indexOf('<!-- keys:start -->\n');
    const end = doc.indexOf('<!-- keys:end -->');
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    expect(doc.slice(start + '<!-- keys:start -->\n'.length, end)).toBe(renderKeyReference());
  });

  it('lists every key with its env variable, and says which are sensitive', () => {
    for (const { path, key } of keyEntries(configKeys)) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${path}\` |`));
      expect(row, path).toBeDefined();
      if (key.env) expect(row, path).toContain(`\`${key.env}\``);
      if (key.sensitive) expect(row, path).toContain('Sensitive');
    }
  });

  it('every key declares a doc, a format description and a default its own schema accepts', () => {
    for (const { path, key } of keyEntries(configKeys)) {
      expect(key.doc.trim().length, path).toBeGreaterThan(0);
      expect(key.format.trim().length, path).toBeGreaterThan(0);
      expect(key.schema.safeParse(key.default).success, path).toBe(true);
    }
  });
});
