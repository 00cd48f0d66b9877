import type { OperationId } from '../../api/registry.ts';
import { AGGREGATOR_INSTRUCTIONS, type AggregatorInstructionName } from '../programs/aggregator/instructions.ts';
import { DBC_INSTRUCTIONS, type DbcInstructionName } from '../programs/dbc/instructions.ts';
import { DCA_INSTRUCTIONS, type DcaInstructionName } from '../programs/dca/instructions.ts';
import { LIMIT_ORDER_INSTRUCTIONS, type LimitOrderInstructionName } from '../programs/limit-order/instructions.ts';
import { PERPS_INSTRUCTIONS, type PerpsInstructionName } from '../programs/perps/instructions.ts';
import { PROGRAMS } from '../programs.ts';

/**
 * What each operation's transaction must do, by the instructions of its product's program: at
 * least one `required` instruction (the operation itself), besides it only `allowed` ones, and no
 * other instruction of that program. The label of a request says nothing; its instructions do
 * (a createOrder's bytes answered to a cancel are refused here).
 */
type OperationInstructions =
  | Gate<'perps', PerpsInstructionName>
  | Gate<'trigger', LimitOrderInstructionName>
  | Gate<'recurring', DcaInstructionName>
  | Gate<'aggregator', AggregatorInstructionName>
  | Gate<'dbc', DbcInstructionName>;

interface Gate<Program extends GatedProgram, Name extends string> {
  readonly program: Program;
  readonly required: readonly Name[];
  readonly allowed?: readonly Name[];
}

/** The product programs whose instructions the gate judges, each with its name for people. */
export const GATED_PROGRAMS = {
  perps: { id: PROGRAMS.perps, label: 'perps', instructions: discriminators(PERPS_INSTRUCTIONS) },
  trigger: { id: PROGRAMS.trigger, label: 'limit-order', instructions: LIMIT_ORDER_INSTRUCTIONS },
  recurring: { id: PROGRAMS.recurring, label: 'DCA', instructions: DCA_INSTRUCTIONS },
  aggregator: { id: PROGRAMS.aggregator, label: 'aggregator', instructions: AGGREGATOR_INSTRUCTIONS },
  dbc: { id: PROGRAMS.dbc, label: 'bonding-curve', instructions: DBC_INSTRUCTIONS },
} as const;
export type GatedProgram = keyof typeof GATED_PROGRAMS;

function discriminators<Name extends string>(layouts: Readonly<Record<Name, { readonly discriminator: string }>>): Readonly<Record<Name, string>> {
  return Object.fromEntries(Object.entries<{ discriminator: string }>(layouts).map(([name, l]) => [name, l.discriminator])) as Record<Name, string>;
}

/** Every route of the aggregator: a swap is one of them, of either IDL generation. */
const ROUTES: readonly AggregatorInstructionName[] = [
  'route',
  'route_with_token_ledger',
  'shared_accounts_route',
  'shared_accounts_route_with_token_ledger',
  'exact_out_route',
  'shared_accounts_exact_out_route',
  'route_v2',
  'shared_accounts_route_v2',
  'exact_out_route_v2',
  'shared_accounts_exact_out_route_v2',
];

/**
 * Per operation of the registry: its instructions, or null for an operation that yields no
 * transaction to sign (reads, submits): a transaction offered under one of those is refused whole.
 * A Record over every operation id, so a new operation cannot be added without deciding.
 */
