import { createHash } from 'node:crypto';
import { Keypair, type VersionedMessage } from '@solana/web3.js';
import { MINTS } from '../../api/mints.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import { silentLogger, type Logger } from '../../kernel/logger.ts';
import type { VenueClock } from '../clock.ts';
import type { PendingRequest, RequestBook } from '../tx/request-book.ts';
import {
  checkBlockhash,
  checkPrograms,
  decodeTransaction,
  isSignatureSlotEmpty,
  signerIndex,
  transactionSignature,
  verifySignatures,
  type DecodedTransaction,
} from './admission.ts';
import { BlockhashRegistry, derivedBase58, type BlockhashInfo } from './blockhashes.ts';
import { transactionFeeLamports } from './compute-budget.ts';
import { ed25519Signer } from './ed25519.ts';
import { landingError, type LandedTransaction, type LandingHandler, type SignatureStatus, type SubmitOutcome, type SubmitVia, type TransactionErrorValue } from './landed.ts';
import { ChainArgumentError, ChainRejection } from './rejection.ts';
import { Prng } from '../market/prng.ts';
import { PostStateView, SimulatedShortfall, simulateExecution, type AccountView, type BalanceChange, type TokenAccountView } from './simulation.ts';
import { TokenAccountIndex } from './token-accounts.ts';
import { TokenLedger } from './token-ledger.ts';

export interface VenueChainOptions {
  readonly clock: VenueClock;
  readonly seed: number;
  /** Venue ms per slot (default 400, as mainnet). */
  readonly slotMs?: number;
  /** Blocks a blockhash stays valid for (default 150). */
  readonly blockhashValidBlocks?: number;
  /** Fills LandedTransaction.request for venue-built transactions. */
  readonly requests?: RequestBook;
  /** Slot and block height at genesis; they differ as on mainnet (skipped slots), default 1000 / 900. */
  readonly firstSlot?: number;
  readonly firstBlockHeight?: number;
  /** 'charge': fee payers pay 5000 lamports per signature plus the priority fee and need the
   * balance for it; 'none' (default): transactions are free, wallets need no SOL. */
  readonly fees?: 'none' | 'charge';
  /** Program ids besides PROGRAMS that transactions may invoke. */
  readonly extraPrograms?: readonly string[];
  readonly logger?: Logger;
}

/** Status-cache depth of a real node: older statuses need searchTransactionHistory. */
export const STATUS_CACHE_SLOTS = 300;
/** Slots after which a landed transaction is rooted (finalized). */
export const FINALIZED_AFTER_SLOTS = 32;

interface SimulationResult {
  readonly err: TransactionErrorValue | null;
  readonly logs: string[];
  readonly unitsConsumed: number;
  /** The blockhash simulated with, when replaceRecentBlockhash was asked for. */
  readonly replacementBlockhash?: { blockhash: string; lastValidBlockHeight: number };
  /** Balances had the transaction executed now (the chain's own when it would fail). */
  readonly postState: AccountView;
}

/**
 * What a venue-built transaction's own execution changes, computed without applying it (the
 * market's effects of its request). Throws what its landing would throw when it would fail.
 */
type EffectsHandler = (request: PendingRequest) => readonly BalanceChange[];

/**
 * TEST FAULT: an outflow that simulations show from the fee payer and landings never apply, as a
 * program's hidden CPI would move a token that no instruction decodes to. Only the signing
 * policy's simulation check can see it.
 */
interface SimulatedOutflowFault {
  readonly mint: string;
  readonly amount: bigint;
}

/** The chain's observable state, JSON-ready (amounts as integer strings), for /__venue/ views. */
interface ChainState {
  readonly slot: number;
  readonly blockHeight: number;
  readonly slotMs: number;
  readonly genesisHash: string;
  readonly keeper: string;
  readonly fees: 'none' | 'charge';
  readonly faults: { readonly dropRate: number; readonly dropAll: boolean; readonly simulatedOutflow: { readonly mint: string; readonly amount: string } | null };
  readonly landedCount: number;
  /** Lamports by wallet. */
  readonly lamports: Record<string, string>;
  /** Token amounts by owner, then mint. */
  readonly tokens: Record<string, Record<string, string>>;
}

/** What a resumed chain remembers of a transaction landed before the restart. */
export interface EarlierLanding {
  readonly signature: string;
  readonly slot: number;
  readonly landedAtMs: number;
  readonly err: TransactionErrorValue | null;
}

interface MutableLanded extends Omit<LandedTransaction, 'err'> {
  err: TransactionErrorValue | null;
}

