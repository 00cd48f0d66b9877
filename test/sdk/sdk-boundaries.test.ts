import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const files = (dir: string): string[] =>
  readdirSync(join(root, dir)).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(join(root, path)).isDirectory() ? files(path) : [path];
  });
const importsOf = (text: string) => [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]!);

describe('the SDK boundary', () => {
  it('every file in strategies/ imports only stratd/strategy, stratd/testing, vitest (tests) and its own helpers', () => {
    const problems: string[] = [];
    for (const file of files('strategies').filter((f) => /\.[mc]?[tj]s$/.test(f))) {
      for (const spec of importsOf(readFileSync(join(root, file), 'utf8'))) {
        const ok = spec === 'stratd/strategy' || spec === 'stratd/testing' || (spec === 'vitest' && file.includes('.test.')) || (spec.startsWith('./') && !spec.includes('..'));
        if (!ok) problems.push(`${file}: ${spec}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every TypeScript example in README.md and docs/ imports only the SDK', () => {
    const problems: string[] = [];
    for (const file of ['README.md', ...files('docs').filter((f) => f.endsWith('.md'))]) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const block of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
        for (const spec of importsOf(block[1]!)) {
          if (!['stratd/strategy', 'stratd/testing', 'stratd/replay', 'vitest'].includes(spec) && !spec.startsWith('./')) problems.push(`${file}: ${spec}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('src/sdk depends on the contract (src/api) and itself only; the harness alone reaches the decision core', () => {
    const problems: string[] = [];
    for (const file of files('src/sdk')) {
      for (const spec of importsOf(readFileSync(join(root, file), 'utf8'))) {
        if (!spec.startsWith('.')) {
          // fast-check: the property harness's search and shrinking (authors get it as `fc` of stratd/testing).
          if (spec !== 'zod' && spec !== 'fast-check' && !spec.startsWith('stratd/')) problems.push(`${file}: ${spec}`);
          continue;
        }
        const target = relative(root, join(root, file, '..', spec));
        // The one kernel file the SDK re-exports: exact money formatting, shared with the log format.
        const allowed = target.startsWith('src/sdk/') || target.startsWith('src/api/') || target === 'src/kernel/money-text.ts' || (file === 'src/sdk/testing.ts' && ['src/pipeline/strategy-runtime/run.ts', 'src/records/action.ts'].includes(target)) ||
          (file === 'src/sdk/property-harness.ts' && ['src/pipeline/strategy-runtime/run.ts', 'src/records/state-changes.ts'].includes(target));
        if (!allowed) problems.push(`${file}: ${spec}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('package.json exports the SDK entries and the replay entry', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string> };
    expect(pkg.exports['./strategy']).toBe('./src/sdk/strategy.ts');
    expect(pkg.exports['./testing']).toBe('./src/sdk/testing.ts');
    expect(pkg.exports['./replay']).toBe('./src/replay/replay-recording.ts');
  });
});
