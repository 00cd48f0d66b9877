import type { AssociatedTokenInstruction, DecodedInstruction, DecodedTransaction, SystemInstruction, TokenInstruction } from '../decode.ts';
import { PROGRAMS } from '../programs.ts';
import { DEFAULT_MAX_ACCOUNT_SPACE_BYTES } from './context.ts';
import type { Violation } from './verdict.ts';
import { associatedTokenAccountOf, type WalletAccounts } from './wallet-accounts.ts';

/** Value that leaves the wallet towards an explained account: counted against the intent. */
export interface Outflow {
  /** 'lamports', a mint, or 'unknown' when the source account's mint cannot be told. */
  readonly asset: string;
  readonly amount: bigint;
  readonly to: string;
  readonly instruction: number;
}

interface ValueFlowReport {
  readonly violations: Violation[];
  readonly outflows: Outflow[];
}

// Rent exemption: (128 bytes of account overhead + data) × 3480 lamports/byte-year × 2 years.
const ACCOUNT_OVERHEAD_BYTES = 128n;
const RENT_EXEMPT_LAMPORTS_PER_BYTE = 6960n;

export function rentExemptMinimum(space: bigint): bigint {
  return (ACCOUNT_OVERHEAD_BYTES + space) * RENT_EXEMPT_LAMPORTS_PER_BYTE;
}

/** Token instructions that neither move value nor change control of an existing account. */
const HARMLESS_OTHER_TOKEN_INSTRUCTIONS = new Set(['initializeMultisig', 'initializeMultisig2', 'getAccountDataSize', 'amountToUiAmount', 'uiAmountToAmount']);

/**
 * Rules value_transfer, token_approval, authority_change and account_close: no top-level
 * instruction may move value from the wallet (or its token accounts) to an account the operation
 * does not explain, nor control of them, or a closed account's lamports, to anyone but the wallet.
 * Moves towards explained accounts are returned as outflows.
 */
export function checkValueFlows(decoded: DecodedTransaction, accounts: WalletAccounts, maxAccountSpaceBytes = DEFAULT_MAX_ACCOUNT_SPACE_BYTES): ValueFlowReport {
  const report: ValueFlowReport = { violations: [], outflows: [] };
  for (const ix of decoded.instructions) {
    const parsed = ix.parsed;
    if (!parsed) continue;
    if (parsed.program === 'system') checkSystem({ index: ix.index, ix: parsed, decoded, accounts, report, maxAccountSpaceBytes });
    else if (parsed.program === 'token') checkToken(ix, parsed, accounts, report);
    else if (parsed.program === 'associatedToken') checkAssociatedToken(ix.index, parsed, accounts, report);
  }
  return report;
}

/** Value going to `to`: fine inside the wallet, counted when explained, a violation otherwise. */
function send(
  report: ValueFlowReport,
  accounts: WalletAccounts,
  flow: { instruction: number; to: string; asset: string; amount: bigint },
  rule: Violation['rule'],
  what: string,
): void {
  if (accounts.isWalletOwned(flow.to)) return;
  if (accounts.isExplained(flow.to)) {
    report.outflows.push(flow);
    return;
  }
  report.violations.push({ rule, detail: `instruction ${flow.instruction}: ${what} to ${flow.to}, an account the operation does not explain` });
}

interface SystemCheck {
  readonly index: number;
  readonly ix: SystemInstruction;
  readonly decoded: DecodedTransaction;
  readonly accounts: WalletAccounts;
  readonly report: ValueFlowReport;
  readonly maxAccountSpaceBytes: bigint;
}

/** A later instruction of the transaction is syncNative on `account`: lamports sent there are a wrap. */
function syncedLater(decoded: DecodedTransaction, after: number, account: string): boolean {
  return decoded.instructions.some((ix) => ix.index > after && ix.parsed?.program === 'token' && ix.parsed.type === 'syncNative' && ix.parsed.account === account);
}

/**
 * Lamports from the wallet: to the wallet's own wrapped-SOL account only as a wrap (syncNative
 * follows); to any other of its token accounts never (lamports there are not the wallet's SOL);
 * elsewhere as any value.
 */
function sendLamports(c: SystemCheck, to: string, lamports: string, what: string): void {
  const { accounts, report, index } = c;
  if (accounts.isWalletTokenAccount(to) && !(accounts.isWrapAccount(to) && syncedLater(c.decoded, index, to))) {
    const why = accounts.isWrapAccount(to) ? 'without a syncNative after it (not a wrap)' : 'which holds another mint (not a wrap)';
    report.violations.push({ rule: 'value_transfer', detail: `instruction ${index}: ${what} into the wallet's token account ${to} ${why}` });
    return;
  }
  send(report, accounts, { instruction: index, to, asset: 'lamports', amount: BigInt(lamports) }, 'value_transfer', what);
}