/**
 * The venue's chain: slots and block height driven by the venue clock, deterministic
 * blockhashes, balances, and a transaction pipeline that verifies every signature and the
 * blockhash, lands each signed transaction once and hands it to the market model.
 */
export class VenueChain implements AccountView {
  readonly clock: VenueClock;
  readonly seed: number;
  readonly slotMs: number;
  readonly blockhashValidBlocks: number;
  readonly genesisMs: number;
  readonly genesisHash: string;
  /** The venue's keeper: co-signs instant transactions submitted through execute operations. */
  readonly keeper: Keypair;
  private readonly firstSlot: number;
  private readonly firstBlockHeight: number;
  private readonly fees: 'none' | 'charge';
  private readonly requests?: RequestBook;
  private readonly logger: Logger;
  private readonly programs: ReadonlySet<string>;
  private readonly blockhashes: BlockhashRegistry;
  private readonly signKeeper: (message: Uint8Array) => Uint8Array;
  private readonly dropRandom: Prng;
  private readonly lamports = new Map<string, bigint>();
  private readonly tokens = new TokenLedger();
  private readonly tokenAccounts = new TokenAccountIndex(() => this.tokens.heldPairs());
  private effects: EffectsHandler | undefined;
  private simulatedOutflow: SimulatedOutflowFault | null = null;
  private readonly landedList: MutableLanded[] = [];
  private readonly landedBySignature = new Map<string, MutableLanded>();
  private readonly handlers: LandingHandler[] = [];
  /** Statuses of transactions landed before a restart (no bytes kept): still landed, never again. */
  private readonly landedEarlier = new Map<string, EarlierLanding>();
  private readonly changeListeners: Array<() => void> = [];
  private dropRate = 0;
  private dropAll = false;

  constructor(opts: VenueChainOptions) {
    this.clock = opts.clock;
    this.seed = opts.seed;
    this.slotMs = opts.slotMs ?? 400;
    this.blockhashValidBlocks = opts.blockhashValidBlocks ?? 150;
    this.firstSlot = opts.firstSlot ?? 1_000;
    this.firstBlockHeight = opts.firstBlockHeight ?? 900;
    if (!Number.isFinite(opts.seed)) throw new ChainArgumentError(`seed must be a finite number, got ${String(opts.seed)}`);
    if (!(this.slotMs > 0)) throw new ChainArgumentError(`slotMs must be positive, got ${String(opts.slotMs)}`);
    if (!Number.isInteger(this.blockhashValidBlocks) || this.blockhashValidBlocks < 1) {
      throw new ChainArgumentError(`blockhashValidBlocks must be a positive integer, got ${String(opts.blockhashValidBlocks)}`);
    }
    this.fees = opts.fees ?? 'none';
    this.requests = opts.requests;
    this.logger = opts.logger ?? silentLogger;
    this.programs = new Set([...Object.values(PROGRAMS), ...(opts.extraPrograms ?? [])]);
    this.genesisMs = opts.clock.now();
    this.genesisHash = derivedBase58(`stratd-venue:genesis:${String(opts.seed)}`);
    const keeperSeed = createHash('sha256').update(`stratd-venue:keeper:${String(opts.seed)}`).digest();
    this.keeper = Keypair.fromSeed(keeperSeed);
    this.signKeeper = ed25519Signer(keeperSeed);
    this.blockhashes = new BlockhashRegistry(opts.seed, this.blockhashValidBlocks);
    this.dropRandom = new Prng(opts.seed, 'chain:drop');
  }

  // ---- time

  private elapsedSlots(): number {
    return Math.max(0, Math.floor((this.clock.now() - this.genesisMs) / this.slotMs));
  }

  slot(): number {
    return this.firstSlot + this.elapsedSlots();
  }

  blockHeight(): number {
    return this.firstBlockHeight + this.elapsedSlots();
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    const elapsed = this.elapsedSlots();
    const info = this.blockhashes.issue(this.firstSlot + elapsed, this.firstBlockHeight + elapsed);
    return { blockhash: info.blockhash, lastValidBlockHeight: info.lastValidBlockHeight };
  }

  /**
   * A blockhash this chain issued for the slot just too old to use: known, and its last valid
   * height one block behind the current height (the venue's `staleBlockhash: 'expired'` fault).
   */
  expiredBlockhash(): string {
    const elapsed = this.elapsedSlots() - this.blockhashValidBlocks - 1;
    return this.blockhashes.issue(this.firstSlot + elapsed, this.firstBlockHeight + elapsed).blockhash;
  }

