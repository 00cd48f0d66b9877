// docs/strategies.md lists every field of positionView and every sample builder: an author reads the
// reference, not the source. A new field or builder without its row fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { positionView } from '../../src/sdk/position-view.ts';
import * as samples from '../../src/sdk/samples.ts';

const doc = readFileSync(new URL('../../docs/strategies.md', import.meta.url), 'utf8');
const reference = doc.slice(doc.indexOf('## Reference: `positionView` and `samples`'), doc.indexOf('## Testing without funds'));

describe('docs/strategies.md reference', () => {
  it('lists every field of positionView and of its TP/SL requests', () => {
    const view = positionView(samples.position({ tpsl: [{ pubkey: samples.SAMPLE_TPSL, type: 'sl', triggerPriceUsd: 140_000_000n }] }));
    expect(view).toBeDefined();
    const missing = [...Object.keys(view!), ...Object.keys(view!.tpslRequests[0]!)].filter((field) => !reference.includes(`\`${field}\``));
    expect(missing).toEqual([]);
  });

  it('lists every sample builder and constant', () => {
    const missing = Object.keys(samples).filter((name) => !reference.includes(`\`${name}`));
    expect(missing).toEqual([]);
  });
});
