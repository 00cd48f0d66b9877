import { Connection, type Commitment } from '@solana/web3.js';
import { z } from 'zod';
import type { AccountReader, ChainAccount } from './policy/chain-facts.ts';
import type { BlockhashReader } from './policy/check-blockhash.ts';
import { BlockhashStandingCache } from './blockhash-standing-cache.ts';
import { JsonRpc, JsonRpcError } from './json-rpc.ts';
import { observedFetch, type RpcObserver } from './rpc-observer.ts';
import { rpcFetch } from './rpc-transport.ts';
import { rawStatus, SignatureStatusBatch } from './signature-status-batch.ts';
import { jsonRpcSimulation, type SimulationRpc } from './simulate-transaction.ts';
import { readTokenHoldings, type TokenHolding } from './token-holdings.ts';

/** Why the RPC refused a transaction, as far as a caller needs to act on it. */
type SendRefusal = 'blockhash_not_found' | 'signature_invalid' | 'already_processed' | 'rpc_error' | 'network';

export type SendResult = { readonly ok: true } | { readonly ok: false; readonly refusal: SendRefusal; readonly message: string };

export interface SignatureSeen {
  readonly slot: number;
  readonly err: unknown;
  readonly confirmationStatus?: string;
  /**
   * Whether the status is at or past the commitment this client was made with (config
   * rpc.commitment). Below it the transaction is in a block that a fork may still drop, after
   * which the same bytes could land again: nothing about it is final yet.
   */
  readonly committed: boolean;
}

const COMMITMENT_RANK: Readonly<Record<string, number>> = { processed: 0, confirmed: 1, finalized: 2 };

/** The JSON-RPC error a node answers when it has not reached a request's minContextSlot. */
const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;

/** One node's tip: its slot and its block height, from one answer. */
export interface ChainTip {
  readonly slot: number;
  readonly blockHeight: number;
}

const epochInfo = z.looseObject({ absoluteSlot: z.number().int().nonnegative(), blockHeight: z.number().int().nonnegative() });
const contextSlot = z.looseObject({ slot: z.number().int().nonnegative() });
const blockhashValidity = z.looseObject({ context: contextSlot, value: z.boolean() });
const statusesWithContext = z.looseObject({ context: contextSlot, value: z.array(rawStatus.nullable()).length(1) });

/**
 * The few chain calls the executor makes, over a web3.js `Connection`: send with
 * `maxRetries: 0` (we rebroadcast ourselves), poll signature statuses (no websocket; the polls of
 * one event-loop turn share a request), read
 * the block height, ask whether a blockhash is still valid.
 */
export class ChainClient {
  readonly connection: Connection;

  constructor(
    url: string,
    private readonly commitment: Commitment = 'confirmed',
    private readonly skipPreflight = true,
    observer?: RpcObserver,
    /** Deadline of every call (config rpc.timeoutMs): a stalled node must not hold an action's step. */
    readonly timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
    /** How old a block height may be when reused instead of asked again (one slot by default). */
    private readonly heightMaxAgeMs = BLOCK_HEIGHT_MAX_AGE_MS,
  ) {
    const timed = rpcFetch(timeoutMs);
    const fetchImpl = observer ? observedFetch(observer, timed) : timed;
    this.connection = new Connection(url, { commitment, disableRetryOnRateLimit: true, fetch: fetchImpl });
    // The lean client tells the observer itself, from the reply it parses anyway (the observed
    // fetch would parse the request and the reply a second time).
    this.rpc = new JsonRpc(url, timed, observer);
    this.statuses = new SignatureStatusBatch(this.rpc);
    this.blockhashes = new BlockhashStandingCache(this.rpc, heightMaxAgeMs);
    this.simulation = jsonRpcSimulation(this.rpc);
  }

  /** The balance-delta check's reads (simulate-transaction.ts): the simulated post-state and the pre-state. */
  readonly simulation: SimulationRpc;