  /** Known (issued by this chain) and the block height not yet past its last valid height. */
  isBlockhashValid(blockhash: string): boolean {
    const info = this.blockhashes.lookup(blockhash);
    return info !== undefined && this.blockHeight() <= info.lastValidBlockHeight;
  }

  blockhashInfo(blockhash: string): BlockhashInfo | undefined {
    return this.blockhashes.lookup(blockhash);
  }

  // ---- balances

  getBalance(pubkey: string): bigint {
    return this.lamports.get(pubkey) ?? 0n;
  }

  credit(pubkey: string, lamports: bigint): void {
    if (lamports < 0n) throw new ChainArgumentError(`credit: lamports must be >= 0, got ${lamports.toString()}`);
    this.lamports.set(pubkey, this.getBalance(pubkey) + lamports);
    this.changed();
  }

  /** Takes lamports away; throws ChainRejection('insufficient_funds') (inside a landing handler it fails the tx). */
  debit(pubkey: string, lamports: bigint): void {
    if (lamports < 0n) throw new ChainArgumentError(`debit: lamports must be >= 0, got ${lamports.toString()}`);
    const balance = this.getBalance(pubkey);
    if (balance < lamports) {
      throw new ChainRejection('insufficient_funds', `${pubkey} has ${balance.toString()} lamports, needs ${lamports.toString()}`);
    }
    this.lamports.set(pubkey, balance - lamports);
    this.changed();
  }

  getTokenBalance(owner: string, mint: string): bigint {
    return this.tokens.balance(owner, mint);
  }

  creditToken(owner: string, mint: string, amount: bigint): void {
    this.tokens.credit(owner, mint, amount);
    this.changed();
  }

  debitToken(owner: string, mint: string, amount: bigint): void {
    this.tokens.debit(owner, mint, amount);
    this.changed();
  }

  /** The associated token account at `address` as a node shows it, or undefined when none exists. */
  tokenAccountAt(address: string): TokenAccountView | undefined {
    const holder = this.tokenAccounts.holderOf(address);
    if (!holder || !this.tokens.hasHeld(holder.owner, holder.mint)) return undefined;
    return { ...holder, amount: this.tokens.balance(holder.owner, holder.mint) };
  }

  /** Whose associated token account `address` is (whether or not it exists yet). */
  tokenHolderAt(address: string): { readonly owner: string; readonly mint: string } | undefined {
    return this.tokenAccounts.holderOf(address);
  }

  noteTokenHolder(holder: { readonly owner: string; readonly mint: string }): void {
    this.tokenAccounts.note({ owner: holder.owner, mint: holder.mint });
  }

  /**
   * Every token account of `owner` a node would list (getTokenAccountsByOwner): each mint it ever
   * held, zero balances included (an account outlives its balance until it is closed).
   */
  tokenAccountsOf(owner: string): TokenAccountView[] {
    const accounts: TokenAccountView[] = [];
    for (const pair of this.tokens.heldPairs()) if (pair.owner === owner) accounts.push({ owner, mint: pair.mint, amount: this.tokens.balance(owner, pair.mint) });
    return accounts;
  }

  /** Every non-zero token balance of `owner`, by mint. */
  tokenBalances(owner: string): ReadonlyMap<string, bigint> {
    return this.tokens.balancesOf(owner);
  }

  /**
   * Calls `listener` after every change of a balance and after every landing (paper mode saves
   * the venue state on it); returns an unsubscribe.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.push(listener);
    return () => {
      const index = this.changeListeners.indexOf(listener);
      if (index >= 0) this.changeListeners.splice(index, 1);
    };
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  // ---- faults

  /** Share (0..1) of otherwise valid submissions accepted but never landed (seeded PRNG). */
  setDropRate(rate: number): void {
    if (!(rate >= 0 && rate <= 1)) throw new ChainArgumentError(`drop rate must be within 0..1, got ${String(rate)}`);
    this.dropRate = rate;
  }

  setDropAll(drop: boolean): void {
    this.dropAll = drop;
  }

  /** TEST FAULT (SimulatedOutflowFault): simulations show this outflow from the fee payer; null removes it. */
  setSimulatedOutflow(fault: SimulatedOutflowFault | null): void {
    if (fault && fault.amount <= 0n) throw new ChainArgumentError(`simulated outflow must be above zero, got ${fault.amount.toString()}`);
    this.simulatedOutflow = fault;
  }

  faults(): { dropRate: number; dropAll: boolean; simulatedOutflow: { mint: string; amount: string } | null } {
    const outflow = this.simulatedOutflow;
    return { dropRate: this.dropRate, dropAll: this.dropAll, simulatedOutflow: outflow && { mint: outflow.mint, amount: outflow.amount.toString() } };
  }

