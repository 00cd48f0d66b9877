import { readdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fieldIssues } from '../api/issues.ts';
import type { ConfigProblem } from '../config/errors.ts';
import { SNAPSHOT_KINDS } from '../pipeline/snapshot.ts';
import { isStrategy, type Strategy } from './define.ts';
import { strategyName } from './name.ts';

/** A strategy ready to run: its definition and its parsed settings. */
export interface LoadedStrategy {
  readonly strategy: Strategy;
  /** strategies.settings.<name>, parsed by the strategy's own schema. */
  readonly config: unknown;
  readonly file: string;
}

export interface LoadStrategiesOptions {
  /** Directory of strategy modules (config strategies.dir), relative to the working directory. */
  readonly dir: string;
  /** Names to load (config strategies.enabled). */
  readonly enabled: readonly string[];
  /** Per-strategy settings (config strategies.settings). */
  readonly settings: Readonly<Record<string, unknown>>;
}

export interface LoadStrategiesResult {
  readonly strategies: LoadedStrategy[];
  /** Every problem found, with the config path or file it concerns and a fix. */
  readonly problems: ConfigProblem[];
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

/**
 * Imports every module in the strategies directory (TypeScript runs through tsx), keeps the
 * enabled ones and parses their settings with their own schemas. Bad modules, unknown names
 * and invalid settings are all reported, not thrown one at a time.
 */
export async function loadStrategies(options: LoadStrategiesOptions): Promise<LoadStrategiesResult> {
  const problems: ConfigProblem[] = [];
  const dir = resolve(options.dir);
  const byName = new Map<string, { strategy: Strategy; file: string }>();
  const duplicated = new Set<string>();
  if (!existsSync(dir)) {
    problems.push({ path: 'strategies.dir', message: `directory not found: ${dir}`, fix: 'set strategies.dir to the directory that holds the strategy modules' });
  } else {
    const files = readdirSync(dir).filter((f) => MODULE_FILE.test(f) && !f.endsWith('.d.ts') && !/\.test\.[mc]?[tj]s$/.test(f)).sort();
    for (const name of files) {
      const file = join(dir, name);
      const found = await importStrategy(file, problems);
      if (!found) continue;
      const previous = byName.get(found.name);
      if (previous) {
        // Two modules, one name: neither may run, since which one would is an accident of file order.
        problems.push({ path: file, message: `strategy "${found.name}" is also defined in ${previous.file}`, fix: 'give each strategy its own name' });
        duplicated.add(found.name);
        continue;
      }
      byName.set(found.name, { strategy: found, file });
    }
  }

  const strategies: LoadedStrategy[] = [];
  options.enabled.forEach((name, index) => {
    const found = byName.get(name);
    if (duplicated.has(name)) return;
    if (!found) {
      const known = [...byName.keys()].join(', ') || 'none';
      problems.push({ path: `strategies.enabled.${index}`, message: `no strategy named "${name}" in ${dir} (found: ${known})`, fix: 'use the name the module passes to defineStrategy, or add the module' });
      return;
    }
    const parsed = found.strategy.config.safeParse(options.settings[name] ?? {});
    if (!parsed.success) {
      for (const issue of fieldIssues(parsed.error)) {
        const where = issue.path === '(root)' ? '' : `.${issue.path}`;
        problems.push({ path: `strategies.settings.${name}${where}`, message: issue.message, fix: `correct it; the schema is in ${found.file}` });
      }
      return;
    }
    strategies.push({ strategy: found.strategy, config: parsed.data, file: found.file });
  });
  for (const name of Object.keys(options.settings)) {
    if (!byName.has(name)) {
      problems.push({ path: `strategies.settings.${name}`, message: `settings for an unknown strategy "${name}"`, fix: 'remove them or correct the name' });
    }
  }
  return { strategies, problems };
}

/** Like loadStrategies, but throws a StrategyLoadError when anything is wrong. */
export async function loadStrategiesOrThrow(options: LoadStrategiesOptions): Promise<LoadedStrategy[]> {
  const { strategies, problems } = await loadStrategies(options);
  if (problems.length > 0) throw new StrategyLoadError(problems);
  return strategies;
}

async function importStrategy(file: string, problems: ConfigProblem[]): Promise<Strategy | undefined> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    problems.push({ path: file, message: `cannot import: ${(error as Error).message}`, fix: 'correct the module (run it with "npx tsx <file>" to see the full error)' });
    return undefined;
  }
  const exported = module.default ?? module.strategy;
  if (!isStrategy(exported)) {
    problems.push({ path: file, message: 'the default export is not a strategy', fix: 'export default defineStrategy({ ... }) from src/strategy/define.ts' });
    return undefined;
  }
  const issues: string[] = [];
  if (!strategyName.safeParse(exported.name).success) issues.push(`name ${JSON.stringify(exported.name)} is not lower-case letters, digits and "-"`);
  if (exported.subscribes.length === 0) issues.push('subscribes is empty');
  for (const kind of exported.subscribes) if (!SNAPSHOT_KINDS.includes(kind)) issues.push(`subscribes to an unknown kind ${JSON.stringify(kind)}`);
  if (typeof exported.onSnapshot !== 'function') issues.push('onSnapshot is not a function');
  if (typeof (exported.config as { safeParse?: unknown })?.safeParse !== 'function') issues.push('config is not a zod schema');
  if (exported.decisionWindowMs !== undefined && !(Number.isSafeInteger(exported.decisionWindowMs) && exported.decisionWindowMs >= 0)) issues.push('decisionWindowMs is not a non-negative integer');
  if (issues.length > 0) {
    problems.push({ path: file, message: issues.join('; '), fix: 'see docs/strategies.md' });
    return undefined;
  }
  return exported;
}
