// The referral program (a trigger order's fee account belongs to it) is allowed beside trigger
// operations but not decoded: an instruction of it rode along an honest trigger create and handed
// a referral account whose partner is the wallet to someone else (a review's finding, proven with
// this transaction). An instruction of a program the policy does not read may not name the wallet.
import { createHash } from 'node:crypto';
import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { mintAccountData, staticAccountReader, type ChainAccount } from '../../src/chain/policy/index.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { triggerCreateInstructions } from '../../src/venue/tx/limit-order-instructions.ts';
import { buildTx, computeBudget, randomKey } from './fixtures.ts';

const wallet = Keypair.generate().publicKey;
const owner = wallet.toBase58();
const accounts: Record<string, ChainAccount> = {};
for (const mint of Object.values(MINTS)) accounts[mint] = { owner: PROGRAMS.token, data: mintAccountData(9) };
const inspector = new PolicyInspector({ wallet, priorityFeeCapLamports: 5_000_000n, readAccounts: staticAccountReader(accounts), slippageBps: 50 });
const intent = { type: 'trigger-create', key: 'tc', reason: 'r', notionalUsd: '1', inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '1000000', takingAmount: '10000000' } as Intent;
const create = () => triggerCreateInstructions({ maker: owner, orderKey: randomKey().toBase58(), inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: 1_000_000n, takingAmount: 10_000_000n, expiredAtSec: null, slippageBps: 0 });

function referralInstruction(partner: PublicKey, signer: boolean): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(PROGRAMS.referral),
    keys: [
      { pubkey: partner, isSigner: signer, isWritable: false },
      { pubkey: randomKey(), isSigner: false, isWritable: false }, // the new partner
      { pubkey: randomKey(), isSigner: false, isWritable: true }, // the referral account
    ],
    data: createHash('sha256').update('global:transfer_referral_account').digest().subarray(0, 8),
  });
}

const inspect = (extra: TransactionInstruction[]) =>
  inspector.inspect(buildTx({ payer: wallet, version: 0, instructions: [...computeBudget(), ...create(), ...extra] }), { intent }, { operationId: 'trigger.createOrder', route: 'trigger-execute' });

describe('instructions of programs the policy does not read', () => {
  it('a trigger create passes; beside it, a referral instruction that names the wallet is refused', async () => {
    expect(await inspect([])).toMatchObject({ ok: true });
    const v = await inspect([referralInstruction(wallet, true)]);
    expect(v.violations.map((x) => x.rule)).toContain('program_not_allowed');
    expect(v.violations.find((x) => x.rule === 'program_not_allowed')?.detail).toContain('names the wallet');
  });

  it("one that does not name the wallet is left to the program (it cannot sign for or spend what is the wallet's)", async () => {
    expect(await inspect([referralInstruction(randomKey(), false)])).toMatchObject({ ok: true });
  });
});
