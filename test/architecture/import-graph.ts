// The file-level import graph of src/ and what the floors (docs/architecture.md) say of it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = new URL('../../', import.meta.url).pathname;
export const src = join(root, 'src');

/** Bottom up. A file may import its own floor and any floor before it. */
export const FLOORS = ['kernel', 'api', 'chain', 'sdk', 'config', 'records', 'risk', 'pipeline', 'ops', 'replay', 'paper', 'daemon', 'cli'] as const;
/** The simulated venue: a product of its own that imports only these floors... */
const VENUE_IMPORTS = new Set(['venue', 'kernel', 'api', 'chain']);
/** ...and that only these floors import. */
const VENUE_IMPORTERS = new Set(['paper', 'replay', 'cli']);

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|mts|mjs)$/.test(entry) ? [path] : [];
  });

/** Every module specifier a file names: static imports, `export ... from`, `import type`, and `import('literal')`. */
const specifiersOf = (text: string): string[] => ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);

const resolveRelative = (from: string, spec: string): string | undefined => {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return undefined;
};

const floorOf = (file: string) => relative(src, file).split('/')[0]!;
export const rel = (file: string) => relative(src, file);

/** The file-level import graph of src/. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(src)) {
    const targets: string[] = [];
    for (const spec of specifiersOf(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolveRelative(file, spec);
      if (target === undefined) throw new Error(`${rel(file)}: cannot resolve ${spec}`);
      targets.push(target);
    }
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

export function layeringProblems(graph: Map<string, string[]>, exceptions: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const [from, targets] of graph) {
    const a = floorOf(from);
    for (const to of targets) {
      const b = floorOf(to);
      if (a === b || exceptions[`${rel(from)} -> ${rel(to)}`] !== undefined) continue;
      const edge = `${rel(from)} -> ${rel(to)}`;
      if (a === 'venue') {
        if (!VENUE_IMPORTS.has(b)) problems.push(`venue imports ${b}: ${edge}`);
      } else if (b === 'venue') {
        if (!VENUE_IMPORTERS.has(a)) problems.push(`${a} imports the venue: ${edge}`);
      } else {
        const ia = FLOORS.indexOf(a as (typeof FLOORS)[number]);
        const ib = FLOORS.indexOf(b as (typeof FLOORS)[number]);
        if (ia < 0) problems.push(`${rel(from)}: ${a}/ is on no floor`);
        else if (ib < 0) problems.push(`${rel(to)}: ${b}/ is on no floor`);
        else if (ia < ib) problems.push(`${a} imports ${b} (up the order): ${edge}`);
      }
    }
  }
  return problems.sort();
}

/** Strongly connected components of more than one file (or a file importing itself), by Tarjan. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(rel(w));
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}


/**
 * What a file loads when it runs: static imports and `export … from` that survive compilation
 * (`import type` and `export type` do not; an import of type specifiers only still loads its
 * module under verbatimModuleSyntax), and, apart, `import('literal')` that loads on demand.
 */
export function runtimeImports(file: string): { readonly static: string[]; readonly dynamic: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const statics: string[] = [];
  const dynamics: string[] = [];
  const add = (list: string[], spec: string) => {
    if (!spec.startsWith('.')) return;
    const target = resolveRelative(file, spec);
    if (target === undefined) throw new Error(`${rel(file)}: cannot resolve ${spec}`);
    list.push(target);
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.importClause?.isTypeOnly) add(statics, node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) add(statics, node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg !== undefined && ts.isStringLiteralLike(arg)) add(dynamics, arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { static: [...new Set(statics)], dynamic: [...new Set(dynamics)] };
}

/** Every file `entry` loads, following static imports only (or dynamic ones too). */
export function loadedFrom(entry: string, options: { readonly dynamic: boolean }): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const imports = runtimeImports(file);
    queue.push(...imports.static, ...(options.dynamic ? imports.dynamic : []));
  }
  return seen;
}
