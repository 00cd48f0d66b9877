import { parseArgs } from 'node:util';
import { configSchema, formatProblems, isConfigError, loadConfig, maskedConfig, splitConfigArgs, type ConfigProblem } from '../../config/index.ts';
import { renderKeyReference } from '../../config/docs.ts';
import { loadStrategies } from '../../pipeline/strategy-runtime/loader.ts';
import { EXIT, type Command } from '../command.ts';

const USAGE = `usage:
  stratd config check [--config <file>] [--set key.path=value ...]
      Validates the effective configuration, including each enabled strategy's settings
      against its own schema. Prints every problem at once (key path, what is wrong, the
      fix) and exits 1, or prints "ok".
  stratd config show [--json] [--config <file>] [--set key.path=value ...]
      Prints the effective configuration with secrets masked.
  stratd config docs
      Prints the reference of every key (the table in docs/config.md).
Layers, lowest first: built-in defaults < config/default.json < config/<NODE_ENV>.json <
--config file < environment < --set.
`;

export const configCommand: Command = {
  name: 'config',
  usage: USAGE,
  async run(argv) {
    const [sub, ...rest] = argv;
    switch (sub) {
      case 'check':
        return check(rest);
      case 'show':
        return show(rest);
      case 'docs':
        process.stdout.write(renderKeyReference());
        return EXIT.ok;
      default:
        process.stderr.write(USAGE);
        return sub === '--help' || sub === '-h' ? EXIT.ok : EXIT.usage;
    }
  },
};

async function check(argv: string[]): Promise<number> {
  const args = splitConfigArgs(argv);
  if (args.rest.length > 0) return usage(`unexpected ${args.rest.join(' ')}`);
  let problems: ConfigProblem[] = [];
  let strategies: unknown;
  let summary = '';
  try {
    const { config } = loadConfig({ argv });
    strategies = config.strategies;
    summary = `mode ${config.mode}; strategies: ${config.strategies.enabled.join(', ') || 'none'}`;
  } catch (error) {
    if (!isConfigError(error)) throw error;
    problems = [...error.problems];
    // Still check the strategies' own settings when their section itself is valid.
    if (!problems.some((p) => /^strategies\.(dir|enabled)/.test(p.path))) strategies = error.strategies;
  }
  const raw = (typeof strategies === 'object' && strategies !== null ? strategies : {}) as Record<string, unknown>;
  const section = strategiesSection.safeParse({ dir: raw.dir, modules: raw.modules, enabled: raw.enabled, settings: raw.settings });
  if (section.success) {
    const loaded = await loadStrategies(section.data);
    problems.push(...loaded.problems.filter((p) => !problems.some((q) => q.path === p.path)));
    // Not enabled, so not fatal; still worth fixing.
    for (const p of loaded.skipped) process.stderr.write(`skipped ${p.path}: ${p.message}\n`);
  }
  if (problems.length > 0) return report(problems);
  process.stdout.write(`ok (${summary})\n`);
  return EXIT.ok;
}

const strategiesSection = configSchema.shape.strategies.pick({ dir: true, modules: true, enabled: true, settings: true });

async function show(argv: string[]): Promise<number> {
  const args = splitConfigArgs(argv);
  let json: boolean;
  try {
    json = parseArgs({ args: [...args.rest], options: { json: { type: 'boolean', default: false } } }).values.json;
  } catch (error) {
    return usage((error as Error).message);
  }
  let config;
  try {
    ({ config } = loadConfig({ argv }));
  } catch (error) {
    if (!isConfigError(error)) throw error;
    return report(error.problems);
  }
  const masked = maskedConfig(config);
  if (json) {
    process.stdout.write(`${JSON.stringify(masked, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const [path, value] of flatten(masked)) process.stdout.write(`${path} = ${JSON.stringify(value)}\n`);
  return EXIT.ok;
}

function report(problems: readonly ConfigProblem[]): number {
  process.stderr.write(`${problems.length} configuration problem${problems.length === 1 ? '' : 's'}:\n${formatProblems(problems)}\n`);
  return EXIT.failed;
}

function usage(message: string): number {
  process.stderr.write(`stratd config: ${message}\n${USAGE}`);
  return EXIT.usage;
}

/** Leaf paths and values; strategy settings stay one JSON value per strategy. */
function flatten(value: unknown, prefix = ''): Array<[string, unknown]> {
  const isSettings = /^strategies\.settings\.[^.]+$/.test(prefix);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || isSettings || Object.keys(value).length === 0) return [[prefix, value]];
  return Object.entries(value).flatMap(([name, member]) => flatten(member, prefix ? `${prefix}.${name}` : name));
}
