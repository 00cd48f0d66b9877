import type { Redis } from 'ioredis';
import { loadConfig, type Config } from '../config/index.ts';
import { knownLocalRedis, redisAnswers } from '../ops/local-redis.ts';
import { connectRedis, hashTaggedPrefix } from '../pipeline/redis.ts';

export interface DeploymentRedis {
  readonly config: Config;
  readonly redis: Redis;
  /** The hash-tagged key prefix of the deployment, e.g. "{stratd}:". */
  readonly prefix: string;
  close(): Promise<void>;
}

/**
 * The Redis of the deployment the operator means, for commands that talk to a running daemon
 * (pause, resume, actions): the configured URL, or — in paper mode with nothing configured — the
 * Redis that `stratd run` started under ./var/redis.
 */
export async function openDeploymentRedis(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<DeploymentRedis> {
  const { config } = loadConfig({ argv, env });
  let url = config.redis.url;
  if (!env.REDIS_URL && !(await redisAnswers(url))) url = knownLocalRedis('var') ?? url;
  const redis = connectRedis(url, { maxRetriesPerRequest: 2, connectTimeout: 3_000 });
  return {
    config,
    redis,
    prefix: hashTaggedPrefix(config.redis.prefix),
    close: async () => {
      await redis.quit();
    },
  };
}
