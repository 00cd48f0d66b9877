import { createPublicKey, verify } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import bs58 from 'bs58';
import { Keypair, SystemProgram, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTransaction, readWireTransaction } from '../../src/chain/decode.ts';
import { inspectTransaction, PolicyViolation } from '../../src/chain/policy/index.ts';
import { KeyFileError, LocalKeypairSigner, readKeyFile, signInspected, SignerError, writeKeyFile } from '../../src/chain/signer.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { buildTx, computeBudget, contextFor, productInstruction, randomKey } from './fixtures.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratd-signer-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every text form the secret key could take in output. */
function secretForms(keypair: Keypair): string[] {
  const secret = keypair.secretKey;
  return [
    bs58.encode(secret),
    JSON.stringify(Array.from(secret)),
    Array.from(secret).join(','),
    Buffer.from(secret).toString('hex'),
    Buffer.from(secret).toString('base64'),
    bs58.encode(secret.subarray(0, 32)),
    Array.from(secret.subarray(0, 32)).join(', '),
  ];
}

function expectNoSecret(text: string, keypair: Keypair): void {
  for (const form of secretForms(keypair)) expect(text).not.toContain(form);
}

function verifies(keypair: Keypair, message: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(keypair.publicKey.toBytes()).toString('base64url') }, format: 'jwk' });
  return verify(null, message, key, signature);
}

