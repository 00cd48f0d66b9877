// Trigger orders are read in pages of 10, one call after another; the list moves meanwhile. An
// order that closed on page 1 after it was read pulled the first order of page 2 onto page 1,
// where nobody read it: the snapshot lacked an order still active, and token-momentum took its
// take-profit for a sale and forgot the holding (a review's finding, proven with this client).
// Reads past 20 pages stored the first 200 orders as if the rest did not exist.
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { TriggerOrder } from '../../src/api/schemas/trigger.ts';
import { POLLER_SOURCES } from '../../src/pipeline/pollers/sources.ts';
import { samples } from '../../src/sdk/testing.ts';

const key = () => Keypair.generate().publicKey.toBase58();
const TICK = samples.SAMPLE_TICK;
const TP_KEY = key();

/** `bids` + 1 active orders, newest first; the oldest is a take-profit. */
function book(bids = 10): TriggerOrder[] {
  const placed = Array.from({ length: bids }, (_, i) => samples.triggerOrder({ orderKey: key(), outputMint: key(), makingAmount: '10000000', takingAmount: '8000000000', createdAtMs: TICK - 1_000 * (i + 1) }));
  const tp = { ...samples.triggerOrder({ orderKey: TP_KEY, makingAmount: '8000000000', takingAmount: '12000000', createdAtMs: TICK - 3_600_000 }), inputMint: key(), outputMint: MINTS.USDC };
  return [...placed, tp];
}

/** The service: pages of 10 of `list` as it is at each call; `afterPage1` runs after each answer of page 1. */
function service(list: TriggerOrder[], afterPage1?: () => void) {
  return {
    async call(operation: string, p: { orderStatus: string; page: number }) {
      if (operation !== 'trigger.getTriggerOrders') throw new Error(operation);
      if (p.orderStatus === 'history') return { orders: [], totalPages: 0, page: 1 };
      const reply = { orders: list.slice((p.page - 1) * 10, p.page * 10), totalPages: Math.ceil(list.length / 10), page: p.page };
      if (p.page === 1) afterPage1?.();
      return reply;
    },
  };
}

async function read(client: unknown) {
  const [reading] = await POLLER_SOURCES.triggerOrders.reads({ config: {} as never, client: client as never, redis: {} as never, prefix: 'x:', wallet: samples.SAMPLE_WALLET });
  return (await reading!.run()).orders;
}

describe('paged order lists', () => {
  it('an order that closes between the pages: the list is read again, and no active order is missing', async () => {
    // 12 orders: two pages before and after the close, so only the pages' contents tell.
    const list = book(11);
    let closed = false;
    const orders = await read(service(list, () => {
      if (!closed) list.splice(0, 1);
      closed = true;
    }));
    expect(orders.map((o) => o.orderKey)).toEqual(list.map((o) => o.orderKey));
    expect(orders).toHaveLength(11);
  });

  it('a list that moves at every read, or longer than 20 pages, fails the read instead of being stored in part', async () => {
    const moving = book();
    await expect(read(service(moving, () => moving.splice(0, 1, samples.triggerOrder({ orderKey: key() }))))).rejects.toThrow(/moved while its pages were read/);
    const many = Array.from({ length: 205 }, () => samples.triggerOrder({ orderKey: key(), outputMint: key() }));
    await expect(read(service(many))).rejects.toThrow(/21 pages/);
  });

  it('one page is one call; a steady list of two is read whole', async () => {
    let calls = 0;
    const one = book().slice(0, 10);
    const counted = service(one);
    const client = { call: async (o: string, p: { orderStatus: string; page: number }) => (calls++, counted.call(o, p)) };
    expect(await read(client)).toHaveLength(10);
    expect(calls).toBe(2); // the page and the history
    expect(await read(service(book()))).toHaveLength(11);
  });
});
