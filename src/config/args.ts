/** The configuration flags any command accepts: `--config <file>` and repeated `--set key.path=value`. */
interface ConfigArgs {
  readonly configFile?: string;
  readonly sets: readonly string[];
  /** Everything else, in order, for the command's own parser. */
  readonly rest: readonly string[];
  /** Flags given without their value. */
  readonly missingValues: readonly string[];
}

export function splitConfigArgs(argv: readonly string[]): ConfigArgs {
  let configFile: string | undefined;
  const sets: string[] = [];
  const rest: string[] = [];
  const missingValues: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (flag !== '--config' && flag !== '--set') {
      rest.push(arg);
      continue;
    }
    const value = inline ?? argv[i + 1];
    if (inline === undefined) i++;
    if (value === undefined || (inline === undefined && value.startsWith('--'))) {
      missingValues.push(flag);
      if (value !== undefined) i--;
      continue;
    }
    if (flag === '--config') configFile = value;
    else sets.push(value);
  }
  return { configFile, sets, rest, missingValues };
}
