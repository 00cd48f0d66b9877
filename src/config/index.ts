/** The configuration's public surface: load it, show it, describe it. */
export { loadConfig, type LoadConfigOptions, type LoadedConfig } from './load.ts';
export { maskedConfig, REDACTED } from './mask.ts';
export { configSchema, configKeys, type Config, type ConfigInput, type Mode } from './schema.ts';
export { ConfigError, isConfigError, formatProblems, type ConfigProblem } from './errors.ts';
export { splitConfigArgs, type ConfigArgs } from './args.ts';
