import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { readLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { sign } from '../venue/venue-fixture.ts';
import { DaemonFleet, type DaemonProcess } from '../support/daemon-process.ts';
import { E2eDeployment } from './support/e2e-deployment.ts';
import { waitUntil } from '../support/wait-until.ts';

/**
 * Acceptance (paper mode, `stratd run` as its own process with its venue in-process): what the
 * venue holds survives a restart — a stop tightened by hand is back at its level and
 * tpsl-coverage creates no second one; limit, trigger and recurring orders are still open; a stop
 * placed just before a SIGKILL is there too — a second daemon in the same folder refuses to start
 * and leaves the first one's state alone, and a state file that does not parse stops the start
 * with the field named, the file kept.
 */

const TICK_MS = 1_000; // pollers.positions.cron below: every second

describe('paper mode across a daemon restart (in-process venue)', () => {
  const fleet = new DaemonFleet();
  const clients: ApiClient[] = [];
  let deployment: E2eDeployment;

  beforeEach(async () => {
    deployment = await E2eDeployment.create('paper-restart');
  });
  afterEach(async () => {
    await fleet.killAll();
    for (const client of clients.splice(0)) await client.close();
    await deployment.close();
  });

  const statePath = () => join(dirname(deployment.keyFile), 'venue', 'state.json');

  /** The daemon's own venue, from the URL its start-up line names. */
  const venueOf = async (daemon: DaemonProcess): Promise<{ api: ApiClient; url: string }> => {
    const url = await waitUntil(
      () => {
        if (!daemon.running) throw new Error(`the daemon exited early\n${daemon.logTail()}`);
        return daemon.output().map((line) => /"apiUrl":"(http:\/\/[^"]+)"/.exec(line)?.[1]).find((u) => u !== undefined);
      },
      { what: 'the in-process venue started', timeoutMs: 60_000, context: () => daemon.logTail() },
    );
    const client = new ApiClient({ baseUrl: url, retries: 0, timeoutMs: 5_000 });
    clients.push(client);
    return { api: client, url };
  };
  const positionsOf = async (api: ApiClient) => (await api.call('perps.positions', { walletAddress: deployment.walletAddress })).dataList.map(positionView).filter((p) => p !== undefined);
  const stopsOf = async (api: ApiClient, market: string) => (await positionsOf(api)).find((p) => p.marketMint === market)?.tpslRequests.filter((r) => r.requestType === 'sl') ?? [];
  const ordersOf = async (api: ApiClient) => ({
    limit: (await api.call('perps.limitOrders', { walletAddress: deployment.walletAddress })).dataList.map((o) => ({ pubkey: o.positionRequestPubkey, trigger: o.triggerPrice })),
    trigger: (await api.call('trigger.getTriggerOrders', { user: deployment.walletAddress, orderStatus: 'active' })).orders.map((o) => ({ key: o.orderKey, making: o.rawRemainingMakingAmount })),
    recurring: ((await api.call('recurring.getRecurringOrders', { user: deployment.walletAddress, orderStatus: 'active', recurringType: 'all', includeFailedTx: false })).all as { orderKey: string; rawInUsed: string; trades: unknown[] }[]).map((o) => ({ key: o.orderKey, used: o.rawInUsed, fills: o.trades.length })),
  });
  /** tpsl-coverage's decisions to create a stop-loss for this position. */
  const stopCreates = async (positionPubkey: string) => (await deployment.ledger()).filter((e) => e.type === 'decision' && e.strategy === 'tpsl-coverage' && (e.detail as { intentKey?: string }).intentKey === `sl:${positionPubkey}`).length;
  const ticksAfter = (sinceMs: number, ticks: number, daemon: DaemonProcess) =>
    waitUntil(async () => {
      const latest = await readLatestSnapshot(deployment.redis, deployment.prefix, 'positions', deployment.walletAddress);
      return latest && latest.tickMs >= sinceMs + ticks * TICK_MS ? latest : undefined;
    }, { what: `${ticks} positions ticks after ${sinceMs}`, timeoutMs: 30_000, context: () => daemon.logTail() });
  const stopDaemon = async (daemon: DaemonProcess) => {
    daemon.signal('SIGTERM');
    const exit = await daemon.waitForExit(20_000);
    expect({ code: exit.code, signal: exit.signal }, daemon.logTail()).toEqual({ code: 0, signal: null });
  };

  it('a tightened stop comes back at its level, no second stop is created, and the orders are still open', { timeout: 180_000 }, async () => {
    const sets = deployment.sets({
      'strategies.enabled': 'tpsl-coverage',
      'strategies.settings.tpsl-coverage': { settleMs: 2_000 },
      'pollers.positions.cron': '* * * * * *',
      'execution.confirmPollMs': 200,
    });
    const first = fleet.start({ name: 'first daemon', sets });
    const { api, url } = await venueOf(first);
    // tpsl-coverage covers the funded ETH long; the test then tightens that stop by hand.
    const [placed] = await waitUntil(async () => {
      const stops = await stopsOf(api, MINTS.ETH);
      return stops.length > 0 ? stops : undefined;
    }, { what: 'tpsl-coverage placed the ETH stop', timeoutMs: 60_000, context: () => first.logTail() });
    const ethLong = (await positionsOf(api)).find((p) => p.marketMint === MINTS.ETH)!;
    const mark = ethLong.markPriceUsd;
    const tightened = placed!.triggerPriceUsd + (mark - placed!.triggerPriceUsd) / 2n;
    const update = await api.call('perps.updateTpsl', { positionRequestPubkey: placed!.pubkey, triggerPrice: tightened.toString() });
    await api.call('perps.execute', { action: 'update-tpsl', serializedTxBase64: sign(update.serializedTxBase64, deployment.wallet) });
    expect((await stopsOf(api, MINTS.ETH)).map((s) => [s.pubkey, s.triggerPriceUsd])).toEqual([[placed!.pubkey, tightened]]);

    // A perps limit order, a trigger order that will not fill, a recurring order with its first cycle done.
    const limit = await fetch(`${url}/__venue/limit-orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ wallet: deployment.walletAddress, market: 'ETH', side: 'long', inputMint: MINTS.USDC, inputAmount: '50000000', triggerPrice: ((mark * 9n) / 10n).toString(), leverage: '2' }) });
    expect(limit.status, await limit.clone().text()).toBe(200);
    const trigger = await api.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: deployment.walletAddress, payer: deployment.walletAddress, params: { makingAmount: '10000000', takingAmount: '1000000000' } });
    expect((await api.call('trigger.execute', { requestId: trigger.requestId!, signedTransaction: sign(trigger.transaction, deployment.wallet) })).status).toBe('Success');
    const recurring = await api.call('recurring.createOrder', { user: deployment.walletAddress, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 200_000_000, numberOfOrders: 2, interval: 3600 } } });
    expect((await api.call('recurring.execute', { requestId: recurring.requestId!, signedTransaction: sign(recurring.transaction, deployment.wallet) })).status).toBe('Success');
    const orders = await ordersOf(api);
    expect([orders.limit.length, orders.trigger.length, orders.recurring.map((r) => r.fills)]).toEqual([1, 1, [1]]);
    expect(await stopCreates(ethLong.positionPubkey)).toBe(1);
    await stopDaemon(first);

    const second = fleet.start({ name: 'restarted daemon', sets });
    const restartedAtMs = Date.now();
    const { api: api2 } = await venueOf(second);
    expect((await stopsOf(api2, MINTS.ETH)).map((s) => [s.pubkey, s.triggerPriceUsd])).toEqual([[placed!.pubkey, tightened]]);
    expect(await ordersOf(api2)).toEqual(orders);
    // Past tpsl-coverage's settle time: it saw the stop and created none.
    await ticksAfter(restartedAtMs, 4, second);
    expect((await stopsOf(api2, MINTS.ETH)).map((s) => [s.pubkey, s.triggerPriceUsd])).toEqual([[placed!.pubkey, tightened]]);
    expect(await stopCreates(ethLong.positionPubkey)).toBe(1);
    await stopDaemon(second);
  });

  it('a daemon killed with SIGKILL loses no stop placed before it died: written on the change, its lock taken over', { timeout: 120_000 }, async () => {
    const sets = deployment.sets({ 'strategies.enabled': 'tpsl-coverage' });
    const first = fleet.start({ name: 'daemon to be killed', sets, roles: ['pollers'] });
    const { api } = await venueOf(first);
    const ethLong = (await positionsOf(api)).find((p) => p.marketMint === MINTS.ETH)!;
    const trigger = (ethLong.markPriceUsd * 95n) / 100n;
    const created = await api.call('perps.createTpsl', { owner: deployment.walletAddress, positionPubkey: ethLong.positionPubkey, tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '0', entirePosition: true, triggerPrice: trigger.toString(), requestType: 'sl' }] });
    await api.call('perps.execute', { action: 'create-tpsl', serializedTxBase64: sign(created.serializedTxBase64, deployment.wallet) });
    const stop = created.tpslPubkeys[0]!;
    // Written within venue.saveDelayMs of the landing, long before any shutdown.
    await waitUntil(async () => ((await readFile(statePath(), 'utf8')).includes(stop) ? true : undefined), { what: 'the stop in the state file', timeoutMs: 5_000, context: () => first.logTail() });
    first.signal('SIGKILL');
    await first.exited;

    const second = fleet.start({ name: 'daemon after the kill', sets, roles: ['pollers'] });
    const { api: api2 } = await venueOf(second);
    expect((await stopsOf(api2, MINTS.ETH)).map((s) => [s.pubkey, s.triggerPriceUsd])).toEqual([[stop, trigger]]);
    expect(second.output().some((line) => line.includes('taking over the lock') && line.includes(String(first.pid)))).toBe(true);
    await stopDaemon(second);
  });

  it('a second daemon in the same folder refuses to start and leaves the first one\'s state alone', { timeout: 120_000 }, async () => {
    const sets = deployment.sets({ 'strategies.enabled': 'tpsl-coverage' });
    const first = fleet.start({ name: 'first daemon', sets, roles: ['pollers'] });
    await venueOf(first);
    const saved = await waitUntil(() => readFile(statePath(), 'utf8'), { what: 'the first daemon wrote its state', timeoutMs: 30_000, context: () => first.logTail() });

    const second = fleet.start({ name: 'second daemon', sets, roles: ['pollers'] });
    const exit = await second.waitForExit(60_000);
    expect(exit.code, second.logTail()).not.toBe(0);
    const said = second.output().join('\n');
    expect(said).toContain(`pid ${String(first.pid)}`);
    expect(said).toContain(dirname(deployment.keyFile));
    expect(said).not.toContain('simulated venue started');
    expect(first.running).toBe(true);
    expect(await readFile(statePath(), 'utf8')).toBe(saved);
    await stopDaemon(first);
  });

  it('a paper state that does not parse stops the start, names the field and is kept as it was', { timeout: 120_000 }, async () => {
    const sets = deployment.sets({ 'strategies.enabled': 'tpsl-coverage' });
    const first = fleet.start({ name: 'first daemon', sets, roles: ['pollers'] });
    await venueOf(first);
    await stopDaemon(first);
    const state = JSON.parse(await readFile(statePath(), 'utf8')) as { venue: { positions: { sizeUsd: string }[] } };
    state.venue.positions[0]!.sizeUsd = '12.5';
    const corrupt = JSON.stringify(state);
    await writeFile(statePath(), corrupt);

    const again = fleet.start({ name: 'daemon on a corrupt state', sets, roles: ['pollers'] });
    const exit = await again.waitForExit(60_000);
    expect(exit.code, again.logTail()).not.toBe(0);
    const said = again.output().join('\n');
    expect(said).toContain(statePath());
    expect(said).toContain('venue.positions.0.sizeUsd');
    expect(said).toContain('stratd paper reset');
    expect(said).not.toContain('simulated venue started');
    expect(await readFile(statePath(), 'utf8')).toBe(corrupt);
  });
});