describe('LocalKeypairSigner', () => {
  it('keeps the key out of JSON, inspect, string forms and own properties', async () => {
    const keypair = Keypair.generate();
    const path = join(dir, 'wallet.json');
    await writeKeyFile(path, keypair);
    const signer = await LocalKeypairSigner.fromKeyFile(path, { mode: 'live' });
    expect(signer.publicKey.equals(keypair.publicKey)).toBe(true);

    const outputs = [
      JSON.stringify(signer),
      JSON.stringify({ nested: { signer } }),
      inspect(signer, { depth: Infinity, showHidden: true }),
      inspect({ signer }, { depth: Infinity, showHidden: true }),
      String(signer),
      `${signer}`,
      JSON.stringify(Object.assign({}, signer)),
      JSON.stringify(structuredClone({ ...signer })),
    ];
    for (const output of outputs) expectNoSecret(output, keypair);
    expect(JSON.parse(JSON.stringify(signer))).toEqual({ signer: 'local', publicKey: keypair.publicKey.toBase58(), mode: 'live' });
    expect(Object.keys(signer).sort()).toEqual(['mode', 'publicKey']);
  });

  it('signs a transaction whose verdict passed, and the signature verifies', async () => {
    const keypair = Keypair.generate();
    const signer = LocalKeypairSigner.fromEnv('WALLET', { mode: 'live', env: { WALLET: bs58.encode(keypair.secretKey) } });
    const tx = buildTx({ payer: keypair.publicKey, version: 0, instructions: [...computeBudget(), productInstruction(PROGRAMS.perps, keypair.publicKey)] });
    const verdict = inspectTransaction(await decodeTransaction(tx), contextFor(keypair.publicKey, 'perps.increase'));
    expect(verdict.ok).toBe(true);
    const signed = await signInspected(signer, readWireTransaction(tx.serialize()), verdict);
    expect(verifies(keypair, tx.message.serialize(), signed.signature)).toBe(true);
    // Node's native Ed25519 signs; Ed25519 is deterministic, so web3.js's own signing agrees byte for byte.
    const reference = VersionedTransaction.deserialize(tx.serialize());
    reference.sign([keypair]);
    expect(Buffer.from(signed.bytes).equals(Buffer.from(reference.serialize()))).toBe(true);
  });

  it('refuses to sign without a passing verdict for exactly this message', async () => {
    const keypair = Keypair.generate();
    const signer = LocalKeypairSigner.fromEnv('WALLET', { mode: 'live', env: { WALLET: JSON.stringify(Array.from(keypair.secretKey)) } });
    const bad = buildTx({
      payer: keypair.publicKey,
      version: 0,
      instructions: [...computeBudget(), productInstruction(PROGRAMS.perps, keypair.publicKey), SystemProgram.transfer({ fromPubkey: keypair.publicKey, toPubkey: randomKey(), lamports: 1n })],
    });
    const rejected = inspectTransaction(await decodeTransaction(bad), contextFor(keypair.publicKey, 'perps.increase'));
    await expect(signInspected(signer, readWireTransaction(bad.serialize()), rejected)).rejects.toBeInstanceOf(PolicyViolation);
    await expect(signInspected(signer, readWireTransaction(bad.serialize()), rejected)).rejects.toMatchObject({ kind: 'policy_violation', violations: [{ rule: 'value_transfer' }] });
    expect(bad.signatures[0]?.every((b) => b === 0)).toBe(true);

    const good = buildTx({ payer: keypair.publicKey, version: 0, instructions: [...computeBudget(), productInstruction(PROGRAMS.perps, keypair.publicKey)] });
    const passed = inspectTransaction(await decodeTransaction(good), contextFor(keypair.publicKey, 'perps.increase'));
    // A passing verdict for one transaction cannot sign another.
    await expect(signInspected(signer, readWireTransaction(bad.serialize()), passed)).rejects.toMatchObject({ name: 'SignerError', kind: 'verdict_mismatch' });
    expect(bad.signatures[0]?.every((b) => b === 0)).toBe(true);
  });

  it('refuses a transaction it is not the fee payer of, and never signs in dry-run mode', async () => {
    const keypair = Keypair.generate();
    const other = Keypair.generate();
    const signer = LocalKeypairSigner.fromEnv('K', { mode: 'live', env: { K: bs58.encode(keypair.secretKey) } });
    const foreign = buildTx({ payer: other.publicKey, version: 0, instructions: [productInstruction(PROGRAMS.perps, other.publicKey)] });
    const verdict = { ok: true, violations: [], messageSha256: (await decodeTransaction(foreign)).messageSha256 };
    const error = await signInspected(signer, readWireTransaction(foreign.serialize()), verdict).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignerError);
    expect((error as SignerError).kind).toBe('wrong_signer');
    expectNoSecret(String((error as Error).message), keypair);

    const dry = LocalKeypairSigner.fromEnv('K', { mode: 'dry-run', env: { K: bs58.encode(keypair.secretKey) } });
    const own = buildTx({ payer: keypair.publicKey, version: 0, instructions: [productInstruction(PROGRAMS.perps, keypair.publicKey)] });
    const ownVerdict = inspectTransaction(await decodeTransaction(own), contextFor(keypair.publicKey, 'perps.increase'));
    await expect(signInspected(dry, readWireTransaction(own.serialize()), ownVerdict)).rejects.toMatchObject({ kind: 'signing_disabled' });
  });

  it('refuses what a signer answers unless it is a 64-byte signature', async () => {
    const keypair = Keypair.generate();
    const tx = buildTx({ payer: keypair.publicKey, version: 0, instructions: [productInstruction(PROGRAMS.perps, keypair.publicKey)] });
    const wire = readWireTransaction(tx.serialize());
    const verdict = { ok: true, violations: [], messageSha256: wire.messageSha256 };
    for (const answer of [new Uint8Array(63), new Uint8Array(64), new Uint8Array(65).fill(1)]) {
      const faulty = { publicKey: keypair.publicKey, signMessage: async () => answer };
      await expect(signInspected(faulty, wire, verdict)).rejects.toMatchObject({ name: 'SignerError', kind: 'invalid_signature' });
    }
  });

  it('scrubs the key variable once loaded, unless told not to', () => {
    const keypair = Keypair.generate();
    const env: NodeJS.ProcessEnv = { STRATD_WALLET_KEY: bs58.encode(keypair.secretKey) };
    const signer = LocalKeypairSigner.fromEnv('STRATD_WALLET_KEY', { mode: 'paper', env });
    expect(signer.publicKey.equals(keypair.publicKey)).toBe(true);
    expect(env.STRATD_WALLET_KEY).toBeUndefined();
    const kept: NodeJS.ProcessEnv = { K: bs58.encode(keypair.secretKey) };
    LocalKeypairSigner.fromEnv('K', { mode: 'paper', env: kept, scrubEnv: false });
    expect(kept.K).toBeDefined();
  });

  it('load() prefers the key file and says what is missing when neither is configured', async () => {
    const fileKey = Keypair.generate();
    const envKey = Keypair.generate();
    const path = join(dir, 'preferred.json');
    await writeKeyFile(path, fileKey);
    const signer = await LocalKeypairSigner.load({ mode: 'live', keyFile: path, env: { STRATD_WALLET_KEY: bs58.encode(envKey.secretKey) } });
    expect(signer.publicKey.equals(fileKey.publicKey)).toBe(true);
    await expect(LocalKeypairSigner.load({ mode: 'live', env: {} })).rejects.toMatchObject({ kind: 'missing', source: 'STRATD_WALLET_KEY' });
  });
});

