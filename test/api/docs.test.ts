import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderApiDocs } from '../../src/api/docs.ts';
import { operationIds, operations } from '../../src/api/registry.ts';

const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

describe('docs/api.md', () => {
  it('is what `stratd api docs` prints (regenerate: node bin/stratd.js api docs > docs/api.md)', () => {
    expect(doc).toBe(renderApiDocs());
  });

  it('names every operation with its method and path, and every request field', () => {
    for (const id of operationIds) {
      const op = operations[id];
      expect(doc, id).toContain(`- \`${op.method} ${op.path}\``);
    }
    const section = doc.slice(doc.indexOf('### `perps.decrease`'), doc.indexOf('### `perps.decreaseWithFee`'));
    for (const field of ['positionPubkey', 'receiveToken', 'sizeUsdDelta', 'collateralUsdDelta', 'entirePosition']) {
      expect(section, field).toContain(`| \`${field}\` | body |`);
    }
  });
});