  /**
   * The hot calls (send, statuses, height, accounts) go through a lean client; the rest through
   * `connection`. A plain private member, not #rpc: tests wrap a client with Object.create.
   */
  private readonly rpc: JsonRpc;
  /** Status lookups of one event-loop turn share one getSignatureStatuses request. */
  private readonly statuses: SignatureStatusBatch;
  /** Lookups of one blockhash in flight share a request; a valid answer serves one slot. */
  private readonly blockhashes: BlockhashStandingCache;

  async sendRaw(raw: Uint8Array): Promise<SendResult> {
    try {
      await this.rpc.call(
        'sendTransaction',
        [Buffer.from(raw).toString('base64'), { encoding: 'base64', skipPreflight: this.skipPreflight, preflightCommitment: this.commitment, maxRetries: 0 }],
        z.string(),
      );
      return { ok: true };
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      if (/blockhash not found|block ?height exceeded|expired/i.test(message)) return { ok: false, refusal: 'blockhash_not_found', message };
      if (/signature verification|invalid signature|missing signature|signature.*fail/i.test(message)) return { ok: false, refusal: 'signature_invalid', message };
      if (/already (been )?processed/i.test(message)) return { ok: false, refusal: 'already_processed', message };
      if (/fetch failed|ECONNREFUSED|ECONNRESET|socket|network|timeout|abort/i.test(message)) return { ok: false, refusal: 'network', message };
      return { ok: false, refusal: 'rpc_error', message };
    }
  }

  /** The signature's status, searching history so an old landing is not missed; null when unseen. */
  async signatureStatus(signature: string): Promise<SignatureSeen | null> {
    return this.rankedStatus(await this.statuses.status(signature));
  }

  /**
   * The signature's status with the slot of the node that answered: one request of its own, for
   * the last look before an expiry, where who answered matters (a node behind the one that proved
   * the height may not have seen the landing yet).
   */
  async signatureStatusAt(signature: string): Promise<{ readonly contextSlot: number; readonly seen: SignatureSeen | null }> {
    const { context, value } = await this.rpc.call('getSignatureStatuses', [[signature], { searchTransactionHistory: true }], statusesWithContext);
    return { contextSlot: context.slot, seen: this.rankedStatus(value[0] ?? null) };
  }

  private rankedStatus(status: z.infer<typeof rawStatus> | null): SignatureSeen | null {
    if (!status) return null;
    // A node that reports no confirmationStatus (older RPC versions) answers only for rooted
    // history with `confirmations: null`; otherwise the status is ranked against our commitment.
    const reached = status.confirmationStatus ?? (status.confirmations === null ? 'finalized' : 'processed');
    const committed = (COMMITMENT_RANK[reached] ?? 0) >= (COMMITMENT_RANK[this.commitment] ?? 1);
    return { slot: status.slot, err: status.err, confirmationStatus: status.confirmationStatus ?? undefined, committed };
  }

  /**
   * An expiry's proof is read at `confirmed` at least: a `processed` tip can be a minority fork's,
   * past a height the cluster's main fork has not reached, where the transaction can still land.
   */
  private get proofCommitment(): Commitment {
    return (COMMITMENT_RANK[this.commitment] ?? 0) >= COMMITMENT_RANK.confirmed! ? this.commitment : 'confirmed';
  }

  /** One node's slot and block height, from one answer (getEpochInfo), never cached: an expiry is judged on it. */
  async tip(): Promise<ChainTip> {
    const info = await this.rpc.call('getEpochInfo', [{ commitment: this.proofCommitment }], epochInfo);
    return { slot: info.absoluteSlot, blockHeight: info.blockHeight };
  }

