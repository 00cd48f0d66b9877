// Operator mistakes: the wallet key pasted where a path, a variable name or a --set belongs. For
// each configuration entry point (environment, --set, --set with a colon typo, config file) the
// real `stratd config show`, `config check` and `run` are started, and everything they print
// (stdout, stderr, the fatal log line) is searched for the key in every encoding. The search is
// first shown to find the key in what was passed in.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.ts';
import { findSecret, secretKeyEncodings } from './support/secret-key-encodings.ts';

const keypair = Keypair.generate();
const encodings = secretKeyEncodings(keypair.secretKey);
const base58Key = bs58.encode(keypair.secretKey);
const jsonKey = JSON.stringify(Array.from(keypair.secretKey));
let dir = '';

/** What makes `run` reach the wallet: live mode with its other requirements met (nothing is reachable). */
const LIVE = ['--set', 'mode=live', '--set', 'api.key=test-api-key', '--set', 'rpc.url=http://127.0.0.1:9', '--set', `redis.prefix=stratd-test-keyentry-${process.pid}`];

interface EntryPoint {
  readonly name: string;
  /** The key path the outputs must still name (the mistake is reported, just not echoed). */
  readonly names: string;
  readonly args: () => string[];
  readonly env?: () => NodeJS.ProcessEnv;
}

