import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSentinelUrl } from '../../src/kernel/redis-sentinel.ts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('compose.sentinel.yaml', () => {
  it('runs a primary, a replica of it, three sentinels (quorum 2) and stratd reaching them through the sentinels', async () => {
    const compose = await readFile(join(ROOT, 'compose.sentinel.yaml'), 'utf8');
    for (const service of ['redis-primary', 'redis-replica', 'sentinel-1', 'sentinel-2', 'sentinel-3', 'stratd']) expect(compose).toMatch(new RegExp(`^  ${service}:$`, 'm'));
    expect(compose).toMatch(/--replicaof, redis-primary, "6379"/);
    const monitor = /sentinel monitor (\S+) redis-primary 6379 (\d+)/.exec(compose);
    expect(monitor?.[2]).toBe('2');
    // Both data nodes may be the primary: both keep noeviction with an explicit limit, as compose.yaml.
    expect(compose.match(/--maxmemory-policy, noeviction/g)).toHaveLength(2);
    const url = /REDIS_URL: (\S+)/.exec(compose)?.[1];
    const target = parseSentinelUrl(url!);
    expect(target.name).toBe(monitor?.[1]);
    expect(target.sentinels.map((s) => `${s.host}:${s.port}`)).toEqual(['sentinel-1:26379', 'sentinel-2:26379', 'sentinel-3:26379']);
  });
});
