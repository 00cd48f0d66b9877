// `npm run chaos -- [--duration 10m] [--daemons 3] [--seed 7] [--short]`: the chaos and fault
// suite of issue 8 (docs/operations.md, "Chaos suite"). Exit code 0 when every goal is met, 1
// when one is missed, 2 on a usage error or a run that could not be carried out, 130 on Ctrl-C.
import { ChaosUsageError, chaosOptionsFromArgs } from './options.ts';
import { ChaosAborted, runChaos } from './orchestrator.ts';
import { formatReport, writeReport } from './report.ts';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let opts;
  try {
    opts = chaosOptionsFromArgs(argv);
  } catch (error) {
    if (error instanceof ChaosUsageError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) {
      console.error('chaos: interrupted; stopping every process it started (again to force)');
      controller.abort();
    } else {
      process.exit(130); // the exit handler SIGKILLs every child
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const command = `npm run chaos${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  const log = (line: string) => {
    if (opts.verbose) console.error(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);
  };
  try {
    const report = await runChaos(opts, command, controller.signal, log);
    console.log(formatReport(report));
    console.log(`\nJSON: ${await writeReport(report, opts.resultsDir)}`);
    return report.goalsMet ? 0 : 1;
  } catch (error) {
    if (error instanceof ChaosAborted) return 130;
    console.error(`chaos: the run could not be carried out: ${(error as Error).stack ?? String(error)}`);
    return 2;
  }
}

// Exit explicitly: a run cut short may leave a timer behind; every child is already stopped.
process.exit(await main());
