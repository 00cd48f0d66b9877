/**
 * Every instruction of the Meteora Dynamic Bonding Curve program (dbcij…, the pools Jupiter Studio
 * creates), by Anchor discriminator, from its IDL (dynamic_bonding_curve 0.2.1). stratd only
 * claims a pool's trading fees; the rest (pool and config creation, swaps, migrations, surplus
 * and protocol withdrawals) is listed so the policy can name what it refuses.
 */
export const DBC_INSTRUCTIONS = {
  claim_creator_trading_fee: '52dcfabd03556b2d',
  claim_creator_trading_fee2: 'eef7d55e6e91588e',
  claim_partner_pool_creation_fee: 'faee1a048b0a65f8',
  claim_protocol_fee2: 'ebc23645410aec70',
  claim_protocol_pool_creation_fee: '72cd53bcf0991936',
  claim_trading_fee: '08ec5931987db151',
  claim_trading_fee2: '54bf473209a237c1',
  close_claim_protocol_fee_operator: '082957235030791a',
  close_operator_account: 'ab09d54a7817031d',
  close_token_badge: '6c92566eb3fe0a68',
  create_config: 'c9cff3724b6f2fbd',
  create_config_with_transfer_hook: 'd825013958e21929',
  create_locker: 'a75a899a4b2f1154',
  create_operator_account: 'dd40f695f099e5a3',
  create_partner_metadata: 'c0a8eabfbce2e3ff',
  create_token_badge: '58ce005b3caf9776',
  create_virtual_pool_metadata: '2d61bb67fe6d7c86',
  creator_withdraw_surplus: 'a50389071c864c50',
  initialize_virtual_pool_with_spl_token: '8c55d7b06636684f',
  initialize_virtual_pool_with_token2022: 'a976334e916edc9b',
  initialize_virtual_pool_with_token2022_transfer_hook: 'b60de9b12a918702',
  migrate_meteora_damm: '1b013016b43f76d9',
  migrate_meteora_damm_claim_lp_token: '8b85021e5b917f9a',
  migrate_meteora_damm_lock_lp_token: 'b137ee9dfb58a52a',
  migration_damm_v2: '9ca9e66735e45040',
  migration_damm_v2_create_metadata: '6dbd1324c3b7de52',
  migration_meteora_damm_create_metadata: '2f5e7e73dde2c285',
  partner_withdraw_surplus: 'a8ad4864c962265c',
  swap: 'f8c69e91e17587c8',
  swap2: '414b3f4ceb5b5b88',
  swap2_with_transfer_hook: 'b75d992818e6c297',
  transfer_pool_creator: '1407a9213a93a621',
  withdraw_leftover: '14c6caedebf3b742',
  withdraw_migration_fee: 'ed8e2d178106dea2',
} as const;

export type DbcInstructionName = keyof typeof DBC_INSTRUCTIONS;
