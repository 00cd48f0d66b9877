import type { Side } from '../../api/schemas/common.ts';

/** A TP/SL request as it is created (spec 4.19; api-facts 2.5 "TPSL decrease request"). */
export interface TpslSpec {
  readonly requestPubkey: string;
  readonly requestType: 'tp' | 'sl';
  readonly triggerPrice: bigint;
  readonly sizeUsdDelta: bigint;
  readonly entirePosition: boolean;
  readonly desiredMint: string;
}

/**
 * What a perps transaction asks for once it lands: the payload the venue registers with each
 * built transaction and applies when the chain reports it landed.
 */
export type PerpsAction =
  | {
      readonly kind: 'perps.increase';
      readonly owner: string;
      readonly positionPubkey: string;
      readonly requestPubkey: string;
      readonly marketMint: string;
      readonly side: Side;
      readonly collateralMint: string;
      readonly inputMint: string;
      readonly inputAmount: bigint;
      readonly sizeUsdDelta?: bigint;
      readonly leverageBps?: bigint;
      readonly maxSlippageBps: bigint;
      readonly quotedPrice: bigint;
      readonly tpsl: readonly TpslSpec[];
    }
  | {
      readonly kind: 'perps.decrease';
      readonly owner: string;
      readonly positionPubkey: string;
      readonly requestPubkey: string;
      readonly receiveMint: string;
      readonly sizeUsdDelta?: bigint;
      readonly collateralUsdDelta?: bigint;
      readonly entirePosition: boolean;
      readonly maxSlippageBps: bigint;
      readonly quotedPrice: bigint;
      readonly integratorFeeUsd: bigint;
    }
  | {
      readonly kind: 'perps.createTpsl';
      readonly owner: string;
      readonly positionPubkey: string;
      readonly items: readonly TpslSpec[];
      /** USDC (smallest unit) of the with-fee create; absent for the plain one. */
      readonly integratorFeeUsd?: bigint;
    }
  | {
      readonly kind: 'perps.cancelTpsl';
      readonly owner: string;
      readonly requestPubkey: string;
      readonly integratorFeeUsd: bigint;
    }
  | {
      readonly kind: 'perps.updateTpsl';
      readonly owner: string;
      readonly requestPubkey: string;
      readonly triggerPrice: bigint;
      readonly integratorFeeUsd: bigint;
    };

/** Facts about the landed transaction that the book records. */
export interface LandingMeta {
  readonly signature: string;
  readonly landedAtMs: number;
  readonly transactionType: 'legacy' | 'instant';
  readonly feeLamports: bigint;
}
