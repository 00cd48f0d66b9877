import type { Redis } from 'ioredis';

/** Every byte one Redis key holds: its name, and each member/field/value of its type. */
export interface RedisKeyContent {
  readonly key: string;
  readonly type: string;
  readonly parts: readonly Buffer[];
}

/** A key of a type the reader does not know: the scan would be incomplete, so it fails loudly. */
export class UnreadableRedisType extends Error {
  override readonly name = 'UnreadableRedisType';
  readonly kind = 'unreadable_type';
  constructor(readonly key: string, readonly type: string) {
    super(`key ${key} has type ${type}, which the scan cannot read`);
  }
}

function globEscape(text: string): string {
  return text.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`);
}

/**
 * Every key whose name contains `name` (SCAN, so a large Redis is never blocked). Matching on
 * "contains" rather than on the hash-tagged prefix also catches a key some component might
 * have built from the deployment name another way.
 */
export async function keysContaining(redis: Redis, name: string): Promise<string[]> {
  const keys = new Set<string>();
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `*${globEscape(name)}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of batch) keys.add(key);
  } while (cursor !== '0');
  return [...keys].sort();
}

/** Reads one key whole, as raw bytes, whatever its type. Undefined when it vanished meanwhile. */
export async function readKeyContent(redis: Redis, key: string): Promise<RedisKeyContent | undefined> {
  const type = await redis.type(key);
  const name = Buffer.from(key, 'utf8');
  let parts: Buffer[];
  switch (type) {
    case 'none':
      return undefined;
    case 'string':
      parts = [(await redis.getBuffer(key)) ?? Buffer.alloc(0)];
      break;
    case 'hash':
      parts = Object.entries(await redis.hgetallBuffer(key)).flatMap(([field, value]) => [Buffer.from(field, 'utf8'), value]);
      break;
    case 'list':
      parts = await redis.lrangeBuffer(key, 0, -1);
      break;
    case 'set':
      parts = await redis.smembersBuffer(key);
      break;
    case 'zset':
      // Members with their scores (RESP2: one flat list).
      parts = ((await redis.zrangeBuffer(key, 0, '-1', 'WITHSCORES')) as unknown[]).flat().map((part) => (Buffer.isBuffer(part) ? part : Buffer.from(String(part))));
      break;
    case 'stream':
      parts = (await redis.xrangeBuffer(key, '-', '+')).flatMap(([id, fields]) => [id, ...fields]);
      break;
    default:
      throw new UnreadableRedisType(key, type);
  }
  return { key, type, parts: [name, ...parts] };
}

/** The content of every key whose name contains `name`. */
export async function readEverythingContaining(redis: Redis, name: string): Promise<RedisKeyContent[]> {
  const contents: RedisKeyContent[] = [];
  for (const key of await keysContaining(redis, name)) {
    const content = await readKeyContent(redis, key);
    if (content) contents.push(content);
  }
  return contents;
}

/** Deletes every key whose name contains `name` (a name unique to one test run: only its own keys). */
export async function deleteEverythingContaining(redis: Redis, name: string): Promise<number> {
  const keys = await keysContaining(redis, name);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  return keys.length;
}
