import { ComputeBudgetProgram, Keypair, PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { MINTS } from '../../api/mints.ts';
import { getOperation } from '../../api/registry.ts';
import { readWireTransaction } from '../../chain/decode.ts';
import { mintAccountData, staticAccountReader, type ChainAccount } from '../../chain/policy/index.ts';
import { perpsPositionAddress, perpsPositionRequestAddress, PERPETUALS_ADDRESS } from '../../chain/programs/perps/addresses.ts';
import { encodePerpsInstructionData } from '../../chain/programs/perps/codec.ts';
import { PERPS_INSTRUCTIONS } from '../../chain/programs/perps/instructions.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../chain/programs.ts';
import { LocalKeypairSigner, signInspected, type SignedTransaction } from '../../chain/signer.ts';
import type { Logger } from '../../kernel/logger.ts';
import { PolicyInspector } from './policy-inspector.ts';

export interface RehearsalOptions {
  readonly priorityFeeCapLamports: bigint;
  readonly slippageBps: number;
  readonly priceDriftBps: number;
  readonly maxAccountSpaceBytes: bigint;
}

/** The rehearsal's mark price ($150); its decrease sells at no worse than the mark, within any configured slippage. */
const REHEARSAL_MARK = 150_000_000n;

/** What a rehearsal did: how many passes and how long the first and the last took (ms). */
export interface RehearsalReport {
  readonly passes: number;
  readonly firstMs: number;
  readonly lastMs: number;
}

/**
 * Keeps the path from a built transaction to its signature hot. Protective actions are rare: the
 * first one a process handles runs decoding, the policy and signing in V8's interpreter (measured:
 * ~40 ms for a first inspection, 6–8 ms for the next few, ~1.6 ms once optimized). A rehearsal runs
 * that very code on the decrease request the service builds, for a throwaway wallet, with the
 * chain's facts answered from memory: it parses the build's answer with the API schema, reads the base64 bytes, inspects them against a decrease
 * intent (the verdict must pass, or the rehearsal did not take the path real actions take), signs
 * them with the throwaway key and serializes the result. Nothing is sent, no network is touched, and
 * the hot wallet's key is not used.
 */
export class Rehearsal {
  readonly #wallet = Keypair.generate();
  readonly #signer: LocalKeypairSigner;
  readonly #inspector: PolicyInspector;
  readonly #base64: string;
  /** The body the API answers a decrease build with (the perps.decrease response schema). */
  readonly #answer: string;
  readonly #intent;
  readonly #target;

  constructor(options: RehearsalOptions) {
    const owner = this.#wallet.publicKey.toBase58();
    this.#signer = LocalKeypairSigner.fromEnv('REHEARSAL_KEY', { mode: 'live', env: { REHEARSAL_KEY: bs58.encode(this.#wallet.secretKey) } });
    const custody = PERPS_ACCOUNTS.custody.SOL;
    const collateralCustody = PERPS_ACCOUNTS.custody.USDC;
    const position = perpsPositionAddress(owner, custody, collateralCustody, 'long');
    const request = perpsPositionRequestAddress(position, 1n, 'decrease');
    const receivingAccount = associatedTokenAddress(owner, MINTS.USDC);
    const accounts: Record<string, string> = {
      owner,
      receivingAccount,
      perpetuals: PERPETUALS_ADDRESS,
      pool: PERPS_ACCOUNTS.pool,
      position,
      positionRequest: request,
      positionRequestAta: associatedTokenAddress(request, MINTS.USDC),
      custody,
      collateralCustody,
      desiredMint: MINTS.USDC,
      referral: PROGRAMS.perps,
      tokenProgram: PROGRAMS.token,
      associatedTokenProgram: PROGRAMS.associatedToken,
      systemProgram: PROGRAMS.system,
      eventAuthority: PERPS_ACCOUNTS.eventAuthority,
      program: PROGRAMS.perps,
    };
    const layout = PERPS_INSTRUCTIONS.createDecreasePositionMarketRequest;
    const decrease = new TransactionInstruction({
      programId: new PublicKey(PROGRAMS.perps),
      keys: layout.accounts.map((spec) => ({ pubkey: new PublicKey(accounts[spec.name]!), isSigner: spec.signer, isWritable: spec.writable })),
      data: encodePerpsInstructionData('createDecreasePositionMarketRequest', { collateralUsdDelta: 0n, sizeUsdDelta: 0n, priceSlippage: REHEARSAL_MARK, jupiterMinimumOut: null, entirePosition: true, counter: 1n }),
    });
    const message = new TransactionMessage({
      payerKey: this.#wallet.publicKey,
      recentBlockhash: bs58.encode(Buffer.alloc(32, 7)),
      instructions: [ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 50_000 }), decrease],
    }).compileToV0Message();
    this.#base64 = Buffer.from(new VersionedTransaction(message).serialize()).toString('base64');
    const usd = '1000000';
    this.#answer = JSON.stringify({
      positionPubkey: position,
      positionRequestPubkey: request,
      serializedTxBase64: this.#base64,
      txMetadata: { blockhash: message.recentBlockhash, lastValidBlockHeight: '1000', transactionFeeLamports: '5000', accountRentLamports: '0' },
      transactionType: 'legacy',
      quote: {
        closeFeeUsd: usd, collateralUsdDelta: usd, leverage: '1.5', liquidationPriceUsd: usd, outstandingBorrowFeeUsd: '0', pnlAfterFeesUsd: '-1', pnlAfterFeesPercent: '-0.1',
        pnlBeforeFeesUsd: '0', pnlBeforeFeesPercent: '0', positionCollateralUsd: usd, positionSizeUsd: usd, priceImpactFeeBps: '0', priceImpactFeeUsd: '0', side: 'long',
        sizeUsdDelta: usd, totalFeeUsd: usd, transferAmountToken: usd, transferAmountUsd: usd, transferTokenMint: MINTS.USDC,
      },
    });
    const chain: Record<string, ChainAccount> = {
      [MINTS.USDC]: { owner: PROGRAMS.token, data: mintAccountData(6) },
      [MINTS.SOL]: { owner: PROGRAMS.token, data: mintAccountData(9) },
      [receivingAccount]: { owner: PROGRAMS.token, data: tokenAccountData(MINTS.USDC, owner) },
    };
    this.#inspector = new PolicyInspector({
      wallet: this.#wallet.publicKey,
      priorityFeeCapLamports: options.priorityFeeCapLamports,
      readAccounts: staticAccountReader(chain),
      slippageBps: options.slippageBps,
      markPrice: async () => REHEARSAL_MARK,
      priceDriftBps: options.priceDriftBps,
      maxAccountSpaceBytes: options.maxAccountSpaceBytes,
    });
    this.#intent = { type: 'decrease' as const, key: `decrease:${position}`, reason: 'rehearsal', notionalUsd: '0', positionPubkey: position, marketMint: MINTS.SOL, side: 'long' as const, entirePosition: true, receiveToken: 'USDC' as const };
    this.#target = { operationId: 'perps.decrease' as const, route: 'rpc' as const, positionPubkey: position };
  }

  /** The throwaway wallet's public key (fee payer and signer of the rehearsal transaction). */
  get publicKey(): PublicKey {
    return this.#wallet.publicKey;
  }

  /** One pass, answering the signed transaction; throws RehearsalFailed if the policy refused it. */
  async pass(): Promise<SignedTransaction> {
    // The build's answer is read as the API client reads it: JSON, then the operation's schema.
    const answer = getOperation('perps.decrease').response.safeParse(JSON.parse(this.#answer));
    if (!answer.success) throw new RehearsalFailed(`the rehearsal build answer does not parse: ${answer.error.message}`);
    const tx = readWireTransaction(this.#base64);
    const verdict = await this.#inspector.inspect(tx, { intent: this.#intent as never }, this.#target);
    if (!verdict.ok) throw new RehearsalFailed(verdict.violations.map((v) => `${v.rule}: ${v.detail}`).join('; '));
    if (tx.messageSha256 !== verdict.messageSha256) throw new RehearsalFailed('the verdict is bound to another message');
    const signed = await signInspected(this.#signer, tx, verdict);
    Buffer.from(signed.bytes).toString('base64');
    return signed;
  }

  /** Passes until `passes` are done or `budgetMs` has elapsed, yielding to the event loop between passes. */
  async run(passes: number, budgetMs: number): Promise<RehearsalReport> {
    const startedAt = performance.now();
    let firstMs = 0;
    let lastMs = 0;
    let done = 0;
    while (done < passes && performance.now() - startedAt < budgetMs) {
      const at = performance.now();
      await this.pass();
      lastMs = performance.now() - at;
      if (done === 0) firstMs = lastMs;
      done++;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return { passes: done, firstMs, lastMs };
  }
}

/** The rehearsal transaction did not pass the policy: the rehearsal no longer takes the real path. */
export class RehearsalFailed extends Error {
  override readonly name = 'RehearsalFailed';
  readonly kind = 'rehearsal_failed';
}

function associatedTokenAddress(owner: string, mint: string): string {
  return PublicKey.findProgramAddressSync([new PublicKey(owner).toBuffer(), new PublicKey(PROGRAMS.token).toBuffer(), new PublicKey(mint).toBuffer()], new PublicKey(PROGRAMS.associatedToken))[0].toBase58();
}

/** An initialized SPL token account's data: mint, owner, zero amount. */
function tokenAccountData(mint: string, owner: string): Uint8Array {
  const data = new Uint8Array(165);
  data.set(new PublicKey(mint).toBytes(), 0);
  data.set(new PublicKey(owner).toBytes(), 32);
  data[108] = 1; // state: initialized
  return data;
}

export interface KeepWarmOptions extends RehearsalOptions {
  readonly logger: Logger;
  /** Passes at start-up (bounded by `startBudgetMs`). */
  readonly startPasses?: number;
  readonly startBudgetMs?: number;
  /** A few passes this often keep V8 from ageing the path out (bytecode flushing) in a quiet daemon. */
  readonly everyMs?: number;
}

/**
 * Rehearses at start-up (awaited: the first real action should find the path optimized), then a
 * few passes at intervals. A failed rehearsal is logged, never fatal: it costs speed, not safety.
 */
export async function keepExecutorPathWarm(o: KeepWarmOptions): Promise<{ stop(): void }> {
  let rehearsal: Rehearsal;
  try {
    rehearsal = new Rehearsal(o);
    const report = await rehearsal.run(o.startPasses ?? 200, o.startBudgetMs ?? 1_000);
    o.logger.info({ passes: report.passes, firstMs: round(report.firstMs), lastMs: round(report.lastMs) }, 'executor path rehearsed (decode, policy, signing with a throwaway key; nothing sent)');
  } catch (error) {
    o.logger.warn({ err: error }, 'executor rehearsal failed; the first actions run unoptimized code');
    return { stop: () => undefined };
  }
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    rehearsal
      .run(3, 50)
      .catch((error: unknown) => o.logger.warn({ err: error }, 'executor rehearsal failed'))
      .finally(() => (running = false));
  }, o.everyMs ?? 30_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

const round = (ms: number) => Math.round(ms * 100) / 100;
