import { setTimeout as sleep } from 'node:timers/promises';
import { verify } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, type PublicKey, type VersionedTransaction } from '@solana/web3.js';
import type { Redis } from 'ioredis';
import { request } from 'undici';
import { ApiClient } from '../../src/api/client.ts';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import { LocalKeypairSigner, writeKeyFile, type TransactionSigner } from '../../src/chain/signer.ts';
import { actionIdFor, actionJobSchema, type ActionJob } from '../../src/records/action.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { ApiActionBuilder } from '../../src/pipeline/executor/api-action-builder.ts';
import { Executor, type ExecutorOptions } from '../../src/pipeline/executor/executor.ts';
import { TradeHistoryKeeperFillWatch } from '../../src/pipeline/executor/keeper-fill-watch.ts';
import { limitOrderFromSnapshots } from '../../src/pipeline/executor/limit-order-lookup.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import { RoutedSubmitter } from '../../src/pipeline/executor/routed-submitter.ts';
import { Ledger } from '../../src/records/ledger.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { startVenue, type Venue, type VenueOptions } from '../../src/venue/venue.ts';
import { parseExactJson } from '../../src/api/exact-json.ts';
import { venueMarkPrice, venuePositionAmounts } from '../support/venue-mark-price.ts';

/** One request that went through the relay: its JSON body parsed exactly (an integer beyond 2^53 as a bigint), and its text. */
export interface RelayedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly text: string;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name.toLowerCase())) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * A real HTTP relay in front of the venue's API: it counts what the executor posts, can lose a
 * reply after the venue processed the request (the connection is cut once the venue answered),
 * which the venue's own fault model cannot do (its faults act before processing), and can answer
 * one operation with another's build.
 */
export class ApiRelay {
  readonly requests: RelayedRequest[] = [];
  private readonly toLose = new Map<string, number>();
  private readonly substitutes = new Map<string, (body: unknown) => Promise<{ readonly status: number; readonly body: unknown }>>();
  private server?: Server;