const entryPoints: EntryPoint[] = [
  { name: 'STRATD_WALLET_KEY_FILE holding the base58 key', names: 'the key file does not exist', args: () => [], env: () => ({ STRATD_WALLET_KEY_FILE: base58Key }) },
  { name: 'STRATD_WALLET_KEY_FILE holding the JSON array', names: 'the key file does not exist', args: () => [], env: () => ({ STRATD_WALLET_KEY_FILE: jsonKey }) },
  { name: '--set wallet.keyEnv=<key>', names: 'wallet.keyEnv', args: () => ['--set', `wallet.keyEnv=${base58Key}`] },
  { name: '--set wallet.keyFile:<key> (colon typo)', names: '--set wallet.keyFile', args: () => ['--set', `wallet.keyFile:${base58Key}`] },
  { name: '--set api.key:<key> (colon typo)', names: '--set api.key', args: () => ['--set', `api.key:${base58Key}`] },
  { name: 'a config file with the key as wallet.keyFile', names: 'the key file does not exist', args: () => ['--config', join(dir, 'key-as-path.json')] },
  { name: 'a config file with the JSON array as wallet.keyEnv', names: 'wallet.keyEnv', args: () => ['--config', join(dir, 'key-as-env.json')] },
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratd-keyentry-'));
  await writeFile(join(dir, 'key-as-path.json'), JSON.stringify({ wallet: { keyFile: base58Key } }));
  await writeFile(join(dir, 'key-as-env.json'), JSON.stringify({ wallet: { keyEnv: jsonKey } }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function leaks(where: string, result: CliResult): string[] {
  return [...findSecret(`${where} stdout`, result.stdout, encodings), ...findSecret(`${where} stderr`, result.stderr, encodings)].map((f) => `${f.where}: ${f.encoding}`);
}

describe('a wallet key pasted into a configuration entry point is never printed', () => {
  it('the search finds the key as it was pasted', () => {
    expect(findSecret('base58', base58Key, encodings).map((f) => f.encoding)).toContain('base58 secret');
    expect(findSecret('json', jsonKey, encodings).map((f) => f.encoding)).toContain('keygen JSON array');
  });

  for (const entry of entryPoints) {
    it(`${entry.name}: config show, config check and run print no encoding of it`, async () => {
      const env = { ...(entry.env?.() ?? {}), STRATD_WALLET_KEY: '' };
      const [show, check, run] = await Promise.all([
        runCli(['config', 'show', '--json', ...entry.args()], { env, timeoutMs: 30_000 }),
        runCli(['config', 'check', ...LIVE, ...entry.args()], { env, timeoutMs: 30_000 }),
        runCli(['run', ...LIVE, ...entry.args()], { env, timeoutMs: 30_000 }),
      ]);
      expect([...leaks('config show', show), ...leaks('config check', check), ...leaks('run', run)]).toEqual([]);
      // The mistake is still reported (by key, path role or kind), and run refuses to start.
      expect(run.code, run.stdout + run.stderr).not.toBe(0);
      expect(`${show.stdout}${show.stderr}${check.stdout}${check.stderr}${run.stdout}${run.stderr}`).toContain(entry.names);
    }, 60_000);
  }

  // A base58 secret key is letters and digits: when it starts with a letter (about one key in
  // five) it is a valid variable name by shape. It must still be refused as key material.
  it('--set wallet.keyEnv=<a key that is also a valid variable name>: refused, naming the setting, not the key', async () => {
    let letterKey = '';
    while (!/^[A-Za-z]/.test(letterKey)) letterKey = bs58.encode(Keypair.generate().secretKey);
    const found = secretKeyEncodings(bs58.decode(letterKey));
    const check = await runCli(['config', 'check', ...LIVE, '--set', `wallet.keyEnv=${letterKey}`], { env: { STRATD_WALLET_KEY: '' }, timeoutMs: 30_000 });
    expect(check.code).not.toBe(0);
    expect(check.stdout + check.stderr).toContain('wallet.keyEnv: looks like a secret key');
    expect([...findSecret('check stdout', check.stdout, found), ...findSecret('check stderr', check.stderr, found)]).toEqual([]);
  }, 60_000);

  // ioredis reads a password from ?password= as well as from the user info; a Redis that does not
  // answer makes `run` refuse with the URL in its message, and the fatal log line repeats it.
  it('REDIS_URL with the password as ?password= or in the user info, nothing answering: config show, check and run print neither', async () => {
    const password = `redis-entry-pw-${process.pid}-9e41`;
    for (const url of [`redis://127.0.0.1:1/0?password=${password}`, `redis://:${password}@127.0.0.1:1/0`]) {
      const env = { REDIS_URL: url, STRATD_WALLET_KEY: '' };
      const [show, check, run] = await Promise.all([
        runCli(['config', 'show'], { env, timeoutMs: 30_000 }),
        runCli(['config', 'check'], { env, timeoutMs: 30_000 }),
        runCli(['run', '--set', `redis.prefix=stratd-test-keyentry-redis-${process.pid}`], { env, timeoutMs: 30_000 }),
      ]);
      expect(run.code, run.stdout + run.stderr).not.toBe(0);
      expect(run.stdout + run.stderr, url).toContain('no Redis answers at redis://');
      for (const [name, result] of Object.entries({ show, check, run })) expect(result.stdout + result.stderr, `${name} ${url}`).not.toContain(password);
    }
  }, 60_000);

  // Paper mode creates its wallet at wallet.paperKeyFile: a key pasted there must neither be
  // logged as the new wallet's path nor become a file name.
  it('STRATD_PAPER_KEY_FILE holding the key: paper run refuses to start, prints no encoding of it and creates no file', async () => {
    const env = { STRATD_PAPER_KEY_FILE: base58Key, STRATD_WALLET_KEY: '' };
    const paper = ['--set', `redis.prefix=stratd-test-keyentry-paper-${process.pid}`];
    const [show, run] = await Promise.all([
      runCli(['config', 'show', '--json'], { env, timeoutMs: 30_000 }),
      runCli(['run', ...paper], { env, timeoutMs: 30_000 }),
    ]);
    expect([...leaks('config show', show), ...leaks('run', run)]).toEqual([]);
    expect(run.code, run.stdout + run.stderr).not.toBe(0);
    expect(`${show.stdout}${show.stderr}${run.stdout}${run.stderr}`).toContain('wallet.paperKeyFile');
    expect(existsSync(base58Key)).toBe(false);
  }, 60_000);
});
