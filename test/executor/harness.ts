import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import { LocalKeypairSigner } from '../../src/chain/signer.ts';
import type { Redis } from 'ioredis';
import { ApiClient } from '../../src/api/client.ts';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { actionIdFor } from '../../src/records/action.ts';
import { Executor, type ExecutorOptions, type NewAction } from '../../src/pipeline/executor/executor.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import { RoutedSubmitter } from '../../src/pipeline/executor/routed-submitter.ts';
import type { ActionBuilder, TransactionInspector, TransactionSigner } from '../../src/pipeline/executor/ports.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { VenueChain } from '../../src/venue/chain/chain.ts';
import { startRpcServer, type RpcServer } from '../../src/venue/chain/rpc-server.ts';
import { VenueClock } from '../../src/venue/clock.ts';
import { MINTS } from '../../src/api/mints.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { triggerCancelInstructions } from '../../src/venue/tx/limit-order-instructions.ts';
import { buildRequestTransaction, toBase64 } from '../../src/venue/tx/builder.ts';
import { RequestBook } from '../../src/venue/tx/request-book.ts';

/**
 * The executor against the venue's real chain over JSON-RPC, with a builder that makes the same
 * transactions the venue's API does (no HTTP API needed to exercise routing, rebroadcast, expiry
 * and crash recovery).
 */
export class ChainHarness {
  readonly clock = new VenueClock({ speed: 1 });
  readonly requests = new RequestBook();
  readonly chain: VenueChain;
  readonly wallet = Keypair.generate();
  readonly committed: Array<{ strategy: string; state: unknown }> = [];
  readonly settled: Array<{ actionId: string; outcome: string }> = [];
  signCount = 0;
  rpc!: RpcServer;
  chainClient!: ChainClient;
  readonly api = new ApiClient({ baseUrl: 'http://127.0.0.1:1', retries: 0 });

  constructor(
    readonly redis: Redis,
    readonly prefix: string,
    readonly slotMs = 20,
  ) {
    this.chain = new VenueChain({ clock: this.clock, seed: 11, slotMs, requests: this.requests });
    this.actionLedger = new Ledger(redis, { prefix, maxLen: 10_000 });
  }

  async start(): Promise<void> {
    this.rpc = await startRpcServer(this.chain, { port: 0 });
    this.chainClient = new ChainClient(this.rpc.url);
  }

  async stop(): Promise<void> {
    await this.rpc.close();
    await this.api.close();
    const keys = await this.redis.keys(`${this.prefix}*`);
    if (keys.length) await this.redis.del(...keys);
  }

  readonly builder: ActionBuilder = {
    build: async (record: ActionRecord) => {
      const { blockhash, lastValidBlockHeight } = this.chain.latestBlockhash();
      const requestId = `${record.actionId}-${Date.now()}`;
      // The cancel of newAction()'s order, as the venue builds it; a memo of the request id keeps
      // every build's bytes (and so its signature) its own.
      const tx = buildRequestTransaction({
        payer: this.wallet.publicKey,
        product: 'trigger',
        requestId,
        blockhash,
        instructions: [
          ...triggerCancelInstructions(this.wallet.publicKey.toBase58(), [{ orderKey: NEW_ACTION_ORDER, inputMint: MINTS.USDC }]),
          new TransactionInstruction({ programId: new PublicKey(PROGRAMS.memo), keys: [], data: Buffer.from(requestId) }),
        ],
      });
      this.requests.register(tx, { requestId: record.actionId, operationId: 'trigger.createOrder', wallet: this.wallet.publicKey.toBase58(), createdAtMs: this.clock.now(), transactionType: 'legacy', payload: {} });
      return {
        operationId: 'trigger.cancelOrder',
        route: 'rpc',
        unsignedTx: toBase64(tx),
        txMetadata: { blockhash, lastValidBlockHeight: String(lastValidBlockHeight), transactionFeeLamports: '5000', accountRentLamports: '0' },
        awaitsKeeper: false,
      };
    },
  };

  /** The daemon's policy, asking the venue chain's RPC about each build's blockhash (started by start()). */
  readonly inspector: TransactionInspector = new PolicyInspector({ wallet: this.wallet.publicKey, priorityFeeCapLamports: 5_000_000n, readBlockhash: (blockhash) => this.chainClient.blockhashStanding(blockhash) });

  /**
   * The policy inspector, except that its first inspection fails as an RPC outage would: the
   * executor then stores the build (`built`) and inspects it again on the retry. That is how a
   * record comes to be stored at `built`; tests stop a drive there with onTransition.
   */
  inspectorFailingOnce(): TransactionInspector {
    let failed = false;
    return {
      inspect: async (...args) => {
        if (failed) return this.inspector.inspect(...args);
        failed = true;
        throw new Error('the RPC did not answer the inspection');
      },
    };
  }

  readonly signer: TransactionSigner = {
    publicKey: this.wallet.publicKey,
    signMessage: async (message: Uint8Array) => {
      this.signCount++;
      return LocalKeypairSigner.fromEnv('KEY', { mode: 'paper', env: { KEY: bs58.encode(this.wallet.secretKey) } }).signMessage(message);
    },
  };

  readonly actionLedger: Ledger;

  /** The states an action went through, read back from the ledger stream in Redis. */
  async statesOf(actionId: string): Promise<string[]> {
    const entries = await this.actionLedger.read({ reverse: false, limit: 10_000, types: ['action_state'] });
    return entries.filter((e) => e.actionId === actionId).map((e) => e.state ?? '');
  }

  executor(extra: Partial<ExecutorOptions> = {}): Executor {
    return new Executor({
      store: new ActionStore(this.redis, this.prefix),
      submitter: new RoutedSubmitter({ client: this.api, chain: this.chainClient }),
      chain: this.chainClient,
      builder: this.builder,
      inspector: this.inspector,
      signer: this.signer,
      keeperFills: { fulfilled: async () => ({}) },
      requestValidity: async () => 45,
      settle: async (record, outcome) => {
        this.settled.push({ actionId: record.actionId, outcome });
        if ((outcome === 'landed' || outcome === 'ambiguous') && record.stateAfter !== undefined) this.committed.push({ strategy: record.strategy, state: record.stateAfter });
      },
      ledger: this.actionLedger,
      confirmPollMs: 25,
      rebroadcastMs: 60,
      ...extra,
    });
  }
}

/** The order newAction()'s trigger-cancel intents name. */
const NEW_ACTION_ORDER = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';

let counter = 0;
export function newAction(overrides: { stateAfter?: NewAction['stateAfter'] } = {}): NewAction {
  counter++;
  const key = `cancel-${process.pid}-${counter}-${Date.now()}`;
  return {
    actionId: actionIdFor('test-strategy', key, 0),
    strategy: 'test-strategy',
    intent: { type: 'trigger-cancel', key, reason: 'test', notionalUsd: '0', order: NEW_ACTION_ORDER },
    decidedAtMs: Date.now(),
    window: 0,
    stateAfter: overrides.stateAfter,
  };
}
