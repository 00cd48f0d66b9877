import type { Config } from '../config/index.ts';
import { maskUrlSecrets } from '../config/mask-url.ts';
import { configuredRedisUrl } from '../kernel/redis-sentinel.ts';
import { knownLocalRedis, redisAnswers, RedisUnavailable, startLocalRedis } from './local-redis.ts';
import type { Logger } from '../kernel/logger.ts';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

interface RedisChoice {
  readonly url: string;
  /** Why this one, in words the operator reads in the log ("REDIS_URL", "the default URL", ...). */
  readonly why: string;
}

interface ChooseRedisOptions {
  readonly config: Config;
  readonly env: NodeJS.ProcessEnv;
  /** Where paper mode keeps its own Redis (default ./var → ./var/redis). */
  readonly varDir: string;
  /** `stratd run` may start its own Redis; the other commands only find one. */
  readonly mayStart: boolean;
  readonly logger: Logger;
}

/**
 * The one rule by which every command picks the deployment's Redis, so `stratd pause` reaches
 * the Redis `stratd run` uses:
 * 1. REDIS_URL, a configured redis.url, or live/dry-run mode: that URL and nothing else;
 * 2. paper mode with nothing configured, and ./var/redis holds stratd's own Redis: that one. If it
 *    is not running while a different server answers at the default URL, refuse rather than
 *    silently trade on (or pause) another Redis; if nothing answers, `run` starts it again on its data;
 * 3. otherwise the default URL when it answers; else `run` starts its own under ./var/redis.
 */
export async function chooseRedis(o: ChooseRedisOptions): Promise<RedisChoice> {
  const url = configuredRedisUrl(o.config.redis);
  const why = o.config.redis.sentinels.length > 0 ? 'config redis.sentinels' : o.env.REDIS_URL ? 'REDIS_URL' : url !== DEFAULT_REDIS_URL ? 'config redis.url' : o.config.mode !== 'paper' ? `${o.config.mode} mode uses the configured redis.url only` : undefined;
  if (why) {
    if (await redisAnswers(url)) return { url, why };
    throw new RedisUnavailable(`no Redis answers at ${maskUrlSecrets(url)} (chosen by ${why}); start it${o.env.REDIS_URL ? ', or unset REDIS_URL to let stratd use its own' : ''}`);
  }
  const own = knownLocalRedis(o.varDir);
  if (own !== undefined) {
    if (await redisAnswers(own)) return { url: own, why: `its own Redis under ${o.varDir}/redis` };
    if (await redisAnswers(DEFAULT_REDIS_URL)) {
      throw new RedisUnavailable(
        `${o.varDir}/redis holds this deployment's state, but its Redis (${own}) is not running and a different server answers at ${DEFAULT_REDIS_URL}; ` +
          `stratd will not switch silently. Use the state under ${o.varDir}/redis: stop the other server, or start this one with "redis-server --dir ${o.varDir}/redis --appendonly yes --port ${new URL(own).port}". ` +
          `Use the server at ${DEFAULT_REDIS_URL} instead: set REDIS_URL=${DEFAULT_REDIS_URL}.`,
      );
    }
    if (!o.mayStart) throw new RedisUnavailable(`this deployment's Redis under ${o.varDir}/redis (${own}) is not running; "stratd run" starts it again`);
    return { url: await startLocalRedis(o.varDir, o.logger), why: `its own Redis under ${o.varDir}/redis, restarted on its data` };
  }
  if (await redisAnswers(DEFAULT_REDIS_URL)) return { url: DEFAULT_REDIS_URL, why: 'the default URL (nothing configured)' };
  if (!o.mayStart) throw new RedisUnavailable(`no Redis answers at ${DEFAULT_REDIS_URL} and there is no stratd Redis under ${o.varDir}/redis: is "stratd run" running? Set REDIS_URL to its Redis`);
  return { url: await startLocalRedis(o.varDir, o.logger), why: `no Redis answered at ${DEFAULT_REDIS_URL}, so stratd started its own under ${o.varDir}/redis` };
}
