import { z } from 'zod';
import { pubkey } from '../pubkey.ts';

export const claimFeeRequest = z.strictObject({
  ownerWallet: pubkey,
  poolAddress: pubkey,
  maxQuoteAmount: z.number().min(0),
});
export const claimFeeResponse = z.looseObject({ transaction: z.string() });
