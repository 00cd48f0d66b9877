/** The configuration's public surface: load it, show it, describe it. */
export { loadConfig, type LoadConfigOptions } from './load.ts';
export { maskedConfig } from './mask.ts';
export { configSchema, configKeys, type Config } from './schema.ts';
export { ConfigError, isConfigError, formatProblems, type ConfigProblem } from './errors.ts';
export { splitConfigArgs } from './args.ts';
