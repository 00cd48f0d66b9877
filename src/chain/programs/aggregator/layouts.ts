import { AGGREGATOR_INSTRUCTIONS, type AggregatorInstructionName } from './instructions.ts';

/**
 * The Jupiter Aggregator v6 instructions, transcribed from the program's two IDL generations:
 * the older IDL for the v1 route family and the program's helper instructions, the later one for
 * the route_v2 family and close_token. Names are the IDL's in snake_case (the older IDL writes
 * camelCase; Anchor hashes the snake_case name either way). A test rebuilds this table from the
 * IDL files when they are available and requires an exact match.
 *
 * The later IDL also lists the v1 routes, with two more accounts at the end (event_authority and
 * program, Anchor's event CPI): decoded with the older layout those two are remaining accounts,
 * which a route carries anyway (the accounts of each AMM it swaps through).
 */

/** Borsh argument types of the aggregator's instructions; a route plan is a vec of steps (route-plan.ts). */
export type AggregatorArgType = 'u8' | 'u16' | 'u64' | 'bool' | 'routePlan' | 'routePlanV2';

interface AggregatorAccountSpec {
  readonly name: string;
  readonly signer: boolean;
  readonly writable: boolean;
  /** Anchor's optional account: the program id stands in for "none". */
  readonly optional: boolean;
}

export interface AggregatorInstructionLayout {
  readonly name: AggregatorInstructionName;
  /** 16 hex characters: the Anchor discriminator (instructions.ts). */
  readonly discriminator: string;
  readonly accounts: readonly AggregatorAccountSpec[];
  readonly args: ReadonlyArray<readonly [name: string, type: AggregatorArgType]>;
}

/** "name:swo": s = signer, w = writable, o = optional, in the IDL's account order. */
function layout(name: AggregatorInstructionName, accounts: string, args: AggregatorInstructionLayout['args']): AggregatorInstructionLayout {
  return {
    name,
    discriminator: AGGREGATOR_INSTRUCTIONS[name],
    accounts: accounts.split(' ').map((entry) => {
      const [account = '', flags = ''] = entry.split(':');
      return { name: account, signer: flags.includes('s'), writable: flags.includes('w'), optional: flags.includes('o') };
    }),
    args,
  };
}

const V1_ARGS_IN = [['in_amount', 'u64'], ['quoted_out_amount', 'u64'], ['slippage_bps', 'u16'], ['platform_fee_bps', 'u8']] as const;
const V1_ARGS_LEDGER = [['quoted_out_amount', 'u64'], ['slippage_bps', 'u16'], ['platform_fee_bps', 'u8']] as const;
const V1_ARGS_OUT = [['out_amount', 'u64'], ['quoted_in_amount', 'u64'], ['slippage_bps', 'u16'], ['platform_fee_bps', 'u8']] as const;
const V2_FEES = [['slippage_bps', 'u16'], ['platform_fee_bps', 'u16'], ['positive_slippage_bps', 'u16'], ['route_plan', 'routePlanV2']] as const;
const PLAN = ['route_plan', 'routePlan'] as const;
const ID = ['id', 'u8'] as const;

const USER_ACCOUNTS = 'user_transfer_authority:s user_source_token_account:w user_destination_token_account:w';
const SHARED_ACCOUNTS = 'program_authority user_transfer_authority:s source_token_account:w program_source_token_account:w program_destination_token_account:w destination_token_account:w source_mint destination_mint';
const V2_TAIL = 'source_mint destination_mint source_token_program destination_token_program';