type ReshapingInstruction = Extract<SystemInstruction, { type: 'assign' | 'allocate' | 'assignWithSeed' | 'allocateWithSeed' }>;

/**
 * How the account an allocate/assign acts on belongs to the wallet, for the refusal's detail, or
 * undefined when it does not: the wallet itself, an account derived from the wallet (a seed
 * variant with the wallet as base), or one this transaction creates with the wallet's lamports.
 */
function walletDerivation(c: SystemCheck, ix: ReshapingInstruction): string | undefined {
  if (c.accounts.isWallet(ix.account)) return 'the wallet account';
  if ((ix.type === 'assignWithSeed' || ix.type === 'allocateWithSeed') && c.accounts.isWallet(ix.base)) return `${ix.account} (derived from the wallet with seed ${JSON.stringify(ix.seed)})`;
  const created = c.decoded.instructions.some(
    (other) => other.parsed?.program === 'system' && (other.parsed.type === 'createAccount' || other.parsed.type === 'createAccountWithSeed') && other.parsed.newAccount === ix.account && c.accounts.isWallet(other.parsed.from),
  );
  return created ? `${ix.account} (created with the wallet's lamports)` : undefined;
}

function checkSystem(c: SystemCheck): void {
  const { index, ix, accounts, report } = c;
  switch (ix.type) {
    case 'transfer':
      if (accounts.isWallet(ix.from)) sendLamports(c, ix.to, ix.lamports, `System transfer of ${ix.lamports} lamports from the wallet`);
      return;
    case 'transferWithSeed':
      if (accounts.isWallet(ix.base)) sendLamports(c, ix.to, ix.lamports, `System transferWithSeed of ${ix.lamports} lamports from the wallet's derived account`);
      return;
    case 'withdrawNonceAccount':
      if (accounts.isWallet(ix.authority)) sendLamports(c, ix.to, ix.lamports, `nonce withdrawal of ${ix.lamports} lamports by the wallet`);
      return;
    case 'createAccount':
    case 'createAccountWithSeed': {
      if (!accounts.isWallet(ix.from)) return;
      const lamports = BigInt(ix.lamports);
      const space = BigInt(ix.space);
      const rent = rentExemptMinimum(space);
      if (space > c.maxAccountSpaceBytes) {
        report.violations.push({
          rule: 'value_transfer',
          detail: `instruction ${index}: ${ix.type} of ${ix.newAccount} with ${ix.space} bytes, more than the ${c.maxAccountSpaceBytes}-byte bound on accounts the wallet funds (rent ${rent} lamports)`,
        });
      } else if (lamports > rent) {
        report.violations.push({
          rule: 'value_transfer',
          detail: `instruction ${index}: ${ix.type} funds ${ix.newAccount} with ${ix.lamports} lamports, more than the ${rent} rent-exempt minimum of ${ix.space} bytes`,
        });
      } else if (!accounts.isWalletOwned(ix.newAccount)) {
        report.outflows.push({ instruction: index, to: ix.newAccount, asset: 'lamports', amount: lamports });
      }
      return;
    }
    case 'assign':
    case 'allocate':
    case 'assignWithSeed':
    case 'allocateWithSeed': {
      // No operation explains these: a swap or an order creates token accounts (createAccount of
      // token-account size, above) and never reshapes or hands over an account of the wallet's.
      const whose = walletDerivation(c, ix);
      if (whose === undefined) return;
      const what = ix.type === 'assign' || ix.type === 'assignWithSeed' ? `gives ${whose} to program ${ix.owner}` : `allocates ${ix.space} bytes in ${whose}`;
      report.violations.push({ rule: 'authority_change', detail: `instruction ${index}: System ${ix.type} ${what}; no operation explains it` });
      return;
    }
    case 'authorizeNonceAccount':
      if (accounts.isWallet(ix.authority) && !accounts.isWallet(ix.newAuthority) && !accounts.isExplained(ix.newAuthority)) {
        report.violations.push({ rule: 'authority_change', detail: `instruction ${index}: hands the wallet's nonce account ${ix.nonceAccount} to ${ix.newAuthority}` });
      }
      return;
    default:
      return;
  }
}