  constructor(private readonly upstream: string) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const path = new URL(req.url ?? '/', 'http://relay').pathname;
        let body: unknown;
        try {
          body = text === '' ? undefined : parseExactJson(text);
        } catch {
          body = text;
        }
        this.requests.push({ method: req.method ?? '', path, body, text });
        const substitute = this.substitutes.get(path);
        if (substitute) {
          substitute(body).then(
            (answer) => {
              res.writeHead(answer.status, { 'content-type': 'application/json' });
              res.end(JSON.stringify(answer.body));
            },
            (error: unknown) => {
              res.writeHead(502, { 'content-type': 'application/json' });
              res.end(JSON.stringify({ code: 502, message: `relay: ${(error as Error).message}` }));
            },
          );
          return;
        }
        const forward = async () => {
          const reply = await request(`${this.upstream}${req.url ?? '/'}`, {
            method: (req.method ?? 'GET') as 'GET',
            headers: forwardable(req.headers),
            body: text === '' ? undefined : text,
          });
          const answer = await reply.body.text();
          const lose = this.toLose.get(path) ?? 0;
          if (lose > 0) {
            // Processed upstream; the caller never hears about it.
            this.toLose.set(path, lose - 1);
            req.socket.destroy();
            return;
          }
          res.writeHead(reply.statusCode, forwardable(reply.headers as IncomingHttpHeaders));
          res.end(answer);
        };
        forward().catch((error: unknown) => {
          res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ code: 502, message: `relay: ${(error as Error).message}` }));
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${String((this.server!.address() as AddressInfo).port)}`;
  }

  /** The next `n` requests to `path` reach the venue, but their replies are lost. */
  loseRepliesAfterProcessing(path: string, n = 1): void {
    this.toLose.set(path, n);
  }

  /**
   * A hostile or broken API: requests to `path` are answered with what `answer` makes of their
   * body (it may call the venue itself) instead of the venue's own answer.
   */
  answerInstead(path: string, answer: (body: unknown) => Promise<unknown>): void {
    this.answerInsteadWithStatus(path, async (body) => ({ status: 200, body: await answer(body) }));
  }

  /** As answerInstead, with the HTTP status of the answer too (an error reply after the venue processed the request, say). */
  answerInsteadWithStatus(path: string, answer: (body: unknown) => Promise<{ readonly status: number; readonly body: unknown }>): void {
    this.substitutes.set(path, answer);
  }

  /** Requests to `path` reach the venue again (undoes answerInstead). */
  answerNormally(path: string): void {
    this.substitutes.delete(path);
  }

  /** Requests relayed to `path` (POST bodies parsed). */
  to(path: string): RelayedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A wallet of the test: a key file loaded by the real signer, which counts its signatures. */
export interface TestWallet {
  readonly keypair: Keypair;
  readonly address: string;
  readonly signer: TransactionSigner;
  readonly signatures: () => number;
}

export const EXECUTE_PATH = '/perps/v1/transaction/execute';
export const TRIGGER_EXECUTE_PATH = '/trigger/v1/execute';

/**
 * The executor wired as the daemon wires it (ApiActionBuilder, PolicyInspector,
 * TradeHistoryKeeperFillWatch, a LocalKeypairSigner from a key file, ActionStore and Ledger on Redis),
 * against an in-process venue reached through an ApiRelay.
 */
export class VenueExecutorHarness {
  readonly settled: Array<{ actionId: string; outcome: string }> = [];
  readonly store: ActionStore;
  readonly ledger: Ledger;
  readonly chain: ChainClient;
  /** The executor's client (through the relay). */
  readonly client: ApiClient;
  /** The test's own client, straight to the venue. */
  readonly direct: ApiClient;
  /** Aborted first on stop: a drive left behind by a failed test ends instead of polling a closed venue. */
  private readonly stopping = new AbortController();
  readonly signal = this.stopping.signal;
  private counter = 0;

  private constructor(
    readonly venue: Venue,
    readonly relay: ApiRelay,
    relayUrl: string,
    readonly redis: Redis,
    readonly prefix: string,
    private readonly keyDir: string,
  ) {
    this.store = new ActionStore(redis, prefix);
    this.ledger = new Ledger(redis, { prefix, maxLen: 10_000 });
    this.chain = new ChainClient(venue.rpcUrl);
    this.client = new ApiClient({ baseUrl: relayUrl, retries: 0, timeoutMs: 5_000 });
    this.direct = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  }

  static async start(redis: Redis, prefix: string, options: Partial<VenueOptions> = {}): Promise<VenueExecutorHarness> {
    const venue = await startVenue({ seed: 23, clock: { speed: 1 }, slotMs: 20, volatility: 0, ...options });
    const relay = new ApiRelay(venue.apiUrl);
    const relayUrl = await relay.start();
    const keyDir = await mkdtemp(join(tmpdir(), 'stratd-executor-venue-'));
    return new VenueExecutorHarness(venue, relay, relayUrl, redis, prefix, keyDir);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.client.close();
    await this.direct.close();
    await this.relay.stop();
    await this.venue.close();
    await rm(this.keyDir, { recursive: true, force: true });
    const keys = await this.redis.keys(`${this.prefix}*`);
    if (keys.length) await this.redis.del(...keys);
  }

  /** POST /__venue/<path> (fund, faults, ...); throws on anything but 200. */
  async control<T = Record<string, unknown>>(path: string, body: unknown): Promise<T> {
    const res = await request(`${this.venue.apiUrl}/__venue/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`venue control ${path}: ${String(res.statusCode)} ${text}`);
    return JSON.parse(text) as T;
  }

  /** A new key file, loaded in paper mode, funded with 10 SOL, 10,000 USDC and a 3x SOL long of 100 USD collateral. */
  async fundedWallet(): Promise<TestWallet> {
    const keypair = Keypair.generate();
    const path = join(this.keyDir, `wallet-${String(++this.counter)}.json`);
    await writeKeyFile(path, keypair);
    const real = await LocalKeypairSigner.fromKeyFile(path, { mode: 'paper' });
    let signatures = 0;
    const signer: TransactionSigner = {
      publicKey: real.publicKey,
      signMessage: async (message: Uint8Array) => {
        signatures++;
        return real.signMessage(message);
      },
    };
    const address = keypair.publicKey.toBase58();
    await this.control('fund', {
      wallet: address,
      sol: '10000000000',
      usdc: '10000000000',
      positions: [{ market: 'SOL', side: 'long', collateralUsd: '100000000', leverage: '3' }],
    });
    return { keypair, address, signer, signatures: () => signatures };
  }

  /** The wallet's open positions, as the API lists them. */
  async positions(wallet: TestWallet) {
    return (await this.direct.call('perps.positions', { walletAddress: wallet.address })).dataList;
  }

  executor(wallet: TestWallet, extra: Partial<ExecutorOptions> = {}): Executor {
    return new Executor({
      store: this.store,
      submitter: new RoutedSubmitter({ client: this.client, chain: this.chain }),
      chain: this.chain,
      builder: new ApiActionBuilder({ client: this.client, wallet: wallet.signer.publicKey, slippageBps: 100 }),
      inspector: new PolicyInspector({ wallet: wallet.signer.publicKey, priorityFeeCapLamports: 5_000_000n, slippageBps: 100, markPrice: venueMarkPrice(this.direct, wallet.address), positionAmounts: venuePositionAmounts(this.direct, wallet.address), marketMarkPrice: async (mint) => this.venue.market.price(mint), priceDriftBps: 300, readBlockhash: this.chain.blockhashStanding, limitOrder: limitOrderFromSnapshots(this.redis, this.prefix, wallet.address, async () => (await this.direct.call('perps.limitOrders', { walletAddress: wallet.address })).dataList) }),
      signer: wallet.signer,
      keeperFills: new TradeHistoryKeeperFillWatch(this.client, wallet.signer.publicKey),
      requestValidity: async () => 45,
      settle: async (record: ActionRecord, outcome) => {
        this.settled.push({ actionId: record.actionId, outcome });
      },
      ledger: this.ledger,
      confirmPollMs: 25,
      rebroadcastMs: 200,
      ...extra,
    });
  }

  /** A valid action job for an intent, decided now. */
  job(intent: Intent): ActionJob {
    const now = Date.now();
    return actionJobSchema.parse({
      actionId: actionIdFor('venue-test', intent.key, now),
      strategy: 'venue-test',
      intent,
      decidedAtMs: now,
      window: now,
      trigger: { kind: 'positions', key: 'venue-test', tickMs: now, receivedAtMs: now },
    });
  }

  /** The states an action went through, from the ledger stream in Redis. */
  async statesOf(actionId: string): Promise<string[]> {
    const entries = await this.ledger.read({ reverse: false, limit: 10_000, types: ['action_state'] });
    return entries.filter((e) => e.actionId === actionId).map((e) => e.state ?? '');
  }

  outcomesOf(actionId: string): string[] {
    return this.settled.filter((s) => s.actionId === actionId).map((s) => s.outcome);
  }

  /** Landed transactions of this signature on the venue chain. */
  landedCount(signature: string | undefined): number {
    return this.venue.chain.landed().filter((l) => l.signature === signature).length;
  }
}

/**
 * Polls `check` until it answers a value, or fails after `timeoutMs`. The default is just under
 * the suite's 30 s test timeout, not near a step's normal duration: on a loaded two-core CI host a
 * build, inspection and send that takes 1 s alone took 10 s, and a shorter deadline failed a test
 * whose condition came true a moment later. The message still names what was awaited.
 */
export async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 25_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Whether `signer` holds a required-signer slot of `tx` with a valid ed25519 signature of its message. */
export function signatureVerifies(tx: VersionedTransaction, signer: PublicKey): boolean {
  const index = tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures).findIndex((k) => k.equals(signer));
  const signature = tx.signatures[index];
  if (index < 0 || !signature || signature.every((b) => b === 0)) return false;
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), signer.toBuffer()]);
  return verify(null, tx.message.serialize(), { key: spki, format: 'der', type: 'spki' }, signature);
}
