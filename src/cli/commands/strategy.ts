import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { strategyName } from '../../sdk/name.ts';
import { EXIT, parseCommandArgs, type Command } from '../command.ts';
import { starterStrategy, starterTest } from '../strategy/starter.ts';

const USAGE = `usage:
  stratd strategy new <name> [--dir <strategies dir>]
      Writes <dir>/<name>/index.ts, a commented starter strategy, and <dir>/<name>/<name>.test.ts,
      its test on sample snapshots (dir default: strategies). Never overwrites: an existing
      <dir>/<name> is refused. Enable it with --set strategies.enabled=...,<name>.
`;

export const strategyCommand: Command = {
  name: 'strategy',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs('strategy', argv, USAGE, { dir: { type: 'string', default: 'strategies' } }, true);
    if (typeof parsed === 'number') return parsed;
    const [verb, name, ...extra] = parsed.positionals;
    if (verb !== 'new' || !name || extra.length > 0) {
      process.stderr.write(`stratd strategy: expected "new <name>"\n\n${USAGE}`);
      return EXIT.usage;
    }
    if (!strategyName.safeParse(name).success) {
      process.stderr.write(`stratd strategy: "${name}" is not a strategy name: lower-case letters, digits and "-" (at most 63)\n`);
      return EXIT.usage;
    }
    const dir = resolve(parsed.values.dir ?? 'strategies', name);
    if (existsSync(dir)) {
      process.stderr.write(`stratd strategy: ${dir} already exists; nothing written\n`);
      return EXIT.failed;
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'index.ts'), starterStrategy(name), { flag: 'wx' });
    writeFileSync(join(dir, `${name}.test.ts`), starterTest(name), { flag: 'wx' });
    process.stdout.write(`wrote ${join(dir, 'index.ts')}\nwrote ${join(dir, `${name}.test.ts`)}\nenable it: add "${name}" to strategies.enabled (config/default.json, or STRATD_STRATEGIES), keeping the strategies already there\n`);
    return EXIT.ok;
  },
};
