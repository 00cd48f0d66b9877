/**
 * Every instruction of the Jupiter Limit Order v2 program (j1o2q…, the program behind the Trigger
 * v1 API), by Anchor discriminator, from its IDL (`limit_order_2`). A trader's own transactions
 * carry initialize_order and cancel_order; the others are the keepers' and the admin's.
 */
export const LIMIT_ORDER_INSTRUCTIONS = {
  initialize_order: '856e4aaf709ff59f',
  cancel_order: '5f81edf00831df84',
  cancel_dust_order: 'c570bda44f3017f6',
  fill_order: 'e87a7319c78f88a2',
  flash_fill_order: 'fc681286a44e128c',
  pre_flash_fill_order: 'f02f99440dbee12a',
  update_fee: 'e8fdc3f794d449de',
  withdraw_fee: '0e7ae7da1feedf96',
} as const;

export type LimitOrderInstructionName = keyof typeof LIMIT_ORDER_INSTRUCTIONS;
