// The floors of src/ (docs/architecture.md): every import points down the order, the venue
// stands apart, and no two files import each other in a circle. Types-only imports count: a type
// is coupling too, and `import type` of an upper floor is how a lower floor starts to lean on it.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLOORS, importCycles, importGraph, layeringProblems, rel, src } from './import-graph.ts';

/**
 * Edges that are right as they are, each with its reason (docs/architecture.md, "Exceptions").
 * Keyed `importer -> imported`, paths relative to src/.
 */
const EXCEPTIONS: Record<string, string> = {
  'sdk/testing.ts -> pipeline/strategy-runtime/run.ts':
    'stratd/testing runs a strategy through the very decision function the strategy worker runs (decideOne), so a test passes exactly when the daemon would take the decision; a copy would drift',
  'sdk/testing.ts -> records/action.ts': 'the harness hands back the actions decideOne made: their type is the action job itself (types only)',
  'sdk/property-harness.ts -> pipeline/strategy-runtime/run.ts':
    'the property harness runs strategies together through decideOne, as the worker does, so a property holds exactly for the decisions the daemon would take',
  'sdk/property-harness.ts -> records/state-changes.ts':
    'the property harness commits a landed decision state as its changes, merged the way the daemon merges them, so landings in any order carry state as they would live',
};

describe('the floors of src/', () => {
  const graph = importGraph();

  it('every folder of src/ is a floor or the venue', () => {
    const folders = readdirSync(src).filter((entry) => statSync(join(src, entry)).isDirectory());
    expect(folders.filter((f) => f !== 'venue' && !(FLOORS as readonly string[]).includes(f))).toEqual([]);
  });

  const problems = [...layeringProblems(graph, EXCEPTIONS), ...importCycles(graph).map((files) => `cycle: ${files.join(', ')}`)];

  it('no import points up the order; the venue imports only kernel, api and chain, and only paper, replay and the CLI import it; no two files import each other, directly or in a circle', () => {
    expect(problems).toEqual([]);
  });

  it('every exception is still an edge of the graph', () => {
    const edges = new Set([...graph].flatMap(([from, targets]) => targets.map((to) => `${rel(from)} -> ${rel(to)}`)));
    expect(Object.keys(EXCEPTIONS).filter((edge) => !edges.has(edge))).toEqual([]);
  });

  it('the checks see what they guard: an upward edge, a venue edge each way, a cycle', () => {
    const at = (path: string) => join(src, path);
    const fake = new Map<string, string[]>([
      [at('api/a.ts'), [at('pipeline/b.ts')]],
      [at('pipeline/b.ts'), [at('kernel/c.ts'), at('venue/v.ts')]],
      [at('venue/v.ts'), [at('kernel/c.ts'), at('chain/d.ts'), at('ops/e.ts')]],
      [at('chain/d.ts'), [at('chain/f.ts')]],
      [at('chain/f.ts'), [at('chain/d.ts')]],
      [at('kernel/c.ts'), []],
      [at('ops/e.ts'), []],
    ]);
    expect(layeringProblems(fake, {})).toEqual([
      'api imports pipeline (up the order): api/a.ts -> pipeline/b.ts',
      'pipeline imports the venue: pipeline/b.ts -> venue/v.ts',
      'venue imports ops: venue/v.ts -> ops/e.ts',
    ]);
    expect(importCycles(fake)).toEqual([['chain/d.ts', 'chain/f.ts']]);
  });
});
