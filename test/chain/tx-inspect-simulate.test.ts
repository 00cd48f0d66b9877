// `stratd tx inspect --intent … --simulate <rpc>` as an operator runs it (a real process) against the
// simulated venue's JSON-RPC: a benign trigger order passes the balance-delta check; one whose
// simulation escrows more than the intent's making amount is refused, explained in one line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { ApiClient } from '../../src/api/client.ts';
import { associatedTokenAccountOf } from '../../src/chain/policy/wallet-accounts.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { runCli } from '../support/cli.ts';
import { control, fundedWallet, testVenue } from '../venue/venue-fixture.ts';

let venue: Venue;
let client: ApiClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ venue, client, close } = await testVenue());
  await control(venue, 'price', { market: 'SOL', price: '150' });
});
afterAll(async () => {
  await close();
});

const intentOf = (makingAmount: string) =>
  JSON.stringify({ type: 'trigger-create', key: 'buy-sol-low', reason: 'buy SOL at 100', notionalUsd: '100000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount, takingAmount: '1000000000' });

async function inspect(address: string, transaction: string, makingAmount: string) {
  return runCli(['tx', 'inspect', '--set', 'mode=paper', '--wallet', address, '--intent', intentOf(makingAmount), '--simulate', venue.rpcUrl, '-'], { input: transaction, timeoutMs: 30_000 });
}

describe('stratd tx inspect --simulate', () => {
  it('passes a trigger order that escrows exactly its making amount; refuses one that escrows more, explained in one line', async () => {
    const { address } = await fundedWallet(venue);
    const built = await client.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: address, payer: address, params: { makingAmount: '100000000', takingAmount: '1000000000' } });
    const passed = await inspect(address, built.transaction, '100000000');
    expect(passed.stderr).toBe('');
    expect(passed.code).toBe(0);
    expect(JSON.parse(passed.stdout)).toMatchObject({ ok: true, violations: [], explanations: [] });

    // The venue's test fault: 2.5 USDC more leaves the wallet in the simulation (a hidden CPI).
    await control(venue, 'faults', { simulatedOutflow: { mint: MINTS.USDC, amount: '2500000' } });
    try {
      const refused = await inspect(address, built.transaction, '100000000');
      expect(refused.code).toBe(3);
      const account = associatedTokenAccountOf(address, MINTS.USDC, PROGRAMS.token);
      expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, violations: [{ rule: 'simulation_delta' }] });
      expect(refused.stderr.trim()).toBe(
        `refused: simulation_delta: the simulated balances do not fit the intent — 102.5 USDC would leave account ${account}, where the intent escrows exactly 100 USDC`,
      );
    } finally {
      await control(venue, 'faults', {}, 'DELETE');
    }
  });
});
