import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { deleteStrategyState, readStoredStrategyState } from '../../pipeline/strategy-runtime/state.ts';
import { Ledger } from '../../records/ledger.ts';
import { TradingStateStore } from '../../risk/trading-state.ts';
import { strategyName } from '../../sdk/name.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';
import { withDeploymentRedis } from '../deployment-redis.ts';
import { starterStrategy, starterTest } from '../strategy/starter.ts';

const USAGE = `usage:
  stratd strategy new <name> [--dir <strategies dir>]
      Writes <dir>/<name>/index.ts, a commented starter strategy, and <dir>/<name>/<name>.test.ts,
      its test on sample snapshots (dir default: strategies). Never overwrites: an existing
      <dir>/<name> is refused. Enable it with --set strategies.enabled=...,<name>.
  stratd strategy state <name> [--reset] [--config <file>] [--set key=value]
      Prints the state the deployment holds for the strategy (JSON) and when the decision that
      last changed it was made. --reset deletes it, so the strategy starts again with no state (a
      take-profit ladder from its bottom rung, a guard without its cooldowns): the way out of a
      state that no longer parses (state_unreadable). Only while trading is paused (stratd pause);
      the deleted state is printed first, and a decision committed since it was read is never
      deleted unseen.
`;

export const strategyCommand: Command = {
  name: 'strategy',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs('strategy', argv, USAGE, { ...CONFIG_OPTIONS, dir: { type: 'string', default: 'strategies' }, reset: { type: 'boolean' } }, true);
    if (typeof parsed === 'number') return parsed;
    const [verb, name, ...extra] = parsed.positionals;
    if ((verb !== 'new' && verb !== 'state') || !name || extra.length > 0) {
      process.stderr.write(`stratd strategy: expected "new <name>" or "state <name>"\n\n${USAGE}`);
      return EXIT.usage;
    }
    if (!strategyName.safeParse(name).success) {
      process.stderr.write(`stratd strategy: "${name}" is not a strategy name: lower-case letters, digits and "-" (at most 63)\n`);
      return EXIT.usage;
    }
    if (verb === 'state') return showOrReset(name, parsed.values.reset === true, configArgv(parsed.values));
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

/** `stratd strategy state <name> [--reset]`: the deployment's stored state of one strategy. */
function showOrReset(name: string, reset: boolean, argv: string[]): Promise<number> {
  return withDeploymentRedis('strategy', argv, async ({ redis, prefix, config }) => {
    const stored = await readStoredStrategyState(redis, prefix, name);
    if (!stored) {
      process.stdout.write(`strategy ${name}: no state stored under prefix ${config.redis.prefix}\n`);
      return EXIT.ok;
    }
    process.stdout.write(`strategy ${name}: state of the decision made ${new Date(stored.decidedAtMs).toISOString()}\n${JSON.stringify(stored.state, null, 2)}\n`);
    if (!reset) return EXIT.ok;
    // A running strategy decides on the state it reads: the operator stops the trading first, so
    // that nothing is signed on a decision made from the state about to go.
    const trading = await new TradingStateStore(redis, prefix).get();
    if (trading.state === 'active') {
      process.stderr.write(`stratd strategy: trading is active; run stratd pause first, then reset, then stratd resume. Nothing deleted\n`);
      return EXIT.failed;
    }
    if (!(await deleteStrategyState(redis, prefix, name, stored))) {
      process.stderr.write(`stratd strategy: the state of ${name} changed since it was read (a decision was committed); nothing deleted. Look again and repeat\n`);
      return EXIT.failed;
    }
    const by = `cli:${process.env.USER ?? 'operator'}@${hostname()}`;
    await new Ledger(redis, { prefix, maxLen: config.ledger.maxLen }).append({ at: Date.now(), type: 'strategy_state', strategy: name, detail: { event: 'reset', by, deletedDecidedAtMs: stored.decidedAtMs, deletedBytes: stored.text.length } });
    process.stdout.write(`deleted: ${name} starts with no state at its next decision (kept above, to restore by hand if needed)\n`);
    return EXIT.ok;
  });
}
