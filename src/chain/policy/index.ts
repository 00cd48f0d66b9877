export { inspectTransaction, inspectSerialized, type Inspection } from './inspect.ts';
export { DEFAULT_MAX_ACCOUNT_SPACE_BYTES, DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, type PolicyContext, type PolicyIntent, type PerpsIntentBounds } from './context.ts';
export { POLICY_RULES, type PolicyRule, type Verdict, type Violation } from './verdict.ts';
export { PolicyViolation, isPolicyViolation } from './policy-violation.ts';
export { priorityFeeLamports } from './check-priority-fee.ts';
export { rentExemptMinimum, type Outflow } from './check-value-flows.ts';
export { associatedTokenAddress, WalletAccounts } from './wallet-accounts.ts';
export { ChainFactsReader, NO_CHAIN_FACTS, mintAccountData, rpcAccountReader, staticAccountReader, type AccountReader, type ChainAccount, type ChainFacts } from './chain-facts.ts';
export { OPERATION_INSTRUCTIONS, GATED_PROGRAMS, type OperationInstructions, type GatedProgram } from './operation-instructions.ts';
