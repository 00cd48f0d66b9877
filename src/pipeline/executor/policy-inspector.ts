import type { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { decodeTransaction, type LookupTableResolver } from '../../chain/decode.ts';
import { inspectTransaction, type PolicyIntent, type Verdict } from '../../chain/policy/index.ts';
import { toBigInt } from '../../api/amounts.ts';
import { MINTS } from '../../api/mints.ts';
import type { Intent } from '../../strategy/intent.ts';
import type { ActionRecord } from './action-record.ts';
import type { BuiltTransaction, TransactionInspector } from './ports.ts';

export interface PolicyInspectorOptions {
  readonly wallet: PublicKey;
  readonly priorityFeeCapLamports: bigint;
  readonly resolveLookupTable?: LookupTableResolver;
  readonly slippageBps?: number;
}

/**
 * The transaction policy (src/chain/policy) applied to an action: the operation picks the program
 * allow-list, the route says whether a keeper slot is expected, and the intent bounds what the
 * wallet may send. Same rules in paper and live mode.
 */
export class PolicyInspector implements TransactionInspector {
  constructor(private readonly options: PolicyInspectorOptions) {}

  async inspect(tx: VersionedTransaction, record: ActionRecord, built: BuiltTransaction): Promise<Verdict> {
    const decoded = await decodeTransaction(tx, { resolveLookupTable: this.options.resolveLookupTable });
    return inspectTransaction(decoded, {
      wallet: this.options.wallet,
      operationId: built.operationId,
      transactionType: built.route === 'perps-execute' ? 'instant' : 'legacy',
      txMetadata: built.txMetadata ?? undefined,
      priorityFeeCapLamports: this.options.priorityFeeCapLamports,
      intent: intentBounds(record.intent, this.options.slippageBps ?? 0),
      knownAccounts: knownAccounts(record.intent, built),
    });
  }
}

/**
 * What an intent may move out of the wallet. Decreases, TP/SL updates and cancels move nothing of
 * the wallet's own (the fee of a with-fee operation is taken from the position or collateral); a
 * trigger order escrows exactly its making amount.
 */
export function intentBounds(intent: Intent, slippageBps: number): PolicyIntent {
  if (intent.type === 'trigger-create') {
    return { maxMoveLamports: 0n, maxMoveTokens: { [intent.inputMint]: toBigInt(intent.makingAmount) }, slippageBps };
  }
  if (intent.type === 'tpsl-update' || intent.type === 'decrease-with-fee') {
    // The integrator fee, in USDC, to the fee receiver the intent names.
    return { maxMoveLamports: 0n, maxMoveTokens: { [MINTS.USDC]: toBigInt(intent.feeTokenAmount) }, slippageBps };
  }
  return { maxMoveLamports: 0n, maxMoveTokens: {}, slippageBps };
}

/** Accounts the intent names: value or control may go there. */
function knownAccounts(intent: Intent, built: BuiltTransaction): string[] {
  const named = [built.positionPubkey];
  switch (intent.type) {
    case 'decrease':
      named.push(intent.positionPubkey);
      break;
    case 'decrease-with-fee':
      named.push(intent.positionPubkey, intent.feeReceiver);
      break;
    case 'tpsl-update':
      named.push(intent.tpslPubkey, intent.feeReceiver);
      break;
    case 'trigger-cancel':
      named.push(intent.order);
      break;
    case 'trigger-create':
      break;
  }
  return named.filter((a): a is string => a !== undefined);
}