export const OPERATION_INSTRUCTIONS: Readonly<Record<OperationId, OperationInstructions | null>> = {
  'tokens.ranked': null,
  'tokens.search': null,
  'tokens.new': null,
  'perps.poolInfo': null,
  'perps.marketStats': null,
  'perps.positions': null,
  'perps.collateralLimits': null,
  'perps.limitOrders': null,
  // A limit order is a trigger increase request the keeper co-signs at creation; a cancel closes it.
  'perps.createLimitOrder': { program: 'perps', required: ['instantCreateLimitOrder'] },
  'perps.updateLimitOrder': { program: 'perps', required: ['instantUpdateLimitOrder'] },
  'perps.cancelLimitOrder': { program: 'perps', required: ['closePositionRequest'] },
  'perps.trades': null,
  'perps.traderStats': null,
  // An increase may carry the TP/SL requests of its tpsl[] member.
  'perps.increase': { program: 'perps', required: ['createIncreasePositionMarketRequest', 'instantIncreasePosition'], allowed: ['instantCreateTpsl'] },
  'perps.decrease': { program: 'perps', required: ['createDecreasePositionMarketRequest', 'instantDecreasePosition'] },
  'perps.decreaseWithFee': { program: 'perps', required: ['createDecreasePositionMarketRequest', 'instantDecreasePosition'] },
  'perps.createTpsl': { program: 'perps', required: ['createDecreasePositionRequest2', 'instantCreateTpsl'] },
  'perps.updateTpslWithFee': { program: 'perps', required: ['updateDecreasePositionRequest2', 'instantUpdateTpsl'] },
  'perps.updateTpsl': { program: 'perps', required: ['updateDecreasePositionRequest2', 'instantUpdateTpsl'] },
  'perps.cancelTpsl': { program: 'perps', required: ['closePositionRequest'] },
  'perps.createTpslWithFee': { program: 'perps', required: ['createDecreasePositionRequest2', 'instantCreateTpsl'] },
  'perps.cancelTpslWithFee': { program: 'perps', required: ['closePositionRequest'] },
  'perps.lpMint': { program: 'perps', required: ['addLiquidity2'] },
  'perps.depositBorrow': { program: 'perps', required: ['depositCollateralForBorrows', 'borrowFromCustody'] },
  'perps.execute': null,
  // Ultra's swap: one route; the swap may create the program's token account for an output it
  // holds, and a token-ledger route needs its set_token_ledger.
  'ultra.order': { program: 'aggregator', required: ROUTES, allowed: ['create_token_account', 'set_token_ledger'] },
  'ultra.execute': null,
  'trigger.createOrder': { program: 'trigger', required: ['initialize_order'] },
  'trigger.execute': null,
  'trigger.cancelOrder': { program: 'trigger', required: ['cancel_order'] },
  // The service cancels up to five orders per transaction, one cancel_order each.
  'trigger.cancelOrders': { program: 'trigger', required: ['cancel_order'] },
  'trigger.getTriggerOrders': null,
  'recurring.createOrder': { program: 'recurring', required: ['open_dca_v2', 'open_dca'] },
  'recurring.execute': null,
  'recurring.cancelOrder': { program: 'recurring', required: ['close_dca'] },
  'recurring.getRecurringOrders': null,
  'recurring.priceDeposit': { program: 'recurring', required: ['deposit'] },
  // A pool's trading fees: the creator's claim or the fee claimer's (the service builds for direct
  // and for proxy ownership), in either generation.
  'studio.claimFee': { program: 'dbc', required: ['claim_creator_trading_fee', 'claim_creator_trading_fee2', 'claim_trading_fee', 'claim_trading_fee2'] },
};

/** The perps instructions an operation's transaction may carry (required or allowed); none for other operations. */
export function perpsInstructionsOf(operationId: OperationId): ReadonlySet<PerpsInstructionName> {
  const gate = OPERATION_INSTRUCTIONS[operationId];
  if (gate?.program !== 'perps') return new Set();
  return new Set([...gate.required, ...(gate.allowed ?? [])]);
}

/** The aggregator instructions an operation's transaction may carry (required or allowed); none for other operations. */
export function aggregatorInstructionsOf(operationId: OperationId): ReadonlySet<AggregatorInstructionName> {
  const gate = OPERATION_INSTRUCTIONS[operationId];
  if (gate?.program !== 'aggregator') return new Set();
  return new Set([...gate.required, ...(gate.allowed ?? [])]);
}

/** The instructions of `program` an operation's transaction may carry (required or allowed); none when its gate is another program's. */
export function gatedInstructionsOf(operationId: OperationId, program: GatedProgram): ReadonlySet<string> {
  const gate = OPERATION_INSTRUCTIONS[operationId];
  if (gate?.program !== program) return new Set();
  return new Set<string>([...gate.required, ...(gate.allowed ?? [])]);
}
