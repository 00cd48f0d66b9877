import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import convict from 'convict';
import { splitConfigArgs } from './args.ts';
import { coerceFreeForm, coerceText } from './coerce.ts';
import { convictSchemaOf } from './convict-schema.ts';
import { ConfigError } from './errors.ts';
import { keyEntries } from './key.ts';
import { liveRequirements } from './live-requirements.ts';
import { ProblemList } from './problems.ts';
import { configKeys, configSchema, type Config } from './schema.ts';

export interface LoadConfigOptions {
  /** Command-line arguments; `--config <file>` and repeated `--set key.path=value` are read, the rest ignored. */
  readonly argv?: readonly string[];
  /** The environment (default: process.env). Read for the keys' variables, NODE_ENV and the wallet key variable's presence. */
  readonly env?: NodeJS.ProcessEnv;
  /** A config file; takes the place of `--config` in argv. */
  readonly configFile?: string;
  /** Values by dotted key path, applied last (tests, embedding code). */
  readonly overrides?: Readonly<Record<string, unknown>>;
  /** Directory of default.json and <NODE_ENV>.json (default: ./config). */
  readonly configDir?: string;
  /**
   * Whether live mode's needs (API key, wallet key, RPC URL) are problems (default true). False
   * for commands that only read settings, such as `stratd tx inspect`, which an operator may run
   * where the live deployment's secrets are not.
   */
  readonly liveRequirements?: boolean;
}

interface LoadedConfig {
  readonly config: Config;
  /** The files that were merged, lowest first. */
  readonly files: readonly string[];
}

const ENTRIES = keyEntries(configKeys);

/**
 * Loads the configuration. Layers, lowest first: built-in defaults < config/default.json <
 * config/<NODE_ENV>.json < the --config file < environment < --set < overrides.
 * Throws a ConfigError listing every problem at once, each with its key path and a fix.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const args = splitConfigArgs(options.argv ?? []);
  const problems = new ProblemList(ENTRIES);
  for (const flag of args.missingValues) {
    problems.add({ path: flag, message: 'given without a value', fix: flag === '--config' ? '--config <file.json>' : '--set key.path=value' });
  }
  // convict must not read process.env or process.argv by itself: every layer is applied below, in order.
  const conf = convict(convictSchemaOf(configKeys), { env: {}, args: [] });

  const files = layerFiles(options, env, args.configFile);
  const loaded: string[] = [];
  for (const { path, required } of files) {
    if (!existsSync(path)) {
      if (required) problems.add({ path: '--config', message: `file not found: ${path}`, fix: 'give the path of an existing JSON file' });
      continue;
    }
    const body = readJsonObject(path, problems);
    if (body === undefined) continue;
    try {
      conf.load(body);
      loaded.push(path);
    } catch (error) {
      problems.add({ path: path, message: `cannot merge: ${(error as Error).message}`, fix: 'correct the file' });
    }
  }

  for (const { path, key } of ENTRIES) {
    if (!key.env) continue;
    const text = env[key.env];
    if (text === undefined) continue;
    const coerced = coerceText(key.kind, text);
    if (coerced.ok) conf.set(path, coerced.value);
    else problems.invalidValue(path, `${coerced.message} (from env ${key.env})`);
  }

  for (const assignment of args.sets) applySet(conf, assignment, problems);
  for (const [path, value] of Object.entries(options.overrides ?? {})) {
    if (problems.entryFor(path)) conf.set(path, value);
    else problems.unknownKey(path, 'in overrides');
  }

  let convictError: Error | undefined;
  try {
    conf.validate({ allowed: 'strict' });
  } catch (error) {
    convictError = error as Error;
  }
  const raw = conf.getProperties();
  if (options.liveRequirements !== false) for (const problem of liveRequirements(raw, env)) problems.add(problem);
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) problems.fromZod(parsed.error);
  if (convictError) problems.fromConvict(convictError);
  if (!problems.isEmpty || !parsed.success) throw new ConfigError(problems.items, raw.strategies);
  return { config: parsed.data, files: loaded };
}

function layerFiles(options: LoadConfigOptions, env: NodeJS.ProcessEnv, argvFile: string | undefined) {
  const dir = resolve(options.configDir ?? 'config');
  const out = [{ path: join(dir, 'default.json'), required: false }];
  const nodeEnv = env.NODE_ENV;
  if (nodeEnv && /^[A-Za-z0-9_-]+$/.test(nodeEnv)) out.push({ path: join(dir, `${nodeEnv}.json`), required: false });
  const file = options.configFile ?? argvFile;
  if (file) out.push({ path: resolve(file), required: true });
  return out;
}

function readJsonObject(path: string, problems: ProblemList): Record<string, unknown> | undefined {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    problems.add({ path, message: `not readable JSON: ${(error as Error).message}`, fix: 'correct the file (strict JSON: no comments, no trailing commas)' });
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    problems.add({ path, message: 'the file is not a JSON object', fix: 'write the keys as one object: {"api": {"timeoutMs": 5000}}' });
    return undefined;
  }
  return body as Record<string, unknown>;
}

function applySet(conf: convict.Config<Record<string, unknown>>, assignment: string, problems: ProblemList): void {
  const eq = assignment.indexOf('=');
  if (eq <= 0) {
    // Named by its key-like start only: "--set api.key:<secret>" must not echo the secret.
    const keyPart = /^[A-Za-z0-9_.-]*/.exec(assignment)?.[0] ?? '';
    problems.add({ path: '--set', message: `not key=value: --set ${keyPart ? `${keyPart}…` : '…'} (the value is not shown)`, fix: '--set api.timeoutMs=5000' });
    return;
  }
  const path = assignment.slice(0, eq).trim();
  const text = assignment.slice(eq + 1);
  const entry = problems.entryFor(path);
  if (!entry) {
    problems.unknownKey(path, 'from --set');
    return;
  }
  if (entry.path !== path) {
    conf.set(path, coerceFreeForm(text));
    return;
  }
  const coerced = coerceText(entry.key.kind, text);
  if (coerced.ok) conf.set(path, coerced.value);
  else problems.invalidValue(path, `${coerced.message} (from --set)`);
}
