import { setTimeout as sleep } from 'node:timers/promises';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { positionItemRaw } from '../../src/api/schemas/perps.ts';
import { formatUsd } from '../../src/ops/status/human-units.ts';
import { tradeNetPnl } from '../../src/ops/status/money.ts';
import { readStatusView } from '../../src/ops/status/status-view.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { snapshotSchema } from '../../src/sdk/snapshot.ts';
import { readLatestSnapshot, storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { recordFor } from '../risk/records.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueControl, type Trade } from '../support/venue-control.ts';

/**
 * Balances and PnL in the status view, from real snapshots of a simulated venue: a wallet with a
 * SOL long and an ETH short, part of each closed (the SOL decrease by a strategy's landed action,
 * the ETH one by hand), the positions and trades read through the venue's HTTP API exactly as the
 * pollers read them.
 */
const scope = redisScope('ops-status-money');
const keypair = Keypair.generate();
const wallet = keypair.publicKey.toBase58();
let venue: Venue;
let client: ApiClient;
let control: VenueControl;

/** Builds, signs and sends a decrease as the wallet's owner; answers what ties the fill to it. */
async function decrease(positionPubkey: string, sizeUsdDelta: bigint): Promise<{ signature: string; positionRequestPubkey: string }> {
  const built = await client.call('perps.decrease', { positionPubkey, receiveToken: 'USDC', sizeUsdDelta: sizeUsdDelta.toString(), maxSlippageBps: '200' });
  const tx = VersionedTransaction.deserialize(Buffer.from(built.serializedTxBase64, 'base64'));
  tx.sign([keypair]);
  const sent = await client.call('perps.execute', { action: 'decrease-position', serializedTxBase64: Buffer.from(tx.serialize()).toString('base64') });
  return { signature: sent.txid, positionRequestPubkey: built.positionRequestPubkey! };
}

async function storeSnapshots(): Promise<void> {
  const at = Date.now();
  const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
  const trades = (await client.call('perps.trades', { walletAddress: wallet, start: 0, end: 100 })).dataList;
  await storeLatestSnapshot(scope.redis, scope.prefix, snapshotSchema.parse({ kind: 'positions', source: 'perps.positions', key: wallet, wallet, tickMs: at, receivedAtMs: at, positions }));
  await storeLatestSnapshot(scope.redis, scope.prefix, snapshotSchema.parse({ kind: 'trades', source: 'perps.trades', key: wallet, wallet, tickMs: at, receivedAtMs: at, trades }));
}

let guardFill: { signature: string; positionRequestPubkey: string };
let decreases: Trade[];

beforeAll(async () => {
  await scope.clean();
  venue = await startVenue({ seed: 29 });
  control = new VenueControl(venue.apiUrl);
  client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0 });
  const funded = await control.fund({
    wallet,
    sol: '3000000000',
    usdc: '500000000',
    positions: [
      { market: 'SOL', side: 'long', collateralUsd: '200000000', leverage: '5' },
      { market: 'ETH', side: 'short', collateralUsd: '100000000', leverage: '3' },
    ],
  });
  const [sol, eth] = funded.positions.map((p) => positionItemRaw.parse(p));
  guardFill = await decrease(sol!.positionPubkey, BigInt(sol!.sizeUsd) / 4n);
  await decrease(eth!.positionPubkey, BigInt(eth!.sizeUsd) / 2n);
  // The keeper fills the requests on its own schedule.
  const deadline = Date.now() + 15_000;
  while ((decreases = await control.decreaseTrades(wallet)).length < 2) {
    if (Date.now() > deadline) throw new Error(`the keeper filled ${String(decreases.length)} of 2 decreases in 15 s`);
    await sleep(100);
  }
  await storeSnapshots();
}, 30_000);

afterAll(async () => {
  await scope.clean();
  await scope.close();
  await client.close();
  await venue.close();
});