describe('key files', () => {
  it('writes mode 0600, never overwrites without force, and reads back the same key', async () => {
    const path = join(dir, 'new.json');
    const first = Keypair.generate();
    await writeKeyFile(path, first);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const text = await readFile(path, 'utf8');
    expect(JSON.parse(text)).toHaveLength(64);

    await expect(writeKeyFile(path, Keypair.generate())).rejects.toMatchObject({ kind: 'exists' });
    expect((await readKeyFile(path, 'live')).publicKey.equals(first.publicKey)).toBe(true);

    const second = Keypair.generate();
    await chmod(path, 0o644);
    await writeKeyFile(path, second, { force: true });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readKeyFile(path, 'live')).publicKey.equals(second.publicKey)).toBe(true);
  });

  it('refuses a key file that group or others can read in live mode only', async () => {
    const keypair = Keypair.generate();
    const path = join(dir, 'open.json');
    await writeKeyFile(path, keypair);
    for (const mode of [0o644, 0o640, 0o604, 0o660, 0o602]) {
      await chmod(path, mode);
      const error = await readKeyFile(path, 'live').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KeyFileError);
      expect(error).toMatchObject({ kind: 'insecure_permissions', message: expect.stringContaining(mode.toString(8)) });
      expectNoSecret(String((error as Error).message) + inspect(error), keypair);
      expect((await readKeyFile(path, 'paper')).publicKey.equals(keypair.publicKey)).toBe(true);
    }
    await chmod(path, 0o400);
    expect((await readKeyFile(path, 'live')).publicKey.equals(keypair.publicKey)).toBe(true);
  });

  it('explains a bad key without echoing it', async () => {
    const keypair = Keypair.generate();
    const secret = Array.from(keypair.secretKey);
    const mismatched = [...secret.slice(0, 32), ...Array.from(Keypair.generate().publicKey.toBytes())];
    const variants: Array<[string, string]> = [
      ['short array', JSON.stringify(secret.slice(0, 63))],
      ['not JSON', `[${secret.join(',')},]x`],
      ['out of range', JSON.stringify([...secret.slice(0, 63), 256])],
      ['mismatched halves', JSON.stringify(mismatched)],
      ['bad base58', `${bs58.encode(keypair.secretKey)}0OIl`],
      ['short base58', bs58.encode(keypair.secretKey.subarray(0, 40))],
    ];
    for (const [name, content] of variants) {
      const path = join(dir, `bad-${name.replaceAll(' ', '-')}.json`);
      await writeFile(path, content, { mode: 0o600 });
      const error = await readKeyFile(path, 'live').catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(KeyFileError);
      expect(['invalid_format', 'invalid_key']).toContain((error as KeyFileError).kind);
      const shown = `${(error as Error).message}\n${inspect(error)}\n${JSON.stringify(error)}`;
      expectNoSecret(shown, keypair);
      expect(shown).not.toContain(content.slice(0, 40));
      const fromEnv = (() => {
        try {
          LocalKeypairSigner.fromEnv('K', { mode: 'live', env: { K: content } });
          return undefined;
        } catch (e) {
          return e as Error;
        }
      })();
      expect(fromEnv, name).toBeInstanceOf(KeyFileError);
      expectNoSecret(`${fromEnv?.message ?? ''}\n${inspect(fromEnv)}`, keypair);
    }
    await expect(readKeyFile(join(dir, 'absent.json'), 'live')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(readKeyFile(dir, 'live')).rejects.toMatchObject({ kind: 'not_a_file' });
  });
});
