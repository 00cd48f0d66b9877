import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { capturedLogger } from '../support/captured-logger.ts';

describe('logger redaction', () => {
  it('censors the API key, auth headers and key material wherever they travel', () => {
    const { lines, logger } = capturedLogger();
    const secret = 'sk-live-7f3a9c0d';
    logger.info({ apiKey: secret, config: { apiKey: secret }, headers: { 'x-api-key': secret, authorization: `Bearer ${secret}` } }, 'call');
    logger.warn({ req: { headers: { 'x-api-key': secret, authorization: secret } } }, 'request');
    logger.error({ wallet: { key: secret }, secretKey: secret, keypair: secret, password: secret }, 'boom');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).not.toContain(secret);
      expect(line).toContain('[redacted]');
    }
  });

  it('censors the Redis password that an ioredis error carries in its failed AUTH/HELLO command', async () => {
    const password = 'logger-redis-pw-0c4e19ab';
    // A user the real server does not know: it refuses the handshake, and ioredis reports the command.
    const redis = new Redis(redisUrlFromEnv(), { username: 'stratd-no-such-user', password, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const refused = new Promise<Error>((resolve) => redis.once('error', resolve));
    await redis.connect().catch(() => undefined);
    const error = await refused;
    redis.disconnect();
    expect(JSON.stringify((error as Error & { command?: unknown }).command)).toContain(password);
    const { lines, logger } = capturedLogger();
    logger.warn({ err: error }, 'redis error');
    logger.warn({ queue: { err: error } }, 'nested');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('WRONGPASS');
    for (const line of lines) {
      expect(line).toContain('"args":"[redacted]"');
      expect(line).not.toContain(password);
    }
  });

  it('keeps what is not secret', () => {
    const { lines, logger } = capturedLogger();
    logger.info({ wallet: 'devjnEpxbJUhJ39FSsFz7YPerr5bdxN8VWUXvfbFUK4', signature: 'abc' }, 'ok');
    expect(lines[0]).toContain('devjnEpxbJUhJ39FSsFz7YPerr5bdxN8VWUXvfbFUK4');
    expect(lines[0]).toContain('"signature":"abc"');
  });
});

describe('log format', () => {
  it('auto is pretty on a terminal and JSON lines otherwise; json and pretty override', async () => {
    const { wantsPretty } = await import('../../src/kernel/logger.ts');
    expect(wantsPretty('auto', true)).toBe(true);
    expect(wantsPretty('auto', false)).toBe(false);
    expect(wantsPretty('json', true)).toBe(false);
    expect(wantsPretty('pretty', false)).toBe(true);
  });
});
