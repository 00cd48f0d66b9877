import { execFileSync } from 'node:child_process';

/**
 * Whether `redis-server` can be started by a test that needs a throwaway server of its own (to
 * stop, kill or restart it). When it cannot, says so in one line naming the test, which is then
 * skipped; every other test only needs the Redis at REDIS_URL.
 */
export function redisServerInstalled(what: string): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn(`${what} skipped: redis-server is not installed (apt-get install redis-server)`);
    return false;
  }
}
