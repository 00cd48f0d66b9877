// An `open` whose build reply names a key of the API's choosing as the position: that key explains
// nothing. Before, it was a "known" account: the close authority of the wallet's wrapped-SOL
// account (after a wrap of 50 SOL, wallet-internal and so never limited) could be handed to it, or
// the collateral sent to it by a token transfer beside a request that paid almost none, and the
// policy passed both (a review's finding, proven with these transactions). Control of a wallet's
// account goes to nobody, and a closed account's lamports go back to the wallet.
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { mintAccountData, staticAccountReader, type ChainAccount } from '../../src/chain/policy/index.ts';
import { perpsPositionAddress, perpsPositionRequestAddress } from '../../src/chain/programs/perps/addresses.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../src/chain/programs.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { createTpslInstruction, increaseInstruction } from '../../src/venue/tx/perps-instructions.ts';
import { ata, BLOCKHASH, buildTx, computeBudget, randomKey, spl } from './fixtures.ts';

const wallet = Keypair.generate().publicKey;
const keeper = randomKey();
const thief = randomKey();
const SOL = PERPS_ACCOUNTS.custody.SOL;
const owner = wallet.toBase58();
const position = perpsPositionAddress(owner, SOL, SOL, 'long');
const keys = { owner, position, custody: SOL, collateralCustody: SOL };
const route = { keeper: keeper.toBase58(), requestTimeSec: 1_800_000_000n };
const wsolAta = ata(wallet, MINTS.SOL);
const MARK = 150_000_000n;

const intent: Intent = {
  type: 'open', key: 'open:SOL:long', reason: 'review', notionalUsd: '1000000000',
  marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '1000000000',
  sizeUsdDelta: '1000000000', stopLossPrice: '140000000',
};

function chain() {
  const accounts: Record<string, ChainAccount> = {};
  for (const mint of Object.values(MINTS)) accounts[mint] = { owner: PROGRAMS.token, data: mintAccountData(9) };
  return staticAccountReader(accounts);
}

function tx(extra: ReturnType<typeof spl.setAuthority>[], collateral = 1_000_000_000n, size = 1_000_000_000n) {
  const increase = increaseInstruction(keys, { inputMint: MINTS.SOL, side: 'long', sizeUsdDelta: size, collateralTokenDelta: collateral, priceSlippage: 151_000_000n }, route);
  const sl = createTpslInstruction(keys, { request: { counter: 9n, pubkey: perpsPositionRequestAddress(position, 9n, 'decrease') }, desiredMint: MINTS.SOL, sizeUsdDelta: 0n, triggerPrice: 140_000_000n, triggerAboveThreshold: false, entirePosition: true }, route);
  return buildTx({
    payer: wallet, version: 0,
    instructions: [
      ...computeBudget(),
      spl.createAta(wallet, wallet, new PublicKey(MINTS.SOL)),
      // A wrap of 50 SOL: wallet-internal, so not limited.
      SystemProgram.transfer({ fromPubkey: wallet, toPubkey: wsolAta, lamports: 50_000_000_000n }),
      spl.syncNative(wsolAta),
      increase, sl,
      ...extra,
    ],
  });
}

const inspector = new PolicyInspector({ wallet, priorityFeeCapLamports: 5_000_000n, readAccounts: chain(), slippageBps: 100, marketMarkPrice: async () => MARK, priceDriftBps: 0 });
const inspect = (t: ReturnType<typeof tx>, positionPubkey: string) =>
  inspector.inspect(t, { intent }, { operationId: 'perps.increase', route: 'perps-execute', txMetadata: { blockhash: BLOCKHASH }, positionPubkey });

const rules = (v: { violations: ReadonlyArray<{ rule: string }> }) => v.violations.map((x) => x.rule);

describe('an account only the build reply names explains nothing', () => {
  it('the honest open passes', async () => {
    expect(await inspect(tx([]), position)).toMatchObject({ ok: true });
  });

  it("the close authority of the wallet's wrapped-SOL account handed to the reply's position key is refused", async () => {
    const v = await inspect(tx([spl.setAuthority(wsolAta, wallet, 3, thief)]), thief.toBase58());
    expect(rules(v)).toContain('authority_change');
  });

  it('handed to the real position account (the intent explains it) is refused too: no operation gives control away', async () => {
    const v = await inspect(tx([spl.setAuthority(wsolAta, wallet, 3, new PublicKey(position))]), position);
    expect(rules(v)).toContain('authority_change');
  });

  it("the owner of the wallet's USDC account handed to the reply's position key is refused", async () => {
    const v = await inspect(tx([spl.setAuthority(ata(wallet, MINTS.USDC), wallet, 2, thief)]), thief.toBase58());
    expect(rules(v)).toContain('authority_change');
  });

  it("a wallet token account closed to the reply's position key (its rent, its balance) is refused", async () => {
    const v = await inspect(tx([spl.closeAccount(ata(wallet, MINTS.USDC), thief, wallet)]), thief.toBase58());
    expect(rules(v)).toContain('account_close');
  });

  it('a wallet token account closed to the real position account is refused: lamports of a closed account go back to the wallet', async () => {
    const v = await inspect(tx([spl.closeAccount(ata(wallet, MINTS.USDC), new PublicKey(position), wallet)]), position);
    expect(rules(v)).toContain('account_close');
  });

  it("collateral sent by a token transfer to the reply's position key, beside a request that pays almost none, is refused", async () => {
    const thiefTokenAccount = randomKey();
    const v = await inspect(tx([spl.transfer(wsolAta, thiefTokenAccount, wallet, 995_000_000n)], 10_000n, 1_000_000n), thiefTokenAccount.toBase58());
    expect(rules(v)).toContain('value_transfer');
  });
});
