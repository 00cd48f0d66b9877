// Child process of request-budget.test.ts: makes N calls through a client that shares the
// request budget in Redis with its sibling process.
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { RequestBudget } from '../../src/api/request-budget.ts';
import { connectRedis } from '../../src/kernel/redis.ts';

const [baseUrl, prefix, rps, count] = process.argv.slice(2) as [string, string, string, string];
const redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const client = new ApiClient({ baseUrl, budget: new RequestBudget(redis, { keyPrefix: prefix, requestsPerSecond: Number(rps) }), retries: 0 });
for (let i = 0; i < Number(count); i++) await client.call('perps.poolInfo', { mint: MINTS.SOL });
await client.close();
await redis.quit();