function checkToken(ix: DecodedInstruction, token: TokenInstruction, accounts: WalletAccounts, report: ValueFlowReport): void {
  const index = ix.index;
  switch (token.type) {
    case 'transfer':
    case 'transferChecked':
    case 'transferCheckedWithFee':
      if (accounts.actsForWallet(token.authority, token.source)) {
        const asset = 'mint' in token ? token.mint : (accounts.mintOf(token.source) ?? 'unknown');
        send(report, accounts, { instruction: index, to: token.destination, asset, amount: BigInt(token.amount) }, 'value_transfer', `token ${token.type} of ${token.amount} (mint ${asset}) from ${token.source}`);
      }
      return;
    case 'approve':
    case 'approveChecked': {
      if (!accounts.actsForWallet(token.owner, token.source) || accounts.isWallet(token.delegate)) return;
      const asset = 'mint' in token ? token.mint : (accounts.mintOf(token.source) ?? 'unknown');
      if (accounts.isExplained(token.delegate)) {
        report.outflows.push({ instruction: index, to: token.delegate, asset, amount: BigInt(token.amount) });
      } else {
        report.violations.push({
          rule: 'token_approval',
          detail: `instruction ${index}: token ${token.type} lets ${token.delegate} spend ${token.amount} (mint ${asset}) from ${token.source}, a delegate the operation does not explain`,
        });
      }
      return;
    }
    case 'setAuthority':
      if (!accounts.actsForWallet(token.authority, token.account)) return;
      if (token.newAuthority === null) {
        report.violations.push({ rule: 'authority_change', detail: `instruction ${index}: setAuthority removes the ${token.authorityType} authority of ${token.account}` });
      } else if (!accounts.isWallet(token.newAuthority)) {
        // No operation stratd signs hands control of a wallet's account to anyone: an account the
        // intent names (a position, a request) is a destination of value, never its owner.
        report.violations.push({
          rule: 'authority_change',
          detail: `instruction ${index}: setAuthority gives the ${token.authorityType} authority of ${token.account} to ${token.newAuthority}, not the wallet`,
        });
      }
      return;
    case 'closeAccount':
      // A closed account's lamports (its rent, a wrapped SOL balance) go back to the wallet, never elsewhere.
      if (accounts.actsForWallet(token.owner, token.account) && !accounts.isWalletOwned(token.destination)) {
        report.violations.push({
          rule: 'account_close',
          detail: `instruction ${index}: closeAccount of ${token.account} sends its balance to ${token.destination}, not the wallet`,
        });
      }
      return;
    case 'burn':
    case 'burnChecked':
      if (accounts.actsForWallet(token.authority, token.account)) {
        report.violations.push({ rule: 'value_transfer', detail: `instruction ${index}: token ${token.type} destroys ${token.amount} of mint ${token.mint} from ${token.account}` });
      }
      return;
    case 'mintTo':
    case 'mintToChecked':
      if (accounts.isWallet(token.authority)) {
        send(report, accounts, { instruction: index, to: token.destination, asset: token.mint, amount: BigInt(token.amount) }, 'value_transfer', `token ${token.type} of ${token.amount} under the wallet's mint authority`);
      }
      return;
    case 'initializeAccount':
    case 'initializeAccount2':
    case 'initializeAccount3':
      if (accounts.isWallet(token.owner) && !accounts.isCreatedForWallet(token.account)) {
        report.violations.push({
          rule: 'account_ownership',
          detail: `instruction ${index}: ${token.type} makes ${token.account} a token account of the wallet, but this transaction did not create it with the wallet's lamports`,
        });
      }
      return;
    case 'other': {
      if (HARMLESS_OTHER_TOKEN_INSTRUCTIONS.has(token.name)) return;
      const touched = ix.accounts.find((a) => a.pubkey !== null && accounts.isWalletOwned(a.pubkey));
      if (touched?.pubkey) {
        report.violations.push({
          rule: 'value_transfer',
          detail: `instruction ${index}: token instruction ${token.name} (${token.code}) is not decoded and involves the wallet's account ${touched.pubkey}`,
        });
      }
      return;
    }
    default:
      return;
  }
}

function checkAssociatedToken(index: number, ix: AssociatedTokenInstruction, accounts: WalletAccounts, report: ValueFlowReport): void {
  if (ix.tokenProgram !== PROGRAMS.token && ix.tokenProgram !== PROGRAMS.token2022) {
    // The ATA program calls whichever token program it is handed, with the wallet's accounts.
    report.violations.push({ rule: 'program_not_allowed', detail: `instruction ${index}: associated token ${ix.type} hands the accounts to ${ix.tokenProgram}, which is no token program` });
    return;
  }
  if (ix.type === 'recoverNested') return; // moves tokens back into the wallet's own account
  let expected: string;
  try {
    expected = associatedTokenAccountOf(ix.owner, ix.mint, ix.tokenProgram);
  } catch {
    expected = '';
  }
  if (expected !== ix.associatedAccount) {
    report.violations.push({ rule: 'malformed', detail: `instruction ${index}: ${ix.associatedAccount} is not the associated token account of ${ix.owner} for mint ${ix.mint}` });
    return;
  }
  if (accounts.isWallet(ix.payer) && !accounts.isWallet(ix.owner) && !accounts.isExplained(ix.owner)) {
    report.violations.push({
      rule: 'value_transfer',
      detail: `instruction ${index}: the wallet pays the rent of a token account for ${ix.owner}, an owner the operation does not explain`,
    });
  }
}
