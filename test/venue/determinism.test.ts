import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { control, raw, sign, testVenue } from './venue-fixture.ts';

// Same seed + same requests + same clock → same responses, byte for byte (headers included).

const wallet = Keypair.fromSeed(Buffer.alloc(32, 7));
const address = wallet.publicKey.toBase58();

async function session(seed: number, volatility: number): Promise<string[]> {
  const { venue, close } = await testVenue({ seed, volatility, decreaseInstantShare: 0.5, faults: { operations: { 'tokens.new': { errorRate: 0.3 } } } });
  const transcript: string[] = [];
  const record = (r: { status: number; headers: Record<string, unknown>; text: string }) =>
    transcript.push(`${String(r.status)} ${String(r.headers['x-api-gateway-request-id'])} ${r.text}`);
  try {
    const funded = await control<{ positions: { positionPubkey: string }[] }>(venue, 'fund', { wallet: address, sol: '50000000000', usdc: '5000000000', positions: [{ market: 'SOL', side: 'long', leverage: '7' }, { market: 'BTC', side: 'short', leverage: '3' }] });
    transcript.push(JSON.stringify(funded));
    for (let step = 0; step < 6; step++) {
      await control(venue, 'advance', { ms: 37_000 });
      record(await raw(venue.apiUrl, 'GET', `/perps/v1/pool-info?mint=${MINTS.SOL}`));
      record(await raw(venue.apiUrl, 'GET', `/tokens/v2/toptrending/5m?limit=5`));
      record(await raw(venue.apiUrl, 'GET', `/tokens/v1/new?limit=3`));
      record(await raw(venue.apiUrl, 'GET', `/perps/v1/positions?walletAddress=${address}`));
      const decrease = await raw(venue.apiUrl, 'POST', '/perps/v1/positions/decrease', { positionPubkey: funded.positions[0]?.positionPubkey, receiveToken: 'SOL', sizeUsdDelta: '10000000' });
      record(decrease);
      const built = decrease.json as { serializedTxBase64: string; transactionType: string };
      if (built.transactionType === 'instant') {
        record(await raw(venue.apiUrl, 'POST', '/perps/v1/transaction/execute', { action: 'decrease-position', serializedTxBase64: sign(built.serializedTxBase64, wallet) }));
      }
      const order = await raw(venue.apiUrl, 'GET', `/ultra/v1/order?inputMint=${MINTS.USDC}&outputMint=${MINTS.SOL}&amount=25000000&taker=${address}`);
      record(order);
    }
    record(await raw(venue.apiUrl, 'GET', `/perps/v1/trades?walletAddress=${address}&end=50`));
    record(await raw(venue.apiUrl, 'GET', '/__venue/state'));
  } finally {
    await close();
  }
  return transcript;
}

describe('determinism', () => {
  it('two venues with the same seed answer the same requests identically; another seed does not', async () => {
    const first = await session(5, 2);
    const second = await session(5, 2);
    expect(second).toEqual(first);
    // The transcript exercised what it claims: moving prices, both transaction kinds, faults.
    expect(first.some((line) => line.includes('"transactionType":"instant"'))).toBe(true);
    expect(first.some((line) => line.includes('"transactionType":"legacy"'))).toBe(true);
    expect(first.some((line) => line.startsWith('503 '))).toBe(true);
    const other = await session(6, 2);
    expect(other).not.toEqual(first);
  });
});
