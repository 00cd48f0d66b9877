import { toBigInt } from '../../api/amounts.ts';
import type { TriggerIntentBounds } from '../../chain/policy/index.ts';
import type { Intent } from '../../sdk/intent.ts';

type TriggerIntent = Extract<Intent, { type: 'trigger-create' | 'trigger-cancel' | 'trigger-cancel-all' }>;

/**
 * What a trigger intent lets Limit Order v2 instructions do: a create's exact mints and amounts
 * (the taking amount is the limit price), its expiry when named, its slippage at most; a cancel's
 * order (or orders; a cancel-all without a list: any order of the wallet, which the program binds
 * to its maker).
 */
export function triggerIntentBounds(intent: TriggerIntent): TriggerIntentBounds {
  switch (intent.type) {
    case 'trigger-create':
      return {
        kind: 'create',
        inputMint: intent.inputMint,
        outputMint: intent.outputMint,
        makingAmount: toBigInt(intent.makingAmount),
        takingAmount: toBigInt(intent.takingAmount),
        ...(intent.expiredAt === undefined ? {} : { expiredAt: toBigInt(intent.expiredAt) }),
        maxSlippageBps: intent.slippageBps === undefined ? 0n : toBigInt(intent.slippageBps),
      };
    case 'trigger-cancel':
      return { kind: 'cancel', orders: [intent.order] };
    case 'trigger-cancel-all':
      return intent.orders === undefined ? { kind: 'cancel' } : { kind: 'cancel', orders: intent.orders };
  }
}