const LAYOUTS: Readonly<Record<AggregatorInstructionName, AggregatorInstructionLayout>> = {
  route: layout('route', `token_program ${USER_ACCOUNTS} destination_token_account:wo destination_mint platform_fee_account:wo`, [PLAN, ...V1_ARGS_IN]),
  route_with_token_ledger: layout('route_with_token_ledger', `token_program ${USER_ACCOUNTS} destination_token_account:wo destination_mint platform_fee_account:wo token_ledger`, [PLAN, ...V1_ARGS_LEDGER]),
  shared_accounts_route: layout('shared_accounts_route', `token_program ${SHARED_ACCOUNTS} platform_fee_account:wo token2022_program:o`, [ID, PLAN, ...V1_ARGS_IN]),
  shared_accounts_route_with_token_ledger: layout('shared_accounts_route_with_token_ledger', `token_program ${SHARED_ACCOUNTS} platform_fee_account:wo token2022_program:o token_ledger`, [ID, PLAN, ...V1_ARGS_LEDGER]),
  exact_out_route: layout('exact_out_route', `token_program ${USER_ACCOUNTS} destination_token_account:wo source_mint destination_mint platform_fee_account:wo token2022_program:o`, [PLAN, ...V1_ARGS_OUT]),
  shared_accounts_exact_out_route: layout('shared_accounts_exact_out_route', `token_program ${SHARED_ACCOUNTS} platform_fee_account:wo token2022_program:o`, [ID, PLAN, ...V1_ARGS_OUT]),
  set_token_ledger: layout('set_token_ledger', 'token_ledger:w token_account', []),
  create_open_orders: layout('create_open_orders', 'open_orders:w payer:sw dex_program system_program rent market', []),
  create_token_account: layout('create_token_account', 'token_account:w user:sw mint token_program system_program', [['bump', 'u8']]),
  create_program_open_orders: layout('create_program_open_orders', 'open_orders:w payer:sw program_authority dex_program system_program rent market', [ID]),
  claim: layout('claim', 'wallet:w program_authority:w system_program', [ID]),
  claim_token: layout('claim_token', 'payer:sw wallet program_authority program_token_account:w destination_token_account:w mint associated_token_token_program associated_token_program system_program', [ID]),
  create_token_ledger: layout('create_token_ledger', 'token_ledger:sw payer:sw system_program', []),
  close_token: layout('close_token', 'operator:s wallet:w program_authority program_token_account:w mint:w token_program', [ID, ['burn_all', 'bool']]),
  route_v2: layout('route_v2', `${USER_ACCOUNTS} ${V2_TAIL} destination_token_account:wo event_authority program`, [['in_amount', 'u64'], ['quoted_out_amount', 'u64'], ...V2_FEES]),
  exact_out_route_v2: layout('exact_out_route_v2', `${USER_ACCOUNTS} ${V2_TAIL} destination_token_account:wo event_authority program`, [['out_amount', 'u64'], ['quoted_in_amount', 'u64'], ...V2_FEES]),
  shared_accounts_route_v2: layout('shared_accounts_route_v2', `${SHARED_ACCOUNTS} source_token_program destination_token_program event_authority program`, [ID, ['in_amount', 'u64'], ['quoted_out_amount', 'u64'], ...V2_FEES]),
  shared_accounts_exact_out_route_v2: layout('shared_accounts_exact_out_route_v2', `${SHARED_ACCOUNTS} source_token_program destination_token_program event_authority program`, [ID, ['out_amount', 'u64'], ['quoted_in_amount', 'u64'], ...V2_FEES]),
};

export const AGGREGATOR_LAYOUTS = LAYOUTS;

const BY_DISCRIMINATOR: ReadonlyMap<string, AggregatorInstructionLayout> = new Map(Object.values(LAYOUTS).map((l) => [l.discriminator, l]));

/** The layout whose discriminator starts `data`, or undefined for any other instruction. */
export function aggregatorLayoutOf(data: Uint8Array): AggregatorInstructionLayout | undefined {
  if (data.length < 8) return undefined;
  return BY_DISCRIMINATOR.get(Buffer.from(data.subarray(0, 8)).toString('hex'));
}

/** The event authority of the program's event CPI (both IDLs' fixed address). */
export const AGGREGATOR_EVENT_AUTHORITY = 'D8cy77BBepLMngZx6ZukaTff5hCt1HrWyKk3Hnd9oitf';
