import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { ApiClient } from '../../src/api/client.ts';
import { associatedTokenAccountOf } from '../../src/chain/policy/wallet-accounts.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { rpcCall } from '../venue-chain/fixtures.ts';
import { control, fundedWallet, sign, testVenue } from './venue-fixture.ts';

// simulateTransaction as the signing policy asks it (sigVerify false, replaceRecentBlockhash
// false, accounts base64): the post-state of the accounts asked for, had the transaction landed
// now, without changing anything; then the same transaction lands and the chain shows exactly
// what the simulation said.

let venue: Venue;
let client: ApiClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ venue, client, close } = await testVenue({ fees: 'charge' }));
  await control(venue, 'price', { market: 'SOL', price: '150' });
});

afterAll(async () => {
  await close();
});

interface SimulatedAccount {
  readonly lamports: number | string;
  readonly owner: string;
  readonly data: [string, 'base64'];
}
interface Simulation {
  readonly err: unknown;
  readonly logs: string[];
  readonly unitsConsumed: number;
  readonly accounts: Array<SimulatedAccount | null> | null;
}

async function simulate(unsigned: string, addresses: string[]): Promise<Simulation> {
  const reply = await rpcCall(venue.rpcUrl, 'simulateTransaction', [unsigned, { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: false, accounts: { addresses, encoding: 'base64' } }]);
  if (reply.error) throw new Error(reply.error.message);
  return (reply.result as { value: Simulation }).value;
}

async function accountsNow(addresses: string[]): Promise<Array<SimulatedAccount | null>> {
  const reply = await rpcCall(venue.rpcUrl, 'getMultipleAccounts', [addresses, { encoding: 'base64' }]);
  return (reply.result as { value: Array<SimulatedAccount | null> }).value;
}

function tokenAmount(account: SimulatedAccount | null | undefined): bigint | null {
  if (!account) return null;
  const data = Buffer.from(account.data[0], 'base64');
  return data.readBigUInt64LE(64);
}

const ata = (owner: string, mint: string) => associatedTokenAccountOf(owner, mint, PROGRAMS.token);

