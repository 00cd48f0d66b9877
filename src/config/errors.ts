/** One thing wrong with the configuration: the key, what is wrong, and what to do about it. */
export interface ConfigProblem {
  /** Dotted key path ("api.timeoutMs"); "(file)" style names for problems that are not a key. */
  readonly path: string;
  readonly message: string;
  readonly fix: string;
}

/** The configuration cannot be used; `problems` lists every reason at once. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly kind = 'invalid_config' as const;
  readonly problems: readonly ConfigProblem[];

  /**
   * The merged strategies section despite the problems, so `config check` can also check the
   * strategies' own settings. Not enumerable: it stays out of logs that serialise the error.
   */
  declare readonly strategies?: unknown;

  constructor(problems: readonly ConfigProblem[], strategies?: unknown) {
    super(`invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${formatProblems(problems)}`);
    this.problems = problems;
    Object.defineProperty(this, 'strategies', { value: strategies, enumerable: false });
  }
}

export function isConfigError(value: unknown): value is ConfigError {
  return value instanceof ConfigError;
}

export function formatProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => `  ${p.path}: ${p.message}\n    fix: ${p.fix}`).join('\n');
}
