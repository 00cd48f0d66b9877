import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = (path: string) => new URL(`../../${path}`, import.meta.url).pathname;

// A strategies directory outside the repository (no "type": "module" package around it), as an
// operator keeps one: the SDK's resolve hook loads its TypeScript as an ES module, and a hot
// reload must get the rewritten module, not the cached one.
const outside = mkdtempSync(join(tmpdir(), 'stratd-fresh-'));
writeFileSync(
  join(outside, 'hot.ts'),
  "import { defineStrategy, z } from 'stratd/strategy';\nexport default defineStrategy({ name: 'hot', description: 'first', config: z.object({}), subscribes: ['positions'], onSnapshot() { return []; } });\n",
);
afterAll(() => rmSync(outside, { recursive: true, force: true }));

describe('hot reload of a strategy kept outside the repository', () => {
  it('imports the rewritten module under the TypeScript runtime (tsx), not the cached one', async () => {
    const { stdout } = await run(process.execPath, [repo('bin/run-ts.js'), repo('test/sdk/fresh-import-child.ts'), outside], { cwd: repo(''), timeout: 60_000 });
    expect(stdout.trim().split('\n')).toEqual(['first', 'second']);
  }, 90_000);
});