describe('balances and PnL in the status view', () => {
  it('realised PnL (net of fees) per strategy by the landed action that made the fill, the rest under "other"; unrealised from the open positions; equity', async () => {
    const store = new ActionStore(scope.redis, scope.prefix);
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    const landed = recordFor({ type: 'decrease' }, { strategy: 'liquidation-guard', state: 'landed', ...guardFill });
    await store.create(landed);
    await ledger.append({ at: Date.now(), type: 'action_state', actionId: landed.actionId, strategy: landed.strategy, state: 'landed' });
    const balances = { SOL: 3_000_000_000n, USDC: 500_000_000n };

    const view = await readStatusView({
      redis: scope.redis,
      prefix: scope.prefix,
      mode: 'paper',
      wallet,
      strategies: ['liquidation-guard', 'tpsl-coverage'],
      ledger,
      queues: new Map(),
      now: Date.now,
      readWalletBalances: () => Promise.resolve(balances),
    });

    // Every fill: the two opening increases (their fees) and the two decreases.
    const all = (await client.call('perps.trades', { walletAddress: wallet, start: 0, end: 100 })).dataList;
    expect(all).toHaveLength(4);
    const guard = decreases.find((t) => t.positionRequestPubkey === guardFill.positionRequestPubkey)!;
    expect(guard.pnl).not.toBeNull();
    const total = all.reduce((sum, t) => sum + BigInt(t.pnl ?? '0') - BigInt(t.fee), 0n);
    const money = view.money;
    expect(money.realised?.total).toEqual({ day: total, all: total });
    expect(money.realised?.byStrategy).toEqual([
      { name: 'liquidation-guard', pnl: { day: tradeNetPnl(guard), all: tradeNetPnl(guard) }, text: { day: formatUsd(tradeNetPnl(guard)), all: formatUsd(tradeNetPnl(guard)) } },
      // Enabled but without fills: listed at zero.
      { name: 'tpsl-coverage', pnl: { day: 0n, all: 0n }, text: { day: '$0.00', all: '$0.00' } },
      { name: 'other', pnl: { day: total - tradeNetPnl(guard), all: total - tradeNetPnl(guard) }, text: expect.any(Object) },
    ]);

    // The stored snapshot's positions (the venue's marks move on between reads).
    const positions = (await readLatestSnapshot(scope.redis, scope.prefix, 'positions', wallet))!.positions.map((p) => positionView(p)!);
    expect(positions).toHaveLength(2);
    const unrealised = positions.reduce((sum, p) => sum + p.pnlAfterFeesUsd!, 0n);
    const collateral = positions.reduce((sum, p) => sum + p.collateralUsd, 0n);
    expect(money.unrealisedUsd).toBe(unrealised);
    // SOL is valued at the SOL position's mark (USD × 10^6 per SOL): 3 SOL.
    const solMark = positions.find((p) => p.marketMint === MINTS.SOL)!.markPriceUsd;
    expect(money.balances?.map((b) => [b.token, b.valueUsd])).toEqual([
      ['SOL', 3n * solMark],
      ['USDC', 500_000_000n],
    ]);
    expect(money.equityUsd).toBe(3n * solMark + 500_000_000n + collateral + unrealised);
    expect(money.equityPartial).toBe(false);
    expect(money.text.equity).toBe(formatUsd(money.equityUsd));
  });

  it('a fill from before the last 24 h counts in "all recorded" only; no trades snapshot, no realised figure', async () => {
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    const read = (now: () => number) => readStatusView({ redis: scope.redis, prefix: scope.prefix, mode: 'paper', wallet, ledger, queues: new Map(), now });
    const today = await read(Date.now);
    // The same snapshot seen two days later: nothing happened in the last 24 h.
    const later = await read(() => Date.now() + 2 * 86_400_000);
    expect(later.money.realised?.total).toEqual({ day: 0n, all: today.money.realised!.total.all });
    // Balances are not read here (no reader, as in `stratd status`): the equity says so.
    expect(later.money.balances).toBeUndefined();
    expect(later.money.equityPartial).toBe(true);

    const elsewhere = await readStatusView({ redis: scope.redis, prefix: scope.prefix, mode: 'paper', wallet: Keypair.generate().publicKey.toBase58(), ledger, queues: new Map(), now: Date.now });
    expect(elsewhere.money.realised).toBeUndefined();
    expect(elsewhere.money.text.realisedAll).toBe('no trades snapshot yet');
  });
});