  state(): ChainState {
    return {
      slot: this.slot(),
      blockHeight: this.blockHeight(),
      slotMs: this.slotMs,
      genesisHash: this.genesisHash,
      keeper: this.keeper.publicKey.toBase58(),
      fees: this.fees,
      faults: this.faults(),
      landedCount: this.landedList.length,
      lamports: Object.fromEntries([...this.lamports].map(([wallet, amount]) => [wallet, amount.toString()])),
      tokens: this.tokens.snapshot(),
    };
  }

  // ---- transactions

  /** Sets what simulations compute a venue-built transaction's effects with (the market's). */
  onSimulate(handler: EffectsHandler): void {
    this.effects = handler;
  }

  /** Registers a landing handler (called once per landed tx, in order); returns an unsubscribe. */
  onLand(handler: LandingHandler): () => void {
    this.handlers.push(handler);
    return () => {
      const index = this.handlers.indexOf(handler);
      if (index >= 0) this.handlers.splice(index, 1);
    };
  }

  /**
   * Verifies and lands a signed transaction. Throws ChainRejection when it cannot land.
   * `via: 'execute'` is the service's own submission: an empty keeper signature slot is
   * filled by the keeper first (the keeper co-signs instant transactions).
   */
  submit(raw: Uint8Array, opts: { via: SubmitVia }): SubmitOutcome {
    const decoded = decodeTransaction(raw);
    const signature = transactionSignature(decoded);
    try {
      return this.admitAndLand(decoded, signature, opts.via);
    } catch (error) {
      if (error instanceof ChainRejection) error.signature = signature;
      throw error;
    }
  }

  private admitAndLand(decoded: DecodedTransaction, signature: string, via: SubmitVia): SubmitOutcome {
    if (via === 'execute') this.coSignAsKeeper(decoded);
    verifySignatures(decoded);
    const previous = this.landedBySignature.get(signature) ?? this.landedEarlier.get(signature);
    if (previous) return { signature, duplicate: true, landed: true, err: previous.err };
    checkBlockhash(decoded, this.blockhashes.lookup(decoded.transaction.message.recentBlockhash), this.blockHeight());
    checkPrograms(decoded, this.programs);
    const feeLamports = this.chargeableFee(decoded);
    if (this.dropAll || (this.dropRate > 0 && this.dropRandom.chance(this.dropRate))) {
      this.logger.debug({ signature }, 'venue chain: drop fault swallowed a transaction');
      return { signature, duplicate: false, landed: false, err: null };
    }
    const landed = this.land(decoded, signature, via, feeLamports);
    return { signature, duplicate: false, landed: true, err: landed.err };
  }

  /**
   * What a real node's simulateTransaction reports, without landing anything: the error the
   * transaction would fail with, logs, units and the post-state of every balance (the fee, and
   * the effects of the request the venue built it for, as its landing would apply them now; a
   * legacy perps request's own effect is its escrow, the keeper's fill comes later). Malformed
   * input and (with sigVerify) bad signatures throw ChainRejection; everything else is `err`.
   */
  simulate(raw: Uint8Array, opts: { sigVerify?: boolean; replaceRecentBlockhash?: boolean } = {}): SimulationResult {
    const decoded = decodeTransaction(raw);
    if (opts.sigVerify) verifySignatures(decoded);
    let replacementBlockhash: SimulationResult['replacementBlockhash'];
    const fail = (err: TransactionErrorValue, logs: string[] = [], unitsConsumed = 0): SimulationResult => ({ err, logs, unitsConsumed, replacementBlockhash, postState: this });
    let feeLamports: bigint;
    try {
      if (opts.replaceRecentBlockhash) replacementBlockhash = this.latestBlockhash();
      else checkBlockhash(decoded, this.blockhashes.lookup(decoded.transaction.message.recentBlockhash), this.blockHeight());
      const signature = transactionSignature(decoded);
      if (this.landedBySignature.has(signature) || this.landedEarlier.has(signature)) return fail('AlreadyProcessed');
      checkPrograms(decoded, this.programs);
      feeLamports = this.chargeableFee(decoded);
    } catch (error) {
      if (error instanceof ChainRejection) return fail(error.solanaError);
      throw error;
    }
    const execution = simulateExecution(decoded.transaction.message);
    const payer = decoded.requiredSigners[0]?.toBase58() ?? '';
    const changes: BalanceChange[] = feeLamports > 0n ? [{ owner: payer, mint: MINTS.SOL, delta: -feeLamports }] : [];
    if (this.simulatedOutflow) changes.push({ owner: payer, mint: this.simulatedOutflow.mint, delta: -this.simulatedOutflow.amount });
    const request = this.requests?.lookup(decoded.messageBytes);
    let postState: PostStateView;
    try {
      if (request && this.effects) changes.push(...this.effects(request));
      postState = new PostStateView(this, MINTS.SOL, changes);
    } catch (error) {
      const shortfall = error instanceof SimulatedShortfall ? new ChainRejection('insufficient_funds', error.message) : error;
      return fail(landingError(decoded.transaction.message, shortfall), [...execution.logs.slice(0, -1), `Program log: Error: ${(error as Error).message}`], execution.unitsConsumed);
    }
    return { err: null, ...execution, replacementBlockhash, postState };
  }

