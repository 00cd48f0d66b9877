import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { fieldIssues, formatPath } from '../../api/issues.ts';
import type { ConfigProblem } from '../../config/errors.ts';
import { nameMintOptions, nearestName, objectKeysAt } from '../../config/suggest.ts';
import { SNAPSHOT_KINDS } from '../../sdk/snapshot.ts';
import { isStrategy, type Strategy } from '../../sdk/define.ts';
import { strategyName } from '../../sdk/name.ts';
import { registerSdkResolution } from './sdk-resolution.ts';
import { needsSdkResolution, strategyModuleUrl } from './strategy-module.ts';

/** A strategy ready to run: its definition and its parsed settings. */
export interface LoadedStrategy {
  readonly strategy: Strategy;
  /** strategies.settings.<name>, parsed by the strategy's own schema. */
  readonly config: unknown;
  readonly file: string;
}

interface LoadStrategiesOptions {
  /** Directory of strategy modules (config strategies.dir), relative to the working directory. */
  readonly dir: string;
  /** Packages or paths of further strategy modules (config strategies.modules), resolved from the working directory. */
  readonly modules?: readonly string[];
  /** Names to load (config strategies.enabled). */
  readonly enabled: readonly string[];
  /** Per-strategy settings (config strategies.settings). */
  readonly settings: Readonly<Record<string, unknown>>;
  /**
   * Import each module anew when its file changed since it was last imported (hot reload): the
   * module cache is keyed by URL, so the URL carries the file's modification time. Helpers a
   * strategy imports itself are not re-imported.
   */
  readonly fresh?: boolean;
}

interface LoadStrategiesResult {
  readonly strategies: LoadedStrategy[];
  /** Every problem that stops an enabled strategy, with the config path or file it concerns and a fix. */
  readonly problems: ConfigProblem[];
  /**
   * Modules that could not be loaded but that no enabled strategy needs (a syntax error in a
   * strategy that is not enabled): reported, and skipped so the enabled ones still run.
   */
  readonly skipped: ConfigProblem[];
}

/** Some enabled strategy cannot run; `problems` says why, all at once. */
export class StrategyLoadError extends Error {
  override readonly name = 'StrategyLoadError';
  readonly kind = 'invalid_strategy' as const;
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(`cannot load strategies:\n${problems.map((p) => `  ${p.path}: ${p.message}\n    fix: ${p.fix}`).join('\n')}`);
  }
}

const MODULE_FILE = /^[^._].*\.(ts|mts|js|mjs)$/;
const INDEX_FILES = ['index.ts', 'index.mts', 'index.js', 'index.mjs'];

/**
 * The modules of a strategies directory: its top-level files (not tests, not declarations)
 * and, for a sub-directory, its index file (strategies/<name>/index.ts beside its helpers).
 */
function strategyModuleFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    if (entry.startsWith('.') || entry.startsWith('_')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      const index = INDEX_FILES.map((f) => join(path, f)).find((f) => existsSync(f));
      if (index) out.push(index);
      continue;
    }
    if (MODULE_FILE.test(entry) && !entry.endsWith('.d.ts') && !/\.test\.[mc]?[tj]s$/.test(entry)) out.push(path);
  }
  return out;
}

/**
 * Imports every module of the strategies directory and of strategies.modules (TypeScript:
 * strategy-module.ts), keeps the enabled ones and parses their settings with their own
 * schemas. Problems that concern an enabled strategy are reported together; a module that
 * fails to load and that no enabled name points to is only reported (`skipped`).
 */
