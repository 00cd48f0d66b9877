import type { Redis } from 'ioredis';
import { formatProblems, isConfigError, loadConfig, type Config } from '../config/index.ts';
import { maskUrlSecrets } from '../config/mask-url.ts';
import { RedisUnavailable } from '../ops/local-redis.ts';
import { silentLogger } from '../kernel/logger.ts';
import { chooseRedis } from '../ops/redis-choice.ts';
import { closeRedis, connectRedis, hashTaggedPrefix } from '../kernel/redis.ts';
import { EXIT } from './command.ts';

export interface DeploymentRedis {
  readonly config: Config;
  readonly redis: Redis;
  /** The Redis URL, credentials masked, for messages. */
  readonly shownUrl: string;
  /** The hash-tagged key prefix of the deployment, e.g. "{stratd}:". */
  readonly prefix: string;
  close(): Promise<void>;
}

/**
 * The Redis of the deployment the operator means, for commands that talk to a running daemon
 * (pause, resume, actions): chosen by the same rule as `stratd run` (src/ops/redis-choice.ts),
 * never started by these commands.
 */
async function openDeploymentRedis(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, varDir = 'var'): Promise<DeploymentRedis> {
  const { config } = loadConfig({ argv, env });
  const { url } = await chooseRedis({ config, env, varDir, mayStart: false, logger: silentLogger });
  // A few quick retries, then a command fails with one error instead of waiting for Redis forever.
  const redis = connectRedis(url, { maxRetriesPerRequest: 2, connectTimeout: 3_000, retryStrategy: (times) => (times > 3 ? null : 200 * times) });
  redis.on('error', () => {
    // Reported once, by the command that fails (withDeploymentRedis); not as ioredis's unhandled-error stack.
  });
  return {
    config,
    redis,
    shownUrl: maskUrlSecrets(url),
    prefix: hashTaggedPrefix(config.redis.prefix),
    close: async () => {
      if (redis.status === 'ready') await closeRedis(redis);
      else redis.disconnect();
    },
  };
}

/** What ioredis throws when the server is gone or refuses: ends a command in one line. */
function isRedisFailure(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  if (['ReplyError', 'MaxRetriesPerRequestError', 'AbortError'].includes(error.name)) return true;
  return /Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|NOAUTH|WRONGPASS|Stream isn't writeable/.test(error.message);
}

/**
 * Runs a command against the deployment's Redis. Configuration problems print their list, and any
 * Redis failure — none answers, it goes away mid-command, it refuses — ends in one clear line
 * and exit code 1, never a stack trace.
 */
export async function withDeploymentRedis(name: string, argv: readonly string[], act: (deployment: DeploymentRedis) => Promise<number>): Promise<number> {
  let deployment: DeploymentRedis;
  try {
    deployment = await openDeploymentRedis(argv);
  } catch (error) {
    if (isConfigError(error)) {
      process.stderr.write(`stratd ${name}: the configuration has problems:\n${formatProblems(error.problems)}`);
      return EXIT.failed;
    }
    if (error instanceof RedisUnavailable) {
      process.stderr.write(`stratd ${name}: ${error.message}\n`);
      return EXIT.failed;
    }
    throw error;
  }
  try {
    return await act(deployment);
  } catch (error) {
    if (isRedisFailure(error)) {
      process.stderr.write(`stratd ${name}: Redis at ${deployment.shownUrl} failed: ${error.message.split('\n')[0]}\n`);
      return EXIT.failed;
    }
    throw error;
  } finally {
    await deployment.close();
  }
}
