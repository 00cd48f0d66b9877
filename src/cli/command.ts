import { parseArgs } from 'node:util';

/** One `stratd <name>` command. `run` returns the process exit code. */
export interface Command {
  readonly name: string;
  readonly usage: string;
  run(argv: string[]): Promise<number>;
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failed: 1, usage: 2, rejected: 3 } as const;

type OptionSpec = { readonly type: 'string' | 'boolean'; readonly multiple?: boolean; readonly short?: string; readonly default?: string | boolean | string[] };

/** Options every command that reads configuration accepts. */
export const CONFIG_OPTIONS = {
  config: { type: 'string' },
  set: { type: 'string', multiple: true },
} as const satisfies Record<string, OptionSpec>;

/** `--config f --set a=b` as loadConfig's argv. */
export function configArgv(values: { readonly config?: string; readonly set?: readonly string[] }): string[] {
  return [...(values.config ? ['--config', values.config] : []), ...(values.set ?? []).flatMap((s) => ['--set', s])];
}

/**
 * Parses a command's arguments the same way everywhere: `--help` prints the usage (exit 0), a bad
 * option prints the error and the usage (exit 2). Answers the parsed values, or the exit code.
 */
export function parseCommandArgs<const O extends Record<string, OptionSpec>>(
  name: string,
  argv: string[],
  usage: string,
  options: O,
  allowPositionals = false,
): { values: ReturnType<typeof parseArgs<{ args: string[]; options: O & { help: { type: 'boolean' } }; allowPositionals: boolean }>>['values']; positionals: string[] } | number {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } } as O & { help: { type: 'boolean' } }, allowPositionals });
  } catch (error) {
    process.stderr.write(`stratd ${name}: ${(error as Error).message}\n\n${usage}`);
    return EXIT.usage;
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return EXIT.ok;
  }
  return parsed;
}