export async function loadStrategies(options: LoadStrategiesOptions): Promise<LoadStrategiesResult> {
  const problems: ConfigProblem[] = [];
  const unloadable: Array<ConfigProblem & { readonly hint: string }> = [];
  const dir = resolve(options.dir);
  const byName = new Map<string, { strategy: Strategy; file: string }>();
  const duplicated = new Set<string>();
  const files: string[] = [];
  if (!existsSync(dir)) {
    problems.push({ path: 'strategies.dir', message: `directory not found: ${dir}`, fix: 'set strategies.dir to the directory that holds the strategy modules' });
  } else {
    files.push(...strategyModuleFiles(dir));
  }
  (options.modules ?? []).forEach((specifier, index) => {
    const file = resolveModule(specifier);
    if (file) files.push(file);
    else problems.push({ path: `strategies.modules.${index}`, message: `cannot resolve ${JSON.stringify(specifier)} from ${process.cwd()}`, fix: 'install the package (npm install) or give a path to the module' });
  });
  for (const file of files) {
    const found = await importStrategy(file, options.fresh ?? false);
    if ('problem' in found) {
      unloadable.push({ ...found.problem, hint: moduleHint(file) });
      continue;
    }
    const previous = byName.get(found.strategy.name);
    if (previous) {
      // Two modules, one name: neither may run, since which one would is an accident of file order.
      problems.push({ path: file, message: `strategy "${found.strategy.name}" is also defined in ${previous.file}`, fix: 'give each strategy its own name' });
      duplicated.add(found.strategy.name);
      continue;
    }
    byName.set(found.strategy.name, { strategy: found.strategy, file });
  }

  const enabled = new Set(options.enabled);
  const skipped: ConfigProblem[] = [];
  for (const { hint, ...problem } of unloadable) {
    // A module named like an enabled strategy is that strategy: its failure is the reason it is missing.
    if (enabled.has(hint) && !byName.has(hint)) problems.push(problem);
    else skipped.push(problem);
  }

  const strategies: LoadedStrategy[] = [];
  options.enabled.forEach((name, index) => {
    const found = byName.get(name);
    if (duplicated.has(name)) return;
    if (!found) {
      if (unloadable.some((u) => u.hint === name)) return; // reported above with its cause
      const known = [...byName.keys()].join(', ') || 'none';
      const broken = skipped.length > 0 ? `; modules that failed to load: ${skipped.map((p) => p.path).join(', ')}` : '';
      problems.push({ path: `strategies.enabled.${index}`, message: `no strategy named "${name}" in ${dir} (found: ${known})${broken}`, fix: 'use the name the module passes to defineStrategy, or add the module' });
      return;
    }
    const parsed = found.strategy.config.safeParse(options.settings[name] ?? {});
    if (!parsed.success) {
      // A misspelt setting is named at its own path with the closest valid key and the list of
      // them: zod's "Unrecognized key" alone leaves the operator to read the strategy's source.
      for (const issue of parsed.error.issues) {
        if (issue.code !== 'unrecognized_keys') continue;
        const valid = objectKeysAt(found.strategy.config, issue.path);
        for (const key of issue.keys) {
          const closest = valid && nearestName(key, valid);
          const list = valid ? ` Valid keys: ${valid.join(', ')}.` : '';
          problems.push({ path: `strategies.settings.${name}.${formatPath([...issue.path, key])}`, message: 'unknown setting', fix: `remove or rename it${closest ? `: did you mean "${closest}"?` : '.'}${list} The schema is in ${found.file}` });
        }
      }
      const others = parsed.error.issues.filter((issue) => issue.code !== 'unrecognized_keys');
      for (const issue of fieldIssues(new z.ZodError(others))) {
        const where = issue.path === '(root)' ? '' : `.${issue.path}`;
        problems.push({ path: `strategies.settings.${name}${where}`, message: nameMintOptions(issue.message), fix: `correct it; the schema is in ${found.file}` });
      }
      return;
    }
    strategies.push({ strategy: found.strategy, config: parsed.data, file: found.file });
  });
  // Settings of a strategy that is not there are reported, not fatal: config/default.json carries
  // every shipped strategy's settings, and a strategies.dir elsewhere need not hold them all. A
  // misspelt enabled name is still caught above.
  for (const name of Object.keys(options.settings)) {
    if (!byName.has(name) && !unloadable.some((u) => u.hint === name)) {
      (enabled.has(name) ? problems : skipped).push({ path: `strategies.settings.${name}`, message: `settings for an unknown strategy "${name}"`, fix: 'remove them or correct the name' });
    }
  }
  return { strategies, problems, skipped };
}

/** Like loadStrategies, but throws a StrategyLoadError when an enabled strategy cannot run. */
export async function loadStrategiesOrThrow(options: LoadStrategiesOptions): Promise<LoadedStrategy[]> {
  const { strategies, problems } = await loadStrategies(options);
  if (problems.length > 0) throw new StrategyLoadError(problems);
  return strategies;
}

/** The strategy name a module's path suggests: the file's base name, or the directory of an index file. */
function moduleHint(file: string): string {
  const base = basename(file).replace(/\.[mc]?[tj]s$/, '');
  return base === 'index' ? basename(dirname(file)) : base;
}

function resolveModule(specifier: string): string | undefined {
  const cwd = process.cwd();
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    const path = resolve(cwd, specifier);
    return existsSync(path) ? path : undefined;
  }
  try {
    return createRequire(join(cwd, 'package.json')).resolve(specifier);
  } catch {
    return undefined;
  }
}

async function importStrategy(file: string, fresh: boolean): Promise<{ strategy: Strategy } | { problem: ConfigProblem }> {
  let module: Record<string, unknown>;
  try {
    const url = await strategyModuleUrl(file);
    if (needsSdkResolution(url)) registerSdkResolution();
    module = (await import(fresh ? `${url}?mtime=${statSync(fileURLToPath(url)).mtimeMs}` : url)) as Record<string, unknown>;
  } catch (error) {
    return { problem: { path: file, message: `cannot import: ${(error as Error).message}`, fix: 'correct the module (run it with "npx tsx <file>" to see the full error)' } };
  }
  const exported = module.default ?? module.strategy;
  if (!isStrategy(exported)) {
    return { problem: { path: file, message: 'the default export is not a strategy', fix: "export default defineStrategy({ ... }) from 'stratd/strategy'" } };
  }
  const issues: string[] = [];
  if (!strategyName.safeParse(exported.name).success) issues.push(`name ${JSON.stringify(exported.name)} is not lower-case letters, digits and "-"`);
  if (!Array.isArray(exported.subscribes) || exported.subscribes.length === 0) issues.push('subscribes is empty');
  for (const kind of [...(exported.subscribes ?? []), ...(exported.reads ?? [])]) if (!SNAPSHOT_KINDS.includes(kind)) issues.push(`names an unknown snapshot kind ${JSON.stringify(kind)}`);
  if (exported.reads !== undefined && !Array.isArray(exported.reads)) issues.push('reads is not a list of snapshot kinds');
  if (typeof exported.onSnapshot !== 'function') issues.push('onSnapshot is not a function');
  if (typeof (exported.config as { safeParse?: unknown })?.safeParse !== 'function') issues.push('config is not a zod schema');
  if (exported.decisionWindowMs !== undefined && !(Number.isSafeInteger(exported.decisionWindowMs) && exported.decisionWindowMs >= 0)) issues.push('decisionWindowMs is not a non-negative integer');
  if (issues.length > 0) return { problem: { path: file, message: issues.join('; '), fix: 'see docs/strategies.md' } };
  return { strategy: exported };
}
