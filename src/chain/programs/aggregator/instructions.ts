/**
 * Every instruction of the Jupiter Aggregator v6 program (JUP6…, the swaps Ultra builds), by
 * Anchor discriminator: the two IDL generations together, the older one's route family and the
 * later one's route_v2 family and close_token (Ultra builds carry either family).
 */
export const AGGREGATOR_INSTRUCTIONS = {
  route: 'e517cb977ae3ad2a',
  route_with_token_ledger: '96564774a75d0e68',
  shared_accounts_route: 'c1209b3341d69c81',
  shared_accounts_route_with_token_ledger: 'e6798f50779f6aaa',
  exact_out_route: 'd033ef977b2bed5c',
  shared_accounts_exact_out_route: 'b0d169a89a7d453e',
  route_v2: 'bb64facc31c4af14',
  shared_accounts_route_v2: 'd19853937cfed8e9',
  exact_out_route_v2: '9d8ab85215f4f324',
  shared_accounts_exact_out_route_v2: '3560e5cad8bbfa18',
  set_token_ledger: 'e455b9704e4f4d02',
  create_open_orders: 'e5c2d4ac080a8693',
  create_token_account: '93f17b64f484ae76',
  create_program_open_orders: '1ce22094bc8871ab',
  claim: '3ec6d6c1d59f6cd2',
  claim_token: '74ce1bbfa6130049',
  create_token_ledger: 'e8f2c5fdf08f8134',
  close_token: '1a4aec976840b7f9',
} as const;

export type AggregatorInstructionName = keyof typeof AGGREGATOR_INSTRUCTIONS;
