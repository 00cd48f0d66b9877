import { KeyFileError } from '../../chain/signer.ts';
import { formatProblems, isConfigError, loadConfig } from '../../config/index.ts';
import { maskUrlSecrets } from '../../config/mask-url.ts';
import { startDaemon, ROLES, type Daemon, type Role } from '../../daemon/daemon.ts';
import { failpointsFromEnv } from '../../daemon/failpoint.ts';
import { PaperLockedError } from '../../paper/lock.ts';
import { PaperSetupError } from '../../paper/setup-error.ts';
import { OpsServerError } from '../../ops/http-server.ts';
import { RedisUnavailable } from '../../ops/local-redis.ts';
import { createLogger } from '../../kernel/logger.ts';
import { RUNTIME } from '../../kernel/runtime.ts';
import { formatCheck, PreflightError } from '../../ops/preflight.ts';
import { StrategyLoadError } from '../../pipeline/strategy-runtime/loader.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';

const USAGE = `usage: stratd run [--role pollers|strategies|executor ...] [--record <file>] [--config <file>] [--set key.path=value ...]
  Runs the daemon. Without --role, every role runs in this process. Give --role (repeatable, or
  comma-separated) to split roles across processes and machines that share one Redis.
  Mode comes from config (mode, env STRATD_MODE): paper (default), live, dry-run.
  --record <file>: append every snapshot this process's pollers read to a recording (stratd replay).
  Stops gracefully on SIGTERM/SIGINT within shutdown.graceMs. SIGHUP (or "stratd reload") re-reads
  the configuration and the strategies: applied whole between jobs, or refused whole (log, ledger).
`;

export const runCommand: Command = {
  name: 'run',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs('run', argv, USAGE, { ...CONFIG_OPTIONS, role: { type: 'string', multiple: true }, record: { type: 'string' } });
    if (typeof parsed === 'number') return parsed;
    const { values } = parsed;
    const roles = (values.role ?? []).flatMap((r) => r.split(',')).map((r) => r.trim()).filter(Boolean);
    const unknown = roles.filter((r) => !(ROLES as readonly string[]).includes(r));
    if (unknown.length) {
      process.stderr.write(`unknown role(s): ${unknown.join(', ')}; expected ${ROLES.join(', ')}\n`);
      return EXIT.usage;
    }

    let config;
    try {
      ({ config } = loadConfig({ argv: configArgv(values) }));
    } catch (error) {
      if (isConfigError(error)) {
        process.stderr.write(`stratd: the configuration has problems:\n${formatProblems(error.problems)}`);
        return EXIT.failed;
      }
      throw error;
    }
    const logger = createLogger({ level: config.log.level, format: config.log.format });
    // Crash-only: an error nobody handled ends the process (pm2/Docker restart it, and start-up
    // reconciles every unfinished action), never a silently half-working daemon.
    process.on('unhandledRejection', (reason) => {
      logger.fatal({ err: reason }, 'unhandled rejection; exiting');
      process.exit(70);
    });
    process.on('uncaughtException', (error) => {
      logger.fatal({ err: error }, 'uncaught exception; exiting');
      process.exit(70);
    });

    let daemon: Daemon | undefined;
    // Installed before start-up: a SIGTERM while the roles start (the executor may already be
    // driving recovered actions) stops gracefully once started, instead of killing the process.
    let pendingSignal: string | undefined;
    let onSignal = (signal: string) => {
      pendingSignal ??= signal;
    };
    process.once('SIGTERM', () => onSignal('SIGTERM'));
    process.once('SIGINT', () => onSignal('SIGINT'));
    // SIGHUP would end the process by default: it means "reload" here, never "stop".
    process.on('SIGHUP', () => {
      if (!daemon) {
        logger.warn('SIGHUP during start-up ignored; send it again once stratd is running');
        return;
      }
      void daemon.reload('SIGHUP');
    });
    const readConfig = () => loadConfig({ argv: configArgv(values) }).config;
    try {
      daemon = await startDaemon({ config, roles: roles.length ? (roles as Role[]) : [...ROLES], logger, readConfig, recordPath: values.record, ...failpointsFromEnv(process.env) });
    } catch (error) {
      if (error instanceof PreflightError) {
        logger.fatal({ kind: error.kind, failed: error.checks.filter((c) => !c.ok).map((c) => c.check) }, error.message);
        process.stderr.write(`stratd: not starting: the preflight failed (run "stratd doctor" to check again)\n${error.checks.filter((c) => !c.ok).map((c) => `${formatCheck(c)}\n`).join('')}`);
        return EXIT.failed;
      }
      if (error instanceof RedisUnavailable || error instanceof OpsServerError || error instanceof KeyFileError || error instanceof StrategyLoadError || error instanceof PaperSetupError || error instanceof PaperLockedError || isConfigError(error)) {
        logger.fatal({ kind: (error as { kind?: string }).kind }, error.message);
        process.stderr.write(`stratd: ${error.message}\n`);
        return EXIT.failed;
      }
      throw error;
    }
    logger.info({ runtime: RUNTIME, wallet: daemon.wallet, redis: maskUrlSecrets(daemon.redisUrl), venue: daemon.venue?.apiUrl }, 'stratd running; watch it with "npx stratd actions"');

    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal, graceMs: config.shutdown.graceMs }, 'stopping');
        const deadline = setTimeout(() => {
          logger.error({ graceMs: config.shutdown.graceMs }, 'shutdown grace period exceeded; exiting');
          process.exit(1);
        }, config.shutdown.graceMs);
        deadline.unref();
        daemon
          .stop()
          .catch((error: unknown) => logger.error({ err: error }, 'error while stopping'))
          .finally(() => {
            clearTimeout(deadline);
            logger.info('stopped');
            resolve();
          });
      };
      onSignal = stop;
      if (pendingSignal) stop(pendingSignal);
    });
    return EXIT.ok;
  },
};
