// Exports of src/ that nothing uses: not imported by a file of the product (src/, bin/, bench/,
// chaos/, strategies/; tests do not count) and not part of the package's public entries.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = new URL('../../', import.meta.url).pathname;

/** The package's entries (package.json "exports"): everything they export, also through re-exports, is public. */
export const PACKAGE_ENTRIES: Readonly<Record<string, string>> = {
  'stratd/strategy': 'src/sdk/strategy.ts',
  'stratd/testing': 'src/sdk/testing.ts',
  'stratd/replay': 'src/replay/replay-recording.ts',
};

/** What one module says about names: what it exports, and what it takes from other modules. */
interface ModuleFacts {
  /** Names this module declares and exports itself. */
  readonly own: Set<string>;
  /** Re-exported names: exported name → [module, name there]. */
  readonly reexports: Map<string, readonly [string, string]>;
  /** `export * from`: every name of those modules. */
  readonly reexportAll: string[];
  /** Names taken from other modules: module → names ('*' for all of them). */
  readonly uses: Map<string, Set<string>>;
}

const isTest = (file: string) => /\.test\.[cm]?[tj]s$/.test(file);

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    if (entry === 'node_modules' || entry === 'dist') return [];
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.(ts|mts|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * The product's files, relative to the checkout: src/, bin/, bench/, chaos/ and strategies/
 * (tests apart), and any other file they import (bench/ and chaos/ start daemons through
 * test/support/daemon-process.ts).
 */
export function productFiles(root = ROOT): Map<string, string> {
  const files = new Map<string, string>();
  const queue = ['src', 'bin', 'bench', 'chaos', 'strategies'].flatMap((dir) => filesUnder(join(root, dir))).map((path) => relative(root, path));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file) || isTest(file)) continue;
    const text = readFileSync(join(root, file), 'utf8');
    files.set(file, text);
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const path = resolve('/', dirname(file), fileName).slice(1);
      if (existsSync(join(root, path)) && statSync(join(root, path)).isFile()) queue.push(path);
    }
  }
  return files;
}

function resolveSpecifier(from: string, spec: string, files: ReadonlyMap<string, string>): string | undefined {
  const entry = PACKAGE_ENTRIES[spec];
  if (entry !== undefined) return entry;
  if (!spec.startsWith('.')) return undefined;
  const path = resolve('/', dirname(from), spec).slice(1);
  for (const candidate of [path, `${path}.ts`, `${path}/index.ts`]) if (files.has(candidate)) return candidate;
  return undefined;
}

const hasExport = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const hasDefault = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

function factsOf(file: string, text: string, files: ReadonlyMap<string, string>): ModuleFacts {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const facts: ModuleFacts = { own: new Set(), reexports: new Map(), reexportAll: [], uses: new Map() };
  const use = (module: string | undefined, name: string) => {
    if (module === undefined) return;
    const names = facts.uses.get(module) ?? new Set<string>();
    names.add(name);
    facts.uses.set(module, names);
  };
  const target = (spec: ts.Expression | undefined) => (spec && ts.isStringLiteralLike(spec) ? resolveSpecifier(file, spec.text, files) : undefined);
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const module = target(node.moduleSpecifier);
      const clause = node.importClause;
      if (clause?.name) use(module, 'default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) use(module, '*');
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) use(module, (e.propertyName ?? e.name).text);
    } else if (ts.isExportDeclaration(node)) {
      const module = target(node.moduleSpecifier);
      if (node.moduleSpecifier === undefined) {
        // `export { a, b as c }` of local names.
        if (node.exportClause && ts.isNamedExports(node.exportClause)) for (const e of node.exportClause.elements) facts.own.add(e.name.text);
      } else if (module !== undefined) {
        if (!node.exportClause) facts.reexportAll.push(module);
        else if (ts.isNamespaceExport(node.exportClause)) {
          facts.own.add(node.exportClause.name.text);
          use(module, '*');
        } else for (const e of node.exportClause.elements) facts.reexports.set(e.name.text, [module, (e.propertyName ?? e.name).text]);
      }
    } else if (ts.isExportAssignment(node)) {
      facts.own.add('default');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      // import('./x'): whatever it reads of the module, all of it counts as used.
      use(target(node.arguments[0]), '*');
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      use(resolveSpecifier(file, node.argument.literal.text, files), node.qualifier && ts.isIdentifier(node.qualifier) ? node.qualifier.text : '*');
    } else if (hasExport(node) && node.parent === source) {
      if (hasDefault(node)) facts.own.add('default');
      else if (ts.isVariableStatement(node)) for (const d of node.declarationList.declarations) for (const n of bindingNames(d.name)) facts.own.add(n);
      else if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) || ts.isModuleDeclaration(node)) && node.name && ts.isIdentifier(node.name)) facts.own.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return facts;
}

/**
 * `file#name` of every export of `src/` nothing uses: no product file imports it (directly or
 * through a re-export that is itself used) and no package entry exports it. A name used only in
 * its own file is dead as an export: it should not be exported.
 */
export function deadExports(files: ReadonlyMap<string, string>): string[] {
  const facts = new Map<string, ModuleFacts>();
  for (const [file, text] of files) facts.set(file, factsOf(file, text, files));

  // Names asked of each module, followed through re-exports to the module that declares them.
  const used = new Map<string, Set<string>>();
  const queue: Array<readonly [string, string]> = [];
  const ask = (module: string, name: string) => {
    const names = used.get(module) ?? new Set<string>();
    if (names.has(name)) return;
    names.add(name);
    used.set(module, names);
    queue.push([module, name]);
  };
  for (const entry of Object.values(PACKAGE_ENTRIES)) ask(entry, '*');
  for (const f of facts.values()) for (const [module, names] of f.uses) for (const name of names) ask(module, name);
  while (queue.length > 0) {
    const [module, name] = queue.pop()!;
    const f = facts.get(module);
    if (!f) continue;
    for (const [exported, [from, original]] of f.reexports) if (name === '*' || name === exported) ask(from, original);
    for (const from of f.reexportAll) if (name === '*' || !f.own.has(name)) ask(from, name);
  }

  const dead: string[] = [];
  for (const [file, f] of facts) {
    if (!file.startsWith('src/')) continue;
    const asked = used.get(file) ?? new Set<string>();
    if (asked.has('*')) continue;
    for (const name of [...f.own, ...f.reexports.keys()]) if (!asked.has(name)) dead.push(`${file}#${name}`);
  }
  return dead.sort();
}
