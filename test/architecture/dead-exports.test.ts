// No export of src/ that nothing uses: an export is a promise that someone imports it. Those the
// product (src/, bin/, bench/, chaos/, strategies/) does not import and the package entries do not
// publish are dead, unless test/architecture/dead-exports-allowed.ts says why they stay.
import { describe, expect, it } from 'vitest';
import { ALLOWED_DEAD_EXPORTS } from './dead-exports-allowed.ts';
import { deadExports, productFiles } from './dead-exports.ts';

describe('dead exports', () => {
  const dead = deadExports(productFiles());

  it('every export of src/ is imported by the product or published by a package entry, or allowed with a reason', () => {
    expect(dead.filter((d) => ALLOWED_DEAD_EXPORTS[d] === undefined)).toEqual([]);
  });

  it('every allowed dead export is still dead (an entry that is used again leaves the list)', () => {
    expect(Object.keys(ALLOWED_DEAD_EXPORTS).filter((d) => !dead.includes(d))).toEqual([]);
    for (const [entry, reason] of Object.entries(ALLOWED_DEAD_EXPORTS)) expect(reason.length, entry).toBeGreaterThan(10);
  });

  it('the check sees what it guards: unused, used only at home, re-exported, published, imported by a namespace or import()', () => {
    const files = new Map<string, string>([
      ['src/kernel/a.ts', "export const used = 1;\nexport const unused = 2;\nexport function home() { return used; }\nexport const viaBarrel = 3;\nexport type Shape = { a: 1 };\n"],
      ['src/kernel/barrel.ts', "export { viaBarrel, unused as renamed } from './a.ts';\nexport * from './c.ts';\n"],
      ['src/kernel/c.ts', "export const star = 1;\nexport const starUnused = 2;\n"],
      ['src/kernel/d.ts', "export const all = 1;\n"],
      ['src/kernel/e.ts', "export const lazy = 1;\n"],
      ['src/sdk/strategy.ts', "export const published = 1;\n"],
      ['src/cli/main.ts', "import { used, type Shape } from '../kernel/a.ts';\nimport { viaBarrel, star } from '../kernel/barrel.ts';\nimport * as d from '../kernel/d.ts';\nexport async function main(): Promise<Shape | number> { await import('../kernel/e.ts'); return used + viaBarrel + star + d.all; }\n"],
      ['bin/stratd.js', "await import('../src/cli/main.ts');\n"],
    ]);
    expect(deadExports(files)).toEqual(['src/kernel/a.ts#home', 'src/kernel/a.ts#unused', 'src/kernel/barrel.ts#renamed', 'src/kernel/c.ts#starUnused']);
  });
});
