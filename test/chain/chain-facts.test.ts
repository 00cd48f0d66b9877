// The policy's chain facts: mints and accounts that can never be a token account (program-owned
// data, executables) are read once; token accounts, System accounts and absent ones every time.
import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { decodeTransaction } from '../../src/chain/decode.ts';
import { ChainFactsReader, mintAccountData, type AccountReader, type ChainAccount } from '../../src/chain/policy/index.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { buildTx, computeBudget, productInstruction, randomKey } from './fixtures.ts';
import { tokenAccountData } from './support/hostile-from-venue.ts';

describe('ChainFactsReader', () => {
  it('reads program-owned accounts and mints once, token accounts, System accounts and absent accounts on every inspection', async () => {
    const wallet = Keypair.generate().publicKey;
    const pool = randomKey();
    const tokenAccount = randomKey();
    const systemAccount = randomKey();
    const absent = randomKey();
    const chain = new Map<string, ChainAccount>([
      [pool.toBase58(), { owner: PROGRAMS.perps, data: new Uint8Array(300) }],
      [tokenAccount.toBase58(), { owner: PROGRAMS.token, data: tokenAccountData(new PublicKey(MINTS.USDC), wallet, 5n) }],
      [systemAccount.toBase58(), { owner: PROGRAMS.system, data: new Uint8Array(0) }],
      ...Object.values(MINTS).map((mint): [string, ChainAccount] => [mint, { owner: PROGRAMS.token, data: mintAccountData(6) }]),
    ]);
    const asked: string[][] = [];
    const read: AccountReader = async (keys) => {
      asked.push([...keys]);
      return keys.map((k) => chain.get(k) ?? null);
    };
    const decoded = await decodeTransaction(buildTx({ payer: wallet, version: 0, instructions: [...computeBudget(), productInstruction(PROGRAMS.memo, wallet, [], [pool, tokenAccount, systemAccount, absent])] }));
    const reader = new ChainFactsReader(read);

    const first = await reader.factsFor(decoded);
    expect(asked[0]).toEqual(expect.arrayContaining([pool.toBase58(), tokenAccount.toBase58(), systemAccount.toBase58(), absent.toBase58(), MINTS.USDC]));
    expect(first.tokenAccounts.get(tokenAccount.toBase58())).toEqual({ mint: MINTS.USDC, owner: wallet.toBase58(), program: PROGRAMS.token });

    const second = await reader.factsFor(decoded);
    expect(asked[1]).toEqual(expect.arrayContaining([tokenAccount.toBase58(), systemAccount.toBase58(), absent.toBase58()]));
    expect(asked[1]).not.toContain(pool.toBase58());
    expect(asked[1]).not.toContain(MINTS.USDC);
    expect(second.tokenAccounts).toEqual(first.tokenAccounts);
    expect(second.mintPrograms.get(MINTS.USDC)).toBe(PROGRAMS.token);
  });

  it('never asks the chain about a key that is not a public key, however often it comes', async () => {
    const wallet = Keypair.generate().publicKey;
    const asked: string[][] = [];
    const read: AccountReader = async (keys) => {
      asked.push([...keys]);
      return keys.map(() => null);
    };
    const decoded = await decodeTransaction(buildTx({ payer: wallet, version: 0, instructions: [...computeBudget()] }));
    const reader = new ChainFactsReader(read);
    const absentMint = randomKey().toBase58();
    await reader.factsFor(decoded, ['not-a-key', absentMint]);
    await reader.factsFor(decoded, ['not-a-key', absentMint]);
    expect(asked).toHaveLength(2);
    for (const keys of asked) {
      expect(keys).toContain(absentMint);
      expect(keys).not.toContain('not-a-key');
    }
  });
});
