import { anchorLayout, layoutsByDiscriminator, type AnchorInstructionLayout } from '../anchor-layout.ts';
import { DBC_INSTRUCTIONS } from './instructions.ts';

/**
 * The Dynamic Bonding Curve instructions of a Studio fee claim, transcribed from the IDL
 * (dynamic_bonding_curve 0.2.1): the creator's claim and the fee claimer's, each in both
 * generations (the second carries the transfer-hook slices of its remaining accounts). A test
 * rebuilds these layouts from the IDL and requires an exact match.
 */
const CREATOR = 'pool_authority pool:w token_a_account:w token_b_account:w base_vault:w quote_vault:w base_mint quote_mint creator:s token_base_program token_quote_program event_authority program';
const FEE_CLAIMER = 'pool_authority config pool:w token_a_account:w token_b_account:w base_vault:w quote_vault:w base_mint quote_mint fee_claimer:s token_base_program token_quote_program event_authority program';

const LAYOUTS = {
  claim_creator_trading_fee: anchorLayout('claim_creator_trading_fee', DBC_INSTRUCTIONS.claim_creator_trading_fee, CREATOR, [['max_base_amount', 'u64'], ['max_quote_amount', 'u64']]),
  claim_creator_trading_fee2: anchorLayout('claim_creator_trading_fee2', DBC_INSTRUCTIONS.claim_creator_trading_fee2, CREATOR, [
    ['max_base_amount', 'u64'],
    ['max_quote_amount', 'u64'],
    ['transfer_hook_accounts_info', 'transferHookAccountsInfo'],
  ]),
  claim_trading_fee: anchorLayout('claim_trading_fee', DBC_INSTRUCTIONS.claim_trading_fee, FEE_CLAIMER, [['max_amount_a', 'u64'], ['max_amount_b', 'u64']]),
  claim_trading_fee2: anchorLayout('claim_trading_fee2', DBC_INSTRUCTIONS.claim_trading_fee2, FEE_CLAIMER, [
    ['max_amount_a', 'u64'],
    ['max_amount_b', 'u64'],
    ['transfer_hook_accounts_info', 'transferHookAccountsInfo'],
  ]),
} as const;

export type DbcLayoutName = keyof typeof LAYOUTS;
export const DBC_LAYOUTS: Readonly<Record<DbcLayoutName, AnchorInstructionLayout<DbcLayoutName>>> = LAYOUTS;
export const DBC_LAYOUT_BY_DISCRIMINATOR = layoutsByDiscriminator(DBC_LAYOUTS);

/** The DBC pool authority, a constant of the program (the IDL gives it as the account's address). */
export const DBC_POOL_AUTHORITY = 'FhVo3mqL8PW5pH5U2CN4XE33DokiyZnUwuGpH2hmHLuM';
