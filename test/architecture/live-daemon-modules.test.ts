// A live daemon (`stratd run` in live or dry-run mode) loads no module of the simulated venue and
// none of replay: paper mode reaches the venue through a dynamic import() of src/paper/resume.ts,
// made only when the venue runs in-process. Checked on the static import graph from the command's
// entry, the way Node loads it (type-only imports are erased).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadedFrom, rel, src } from './import-graph.ts';

const upstairs = (files: Set<string>) => [...files].map(rel).filter((f) => f.startsWith('venue/') || f.startsWith('replay/')).sort();

describe('what a live daemon loads', () => {
  for (const entry of ['cli/main.ts', 'cli/commands/run.ts', 'daemon/daemon.ts']) {
    it(`${entry} loads no venue and no replay module until paper mode asks for them`, () => {
      expect(upstairs(loadedFrom(join(src, entry), { dynamic: false }))).toEqual([]);
    });
  }

  it('the check sees the venue behind the dynamic import of paper mode', () => {
    const all = loadedFrom(join(src, 'daemon/daemon.ts'), { dynamic: true });
    expect(upstairs(all)).toContain('venue/venue.ts');
    expect([...all].map(rel)).toContain('paper/resume.ts');
  });
});