  getSignatureStatus(signature: string, opts: { searchTransactionHistory?: boolean } = {}): SignatureStatus | null {
    const landed = this.landedBySignature.get(signature) ?? this.landedEarlier.get(signature);
    if (!landed) return null;
    const age = this.slot() - landed.slot;
    if (opts.searchTransactionHistory === false && age > STATUS_CACHE_SLOTS) return null;
    if (age >= FINALIZED_AFTER_SLOTS) return { slot: landed.slot, confirmations: null, err: landed.err, confirmationStatus: 'finalized' };
    return { slot: landed.slot, confirmations: age, err: landed.err, confirmationStatus: age >= 1 ? 'confirmed' : 'processed' };
  }

  /** Every landed transaction, in landing order. */
  landed(): LandedTransaction[] {
    return [...this.landedList];
  }

  landedCount(): number {
    return this.landedList.length;
  }

  landedTransaction(signature: string): LandedTransaction | undefined {
    return this.landedBySignature.get(signature);
  }

  /**
   * The statuses of the latest `limit` landings (earlier sessions' first): what a resumed chain
   * must still answer for, since an executor that restarts asks for the signatures it sent.
   */
  recentLandings(limit: number): EarlierLanding[] {
    const all: EarlierLanding[] = [
      ...this.landedEarlier.values(),
      ...this.landedList.map((l) => ({ signature: l.signature, slot: l.slot, landedAtMs: l.landedAtMs, err: l.err })),
    ];
    return all.slice(-limit);
  }

  /** Remembers landings of an earlier session: reported landed, and never landed a second time. */
  rememberLandings(landings: readonly EarlierLanding[]): void {
    for (const l of landings) this.landedEarlier.set(l.signature, l);
  }

  // ---- internals

  private coSignAsKeeper(decoded: DecodedTransaction): void {
    const index = signerIndex(decoded, this.keeper.publicKey);
    if (index < 0 || !isSignatureSlotEmpty(decoded, index)) return;
    decoded.transaction.addSignature(this.keeper.publicKey, this.signKeeper(decoded.messageBytes));
  }

  /** The fee this chain charges for `message` (0 when fees are off). */
  feeFor(message: VersionedMessage): bigint {
    return this.fees === 'none' ? 0n : transactionFeeLamports(message);
  }

  /** The fee this transaction costs (0 when fees are off); throws when the payer cannot pay it. */
  private chargeableFee(decoded: DecodedTransaction): bigint {
    if (this.fees === 'none') return 0n;
    const fee = transactionFeeLamports(decoded.transaction.message);
    const payer = decoded.requiredSigners[0]?.toBase58() ?? '';
    const balance = this.getBalance(payer);
    if (balance < fee) {
      throw new ChainRejection('insufficient_funds', `Transaction simulation failed: Insufficient funds for fee (${payer} has ${balance.toString()} lamports, fee is ${fee.toString()})`);
    }
    return fee;
  }

  private land(decoded: DecodedTransaction, signature: string, via: SubmitVia, feeLamports: bigint): MutableLanded {
    const payer = decoded.requiredSigners[0]?.toBase58() ?? '';
    if (feeLamports > 0n) this.debit(payer, feeLamports);
    const landed: MutableLanded = {
      signature,
      slot: this.slot(),
      via,
      message: decoded.messageBytes,
      transaction: decoded.transaction,
      request: this.requests?.lookup(decoded.messageBytes),
      landedAtMs: this.clock.now(),
      feeLamports,
      err: null,
    };
    this.landedList.push(landed);
    this.landedBySignature.set(signature, landed);
    for (const handler of [...this.handlers]) {
      try {
        handler(landed);
      } catch (error) {
        landed.err ??= landingError(decoded.transaction.message, error);
        this.logger.warn({ signature, err: error }, 'venue chain: landing handler failed; the transaction landed with an error');
      }
    }
    this.changed();
    return landed;
  }
}