describe('simulateTransaction with accounts', () => {
  it('shows a trigger order escrowing its making amount and the fee, changes nothing, and the landing matches it', async () => {
    const { wallet, address } = await fundedWallet(venue);
    const built = await client.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: address, payer: address, params: { makingAmount: '25000000', takingAmount: '1000000000' } });
    const foreign = new PublicKey(Buffer.alloc(32, 9)).toBase58();
    const asked = [ata(address, MINTS.USDC), address, foreign];
    const before = await accountsNow(asked);
    const simulated = await simulate(built.transaction, asked);
    expect(simulated.err).toBeNull();
    expect(simulated.unitsConsumed).toBeGreaterThan(0);
    expect(simulated.logs.length).toBeGreaterThan(0);
    const [usdc, lamports, none] = simulated.accounts ?? [];
    // In the order asked: the token account first (its data names the mint and the wallet), a null for the missing one.
    expect(usdc?.owner).toBe(PROGRAMS.token);
    expect(new PublicKey(Buffer.from(usdc!.data[0], 'base64').subarray(0, 32)).toBase58()).toBe(MINTS.USDC);
    expect(new PublicKey(Buffer.from(usdc!.data[0], 'base64').subarray(32, 64)).toBase58()).toBe(address);
    expect(tokenAmount(before[0])! - tokenAmount(usdc)!).toBe(25_000_000n);
    const fee = venue.chain.feeFor(VersionedTransaction.deserialize(Buffer.from(built.transaction, 'base64')).message);
    expect(fee).toBeGreaterThan(0n);
    expect(BigInt(before[1]!.lamports) - BigInt(lamports!.lamports)).toBe(fee);
    expect(none).toBeNull();
    // A dry run: nothing moved.
    expect(await accountsNow(asked)).toEqual(before);
    await client.call('trigger.execute', { requestId: built.requestId!, signedTransaction: sign(built.transaction, wallet) });
    expect(await accountsNow(asked)).toEqual(simulated.accounts);
  });

  it('shows a swap crediting an account the wallet never held (absent before, present after)', async () => {
    const { wallet, address } = await fundedWallet(venue);
    const order = await client.call('ultra.order', { inputMint: MINTS.USDC, outputMint: MINTS.JLP, amount: '10000000', taker: address });
    const asked = [address, ata(address, MINTS.USDC), ata(address, MINTS.JLP)];
    const before = await accountsNow(asked);
    expect(before[2]).toBeNull();
    const simulated = await simulate(order.transaction!, asked);
    expect(simulated.err).toBeNull();
    expect(tokenAmount(before[1])! - tokenAmount(simulated.accounts?.[1])!).toBe(10_000_000n);
    expect(tokenAmount(simulated.accounts?.[2])).toBe(BigInt(order.outAmount));
    expect(await accountsNow(asked)).toEqual(before);
    await client.call('ultra.execute', { requestId: order.requestId, signedTransaction: sign(order.transaction!, wallet) });
    expect(await accountsNow(asked)).toEqual(simulated.accounts);
  });

  it('a legacy perps increase shows its own effect, the escrow; the keeper fills later', async () => {
    const { wallet, address } = await fundedWallet(venue);
    const built = await client.call('perps.increase', {
      inputMint: MINTS.USDC, collateralMint: MINTS.USDC, marketMint: MINTS.SOL, side: 'short',
      collateralTokenDelta: '100000000', leverage: '2', maxSlippageBps: '100', walletAddress: address,
    });
    const asked = [ata(address, MINTS.USDC)];
    const before = await accountsNow(asked);
    const simulated = await simulate(built.serializedTxBase64 as string, asked);
    expect(simulated.err).toBeNull();
    expect(tokenAmount(before[0])! - tokenAmount(simulated.accounts?.[0])!).toBe(100_000_000n);
    await rpcCall(venue.rpcUrl, 'sendTransaction', [sign(built.serializedTxBase64 as string, wallet), { encoding: 'base64' }]);
    expect(await accountsNow(asked)).toEqual(simulated.accounts);
  });

  it('reports the error the transaction would fail with: insufficient funds, an expired blockhash, a program the chain lacks', async () => {
    const { address } = await fundedWallet(venue);
    const tooMuch = await client.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: address, payer: address, params: { makingAmount: '20000000', takingAmount: '1000000000' } });
    // The wallet spends its USDC between the build and the simulation.
    venue.chain.debitToken(address, MINTS.USDC, venue.chain.getTokenBalance(address, MINTS.USDC) - 1_000_000n);
    const short = await simulate(tooMuch.transaction, [address]);
    expect(short.err).toEqual({ InstructionError: [expect.any(Number), { Custom: 1 }] });
    expect(short.logs.join('\n')).toMatch(/holds .* needs|takes/);

    const { address: other } = await fundedWallet(venue);
    await control(venue, 'faults', { operations: { 'trigger.createOrder': { staleBlockhash: 'expired' } } });
    const stale = await client.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: other, payer: other, params: { makingAmount: '10000000', takingAmount: '1000000000' } });
    expect((await simulate(stale.transaction, [address])).err).toBe('BlockhashNotFound');

    await control(venue, 'faults', { operations: { 'trigger.createOrder': { staleBlockhash: null, hostile: 'unknown_program' } } });
    const unknown = await client.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: other, payer: other, params: { makingAmount: '10000000', takingAmount: '1000000000' } });
    const refused = await simulate(unknown.transaction, [other]);
    expect(refused.err).toBe('ProgramAccountNotFound');
    // A failed simulation shows the accounts as they are.
    expect(refused.accounts).toEqual(await accountsNow([other]));
    await control(venue, 'faults', {}, 'DELETE');
  });

  it('TEST FAULT simulatedOutflow: simulations show an outflow from the fee payer that no landing applies', async () => {
    const { wallet, address } = await fundedWallet(venue);
    await control(venue, 'faults', { simulatedOutflow: { mint: MINTS.USDC, amount: '7000000' } });
    const built = await client.call('trigger.createOrder', { inputMint: MINTS.SOL, outputMint: MINTS.USDC, maker: address, payer: address, params: { makingAmount: '100000000', takingAmount: '5000000' } });
    const asked = [ata(address, MINTS.USDC)];
    const before = await accountsNow(asked);
    const simulated = await simulate(built.transaction, asked);
    expect(simulated.err).toBeNull();
    expect(tokenAmount(before[0])! - tokenAmount(simulated.accounts?.[0])!).toBe(7_000_000n);
    await client.call('trigger.execute', { requestId: built.requestId!, signedTransaction: sign(built.transaction, wallet) });
    expect(await accountsNow(asked)).toEqual(before);
    await control(venue, 'faults', {}, 'DELETE');
    expect((await simulate((await client.call('trigger.createOrder', { inputMint: MINTS.SOL, outputMint: MINTS.USDC, maker: address, payer: address, params: { makingAmount: '100000000', takingAmount: '5000000' } })).transaction, asked)).accounts).toEqual(before);
  });
});
