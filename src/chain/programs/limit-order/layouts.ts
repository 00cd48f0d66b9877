import { anchorLayout, layoutsByDiscriminator, type AnchorInstructionLayout } from '../anchor-layout.ts';
import { LIMIT_ORDER_INSTRUCTIONS } from './instructions.ts';

/**
 * The Limit Order v2 instructions a trader's own transactions carry, transcribed from the IDL
 * (`limit_order_2`): account order and flags, and the arguments (initialize_order's one argument,
 * the struct InitializeOrderParams, is borsh-encoded as its fields in order, so it is written out
 * field by field). Keeper and admin instructions (fills, fee updates) have no layout here: the
 * policy never allows them. A test rebuilds these layouts from the IDL and requires an exact match.
 */
const LAYOUTS = {
  initialize_order: anchorLayout(
    'initialize_order',
    LIMIT_ORDER_INSTRUCTIONS.initialize_order,
    'payer:sw maker:s order:w input_mint_reserve:w maker_input_mint_account:w fee referral:o input_mint output_mint input_token_program output_token_program system_program associated_token_program event_authority program',
    [['unique_id', 'u64'], ['making_amount', 'u64'], ['taking_amount', 'u64'], ['expired_at', { option: 'i64' }], ['fee_bps', { option: 'u16' }], ['slippage_bps', { option: 'u16' }]],
  ),
  cancel_order: anchorLayout(
    'cancel_order',
    LIMIT_ORDER_INSTRUCTIONS.cancel_order,
    'signer:s maker:w order:w input_mint_reserve:w maker_input_mint_account:wo input_mint input_token_program event_authority program',
    [],
  ),
} as const;

export type LimitOrderLayoutName = keyof typeof LAYOUTS;
export const LIMIT_ORDER_LAYOUTS: Readonly<Record<LimitOrderLayoutName, AnchorInstructionLayout<LimitOrderLayoutName>>> = LAYOUTS;
export const LIMIT_ORDER_LAYOUT_BY_DISCRIMINATOR = layoutsByDiscriminator(LIMIT_ORDER_LAYOUTS);