  /**
   * Whether the node holds `blockhash` valid, answered at `minContextSlot` or later, and its slot;
   * undefined when the answering node has not reached that slot. Never cached.
   */
  async blockhashValidSince(blockhash: string, minContextSlot: number): Promise<{ readonly slot: number; readonly valid: boolean } | undefined> {
    try {
      const { context, value } = await this.rpc.call('isBlockhashValid', [blockhash, { commitment: this.proofCommitment, minContextSlot }], blockhashValidity);
      return { slot: context.slot, valid: value };
    } catch (error) {
      if (error instanceof JsonRpcError && error.code === MIN_CONTEXT_SLOT_NOT_REACHED) return undefined;
      throw error;
    }
  }

  #height: { readonly value: number; readonly atMs: number } | undefined;

  /**
   * The chain's block height, reused for up to `heightMaxAgeMs`: the executor asks before inspect,
   * before sign and on every look at an ambiguous action. Heights only grow, so an answer a slot
   * old can only make an expiry proof (height past lastValidBlockHeight) come later, never a
   * false one; the cache keeps the highest height seen.
   */
  async blockHeight(): Promise<number> {
    const cached = this.#height;
    if (cached && Date.now() - cached.atMs <= this.heightMaxAgeMs) return cached.value;
    // A read already on its way answers too: it started less than heightMaxAgeMs ago, so its
    // height is no older than a cached one may be (six actions built together asked six times).
    const pending = this.#heightRead;
    if (pending && Date.now() - pending.startedAtMs <= this.heightMaxAgeMs) return pending.read;
    const startedAtMs = Date.now();
    const read = this.rpc.call('getBlockHeight', [{ commitment: this.commitment }], z.number().int().nonnegative()).then((value) => {
      // Stamped with the read's start: the height is at least that old's.
      if (!this.#height || value >= this.#height.value) this.#height = { value, atMs: startedAtMs };
      return Math.max(value, this.#height.value);
    });
    this.#heightRead = { read, startedAtMs };
    try {
      return await read;
    } finally {
      if (this.#heightRead?.read === read) this.#heightRead = undefined;
    }
  }

  /** The getBlockHeight call in flight, if any, and when it started. */
  #heightRead: { readonly read: Promise<number>; readonly startedAtMs: number } | undefined;

  /** Reads accounts (the policy's chain facts) with `getMultipleAccounts`, 100 per call, at `confirmed`. */
  readonly readAccounts: AccountReader = async (keys) => {
    const answers: Array<ChainAccount | null> = [];
    for (let i = 0; i < keys.length; i += MAX_ACCOUNTS_PER_CALL) {
      const batch = keys.slice(i, i + MAX_ACCOUNTS_PER_CALL);
      const { value } = await this.rpc.call('getMultipleAccounts', [batch, { encoding: 'base64', commitment: 'confirmed' }], multipleAccounts);
      if (value.length !== batch.length) throw new JsonRpcError(`getMultipleAccounts: ${value.length} answers for ${batch.length} keys`);
      answers.push(...value.map((a) => (a ? { owner: a.owner, data: Buffer.from(a.data[0], 'base64') } : null)));
    }
    return answers;
  };

  /**
   * Whether our node knows `blockhash` as valid, and its slot when it said so (the policy's
   * stale_blockhash rule; the executor records the slot as the build's).
   */
  readonly blockhashStanding: BlockhashReader = (blockhash) => this.blockhashes.standing(blockhash);

  /** The tokens `owner` holds a non-zero amount of (the heldTokens poller prices them). */
  tokenHoldings(owner: string): Promise<TokenHolding[]> {
    return readTokenHoldings(this.rpc, owner);
  }

  async isBlockhashValid(blockhash: string): Promise<boolean> {
    const { value } = await this.connection.isBlockhashValid(blockhash);
    return value;
  }
}

const multipleAccounts = z.looseObject({
  value: z.array(z.looseObject({ owner: z.string(), data: z.tuple([z.string(), z.literal('base64')]) }).nullable()),
});

const MAX_ACCOUNTS_PER_CALL = 100;

const DEFAULT_RPC_TIMEOUT_MS = 3_000;
/** One Solana slot: a block height this old is as good as a fresh one for the executor's checks. */
const BLOCK_HEIGHT_MAX_AGE_MS = 400;
