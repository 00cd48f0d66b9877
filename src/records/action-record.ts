import { z } from 'zod';
import { txMetadata } from '../api/schemas/common.ts';
import { actionJobSchema } from './action.ts';

/**
 * The executor's state machine, persisted per action:
 *   accepted → built → inspected → signed → submitted → landed | rejected | expired
 * Only `accepted`, `built` and `inspected` may be redone (nothing signed has left the process).
 * From `signed` on, the stored signed bytes are the only bytes ever sent for this action.
 */
export const actionState = z.enum(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed', 'rejected', 'expired']);
export type ActionState = z.infer<typeof actionState>;

export const FINAL_STATES: ReadonlySet<ActionState> = new Set(['landed', 'rejected', 'expired']);

/**
 * How a transaction reaches the chain (spec section 3, "Transaction types"): sent over JSON-RPC,
 * or posted to a product's execute operation with the build's request id (trigger, recurring and
 * Ultra execute; perps transaction/execute with an action).
 */
export const route = z.enum(['rpc', 'perps-execute', 'trigger-execute', 'recurring-execute', 'ultra-execute']);
export type Route = z.infer<typeof route>;

/**
 * The quote of an Ultra order, raw integer strings in the output mint's smallest unit:
 * `outAmount` expected, `otherAmountThreshold` the least the transaction accepts, at `slippageBps`.
 */
const swapQuote = z.strictObject({
  inAmount: z.string().regex(/^\d+$/),
  outAmount: z.string().regex(/^\d+$/),
  otherAmountThreshold: z.string().regex(/^\d+$/),
  slippageBps: z.number().int().min(0).max(10_000),
  /**
   * The most slippage the intent allows (its maxSlippageBps, else execution.slippageBps): the
   * policy holds the route to outAmount less it, and the risk gate values the swap there.
   */
  maxSlippageBps: z.number().int().min(0).max(9_999).optional(),
  /** The service's own fee the order disclosed (feeBps): the most its route may take (with execution.ultraMaxFeeBps). */
  feeBps: z.number().int().min(0).max(10_000).optional(),
});
export type SwapQuote = z.infer<typeof swapQuote>;

const job = actionJobSchema.shape;

export const actionRecord = z.object({
  // The action job as the strategy worker enqueued it.
  actionId: job.actionId,
  strategy: job.strategy,
  intent: job.intent,
  decidedAtMs: job.decidedAtMs,
  window: job.window,
  trigger: job.trigger.optional(),
  stateAfter: job.stateAfter,
  stateChanges: job.stateChanges,
  operator: job.operator,
  stateCommitted: z.boolean().default(false),
  state: actionState,
  acceptedAtMs: z.number(),
  updatedAtMs: z.number(),
  dryRun: z.boolean().default(false),
  // built
  operationId: z.string().optional(),
  route: route.optional(),
  executeAction: z.string().optional(),
  requestId: z.string().optional(),
  unsignedTx: z.string().optional(),
  txMetadata: txMetadata.nullish(),
  blockhash: z.string().optional(),
  lastValidBlockHeight: z.number().optional(),
  maxRequestExecutionSec: z.number().optional(),
  builtAtMs: z.number().optional(),
  positionPubkey: z.string().optional(),
  /**
   * The position request a legacy perps transaction creates (the build's positionRequestPubkey,
   * checked to be an account of the transaction): the keeper's fill of exactly this request is
   * what lands the action.
   */
  positionRequestPubkey: z.string().optional(),
  marketMint: z.string().optional(),
  /** Perps requests sent as legacy transactions are applied later by the keeper. */
  awaitsKeeper: z.boolean().default(false),
  buildAttempts: z.number().default(0),
  /** The PnL (USD × 10^6) the build's quote says landing will realise, for the daily loss stop. */
  realisedPnlUsd: z.string().regex(/^-?\d+$/).optional(),
  /** The notional (USD × 10^6) the API's quote says the built transaction moves. */
  builtNotionalUsd: z.string().regex(/^\d+$/).optional(),
  /**
   * What the hour's notional (risk.maxNotionalPerHourUsd) holds for this action (USD × 10^6) when a
   * check before signing raised it above the declared notional (the quote said more): what a
   * rejection gives back. Kept through a rebuild, so a second signing does not count it twice.
   */
  riskNotionalUsd: z.string().regex(/^\d+$/).optional(),
  /** The TP/SL requests a create's build makes: booked to the strategy when the action lands (src/risk/tpsl-book.ts). */
  createdTpslPubkeys: z.array(z.string()).optional(),
  /** A swap's quote (Ultra order): what the policy bounds the signed transaction's minimum out by. */
  swapQuote: swapQuote.optional(),
  /**
   * What a swap's execute reply said it sold and bought (inputAmountResult, outputAmountResult),
   * raw integer strings: the spot cost basis books a landed swap at these (else at the quote's
   * otherAmountThreshold, the least it can have bought).
   */
  swapFill: z.strictObject({ inAmount: z.string().regex(/^\d+$/), outAmount: z.string().regex(/^\d+$/) }).optional(),
  /**
   * Since when this build is held because the RPC could not simulate it (policy.simulation.onUnavailable
   * refuse): it is inspected again while its blockhash is valid, and ends `expired` when that passes.
   */
  simulationUnavailableSinceMs: z.number().optional(),
  // inspected
  violations: z.array(z.object({ rule: z.string(), detail: z.string() })).optional(),
  /** SHA-256 (hex) of the message the policy passed: only these exact bytes may be signed. */
  inspectedMessageSha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  // signed
  signature: z.string().optional(),
  signedTx: z.string().optional(),
  /**
   * The slot at which our own RPC found the build's blockhash valid, right before the signature
   * (the verdict's freshAtSlot). A landing of these bytes in an earlier slot happened before this
   * action signed them: replayed bytes of an earlier transaction, never this action's landing.
   */
  builtSlot: z.number().int().nonnegative().optional(),
  // submitted
  submitStartedAtMs: z.number().optional(),
  sendCount: z.number().default(0),
  lastSentAtMs: z.number().optional(),
  landedSlot: z.number().optional(),
  /** When a poll first saw the signature landed (the keeper counts from the landing, at or before this). */
  landingSeenAtMs: z.number().optional(),
  // final
  reason: z.string().optional(),
  detail: z.string().optional(),
  /** When the risk gate reserved this action's share of its hourly limits (accept passed). */
  riskReservedAtMs: z.number().optional(),
  /** What the accept check reserved toward the hourly spend limit (USD × 10^6): given back if the action never executes. */
  riskSpendUsd: z.string().regex(/^\d+$/).optional(),
  /** The final outcome was told to the strategy side and the risk gate. */
  finalSettled: z.boolean().optional(),
});
export type ActionRecord = z.infer<typeof actionRecord>;

/** Final for the store and the drivers: landed, rejected, expired — or a dry run's inspected. */
export function isFinalRecord(record: Pick<ActionRecord, 'state' | 'dryRun'>): boolean {
  return FINAL_STATES.has(record.state) || (record.dryRun && record.state === 'inspected');
}

/** An operator's dry run that ended where it should (`stratd act --dry-run`): inspected, nothing signed, nothing executed. */
export function isOperatorDryRun(record: Pick<ActionRecord, 'state' | 'dryRun' | 'operator'>): boolean {
  return record.state === 'inspected' && record.dryRun && record.operator?.dryRun === true;
}

/** The fields a build sets, cleared: a stale build that was never signed goes back to accepted. */
export function clearedBuild(): Partial<ActionRecord> {
  return {
    operationId: undefined, route: undefined, executeAction: undefined, requestId: undefined, unsignedTx: undefined,
    txMetadata: undefined, blockhash: undefined, lastValidBlockHeight: undefined, builtAtMs: undefined, violations: undefined,
    builtNotionalUsd: undefined, realisedPnlUsd: undefined, positionRequestPubkey: undefined, inspectedMessageSha256: undefined,
    createdTpslPubkeys: undefined, swapQuote: undefined, simulationUnavailableSinceMs: undefined,
  };
}

