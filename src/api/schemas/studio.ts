import { z } from 'zod';
import { pubkey } from '../pubkey.ts';
import { exactJsonUint } from './common.ts';

export const claimFeeRequest = z.strictObject({
  ownerWallet: pubkey,
  poolAddress: pubkey,
  maxQuoteAmount: exactJsonUint,
});
export const claimFeeResponse = z.looseObject({ transaction: z.string() });
