import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadStrategies } from '../../src/pipeline/strategy-runtime/loader.ts';
import { runStrategy, samples } from '../../src/sdk/testing.ts';
import { runCli } from '../support/cli.ts';

const USD = 1_000_000n;
const dir = mkdtempSync(join(tmpdir(), 'stratd-new-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stratd strategy new', () => {
  it('writes a starter that loads, decides and imports only the SDK, and never overwrites', async () => {
    const first = await runCli(['strategy', 'new', 'cut-losses', '--dir', dir]);
    expect(first.code).toBe(0);
    const index = readFileSync(join(dir, 'cut-losses', 'index.ts'), 'utf8');
    const test = readFileSync(join(dir, 'cut-losses', 'cut-losses.test.ts'), 'utf8');
    const imports = (text: string) => [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports(index)).toEqual(['stratd/strategy']);
    expect(imports(test)).toEqual(['vitest', 'stratd/testing', './index.ts']);

    const { strategies, problems } = await loadStrategies({ dir, enabled: ['cut-losses'], settings: {} });
    expect(problems).toEqual([]);
    const out = await runStrategy(strategies[0]!.strategy, [samples.positions([samples.position({ pnlAfterFeesUsd: -60n * USD })])]);
    expect(out.intents).toMatchObject([{ type: 'decrease', entirePosition: true }]);
    expect(out.state).toEqual({ closed: [`close:${samples.SAMPLE_POSITION}`] });

    const again = await runCli(['strategy', 'new', 'cut-losses', '--dir', dir]);
    expect(again.code).toBe(1);
    expect(readFileSync(join(dir, 'cut-losses', 'index.ts'), 'utf8')).toBe(index);
    expect((await runCli(['strategy', 'new', 'Bad Name', '--dir', dir])).code).toBe(2);
  });
});
