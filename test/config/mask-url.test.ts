import { describe, expect, it } from 'vitest';
import { maskUrlSecrets, maskUrlSecretsIn } from '../../src/config/mask-url.ts';

describe('maskUrlSecrets: the one masking function for URLs that may hold secrets', () => {
  it('keeps scheme, host, port and a Redis database number; masks user info, query values, path and fragment', () => {
    expect(maskUrlSecrets('redis://:pw-1@127.0.0.1:6379/0')).toBe('redis://:[redacted]@127.0.0.1:6379/0');
    expect(maskUrlSecrets('redis://127.0.0.1:6379/0?password=pw-2')).toBe('redis://127.0.0.1:6379/0?password=[redacted]');
    expect(maskUrlSecrets('redis://default:pw-3@127.0.0.1:6379')).toBe('redis://[redacted]:[redacted]@127.0.0.1:6379');
    expect(maskUrlSecrets('https://rpc.example.com/key-4/?api-key=key-5#token-6')).toBe('https://rpc.example.com/[redacted]?api-key=[redacted]#[redacted]');
    expect(maskUrlSecrets('not a url key-7')).toBe('[redacted]');
  });

  it('does not throw on a stray "%" that is no valid escape, and masks it away', () => {
    expect(maskUrlSecrets('https://h.example/p#frag%E0-key-8')).toBe('https://h.example/[redacted]#[redacted]');
    expect(maskUrlSecrets('redis://u:p%E0-key-9@h:1/0')).toBe('redis://[redacted]:[redacted]@h:1/0');
  });
});

describe('maskUrlSecretsIn: text that mentions a URL', () => {
  const url = 'https://hooks.example/hooks/long-path-token-1?key=long-query-token-2&v=1';

  it('masks every URL in the text, and the URL’s own path, long segments and query values where they stand alone', () => {
    const text = `Cannot POST /hooks/long-path-token-1; see ${url} (long-query-token-2) v1 HTTP 401 other http://u:pw-3@x.example/a?b=c`;
    const masked = maskUrlSecretsIn(text, url);
    for (const secret of ['long-path-token-1', 'long-query-token-2', 'pw-3']) expect(masked).not.toContain(secret);
    // Short parts (a flag "1", a "hooks" segment) are not hunted everywhere: the text stays readable.
    expect(masked).toContain('HTTP 401');
    expect(masked).toContain('https://hooks.example/[redacted]?key=[redacted]&v=[redacted]');
  });
});
