// The simulated venue both perps policy test files build from: a wallet with a SOL long and an ETH
// short, and the venue's own decrease build of that SOL long (legacy request or instant variant).
// Kept apart from the IDL cross-checks (test/support/perps-idl.ts) so the hostile-variant file,
// which never reads ../shared, is not re-run by .ci/standalone-check.
import type { Keypair } from '@solana/web3.js';
import { MINTS } from '../../../src/api/mints.ts';
import type { ApiClient } from '../../../src/api/client.ts';
import type { OperationId } from '../../../src/api/registry.ts';
import type { DecreaseIntent } from '../../../src/sdk/intent.ts';
import { control, fundedWallet, testVenue, type FundedPosition } from '../../venue/venue-fixture.ts';

/** A transaction the venue built for an operation. */
export interface Built {
  readonly operationId: OperationId;
  readonly base64: string;
  readonly instant: boolean;
  readonly blockhash?: string;
}

export interface PerpsDecreaseVenue {
  readonly client: ApiClient;
  readonly close: () => Promise<void>;
  readonly wallet: Keypair;
  readonly address: string;
  readonly solLong: FundedPosition;
  readonly ethShort: FundedPosition;
  /** Share of decreases the venue builds as instant (0 or 1 here). */
  readonly setInstantShare: (share: number) => Promise<unknown>;
}

export async function startPerpsDecreaseVenue(): Promise<PerpsDecreaseVenue> {
  const started = await testVenue();
  const funded = await fundedWallet(started.venue, {
    positions: [
      { market: 'SOL', side: 'long', leverage: '5', collateralUsd: '200000000' },
      { market: 'ETH', side: 'short', leverage: '3', collateralUsd: '300000000' },
    ],
    tokens: { [MINTS.JLP]: '50000000' },
  });
  const [solLong, ethShort] = funded.positions as [FundedPosition, FundedPosition];
  return {
    client: started.client,
    close: started.close,
    wallet: funded.wallet,
    address: funded.address,
    solLong,
    ethShort,
    setInstantShare: (share) => control(started.venue, 'faults', { decreaseInstantShare: share }),
  };
}

export const decreaseIntent = (positionPubkey: string, sizeUsdDelta: string): DecreaseIntent => ({
  type: 'decrease', key: `decrease:${positionPubkey}`, reason: 'test', notionalUsd: sizeUsdDelta, positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta,
});

/** The venue's decrease of the SOL long (by default), as a legacy request or its instant variant. */
export async function buildDecrease(v: PerpsDecreaseVenue, instant: boolean, positionPubkey = v.solLong.positionPubkey, sizeUsdDelta = '100000000'): Promise<Built & { requestPubkey: string | null }> {
  await v.setInstantShare(instant ? 1 : 0);
  const res = await v.client.call('perps.decrease', { positionPubkey, receiveToken: 'USDC', sizeUsdDelta });
  return { operationId: 'perps.decrease', base64: res.serializedTxBase64, instant: res.transactionType === 'instant', requestPubkey: res.positionRequestPubkey ?? null };
}
