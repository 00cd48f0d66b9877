import { accountAt, InstructionDataError, InstructionDataReader } from './instruction-data.ts';

/**
 * SPL Token and Token-2022 instructions (same layout for the shared range 0–25). The ones that move
 * value or control are decoded field by field; the rest are named (`other`) so the policy can judge
 * them by the accounts they touch.
 */
export type TokenInstruction = { readonly program: 'token' } & (
  | { type: 'transfer'; source: string; destination: string; authority: string; amount: string }
  | { type: 'transferChecked'; source: string; mint: string; destination: string; authority: string; amount: string; decimals: number }
  | {
      type: 'transferCheckedWithFee';
      source: string;
      mint: string;
      destination: string;
      authority: string;
      amount: string;
      decimals: number;
      fee: string;
    }
  | { type: 'approve'; source: string; delegate: string; owner: string; amount: string }
  | { type: 'approveChecked'; source: string; mint: string; delegate: string; owner: string; amount: string; decimals: number }
  | { type: 'revoke'; source: string; owner: string }
  | { type: 'setAuthority'; account: string; authority: string; authorityType: string; newAuthority: string | null }
  | { type: 'mintTo' | 'mintToChecked'; mint: string; destination: string; authority: string; amount: string }
  | { type: 'burn' | 'burnChecked'; account: string; mint: string; authority: string; amount: string }
  | { type: 'closeAccount'; account: string; destination: string; owner: string }
  | { type: 'freezeAccount' | 'thawAccount'; account: string; mint: string; authority: string }
  | { type: 'initializeAccount' | 'initializeAccount2' | 'initializeAccount3'; account: string; mint: string; owner: string }
  | { type: 'initializeMint' | 'initializeMint2'; mint: string; decimals: number; mintAuthority: string; freezeAuthority: string | null }
  | { type: 'syncNative'; account: string }
  | { type: 'initializeImmutableOwner'; account: string }
  | { type: 'other'; code: number; name: string }
);

const AUTHORITY_TYPES = [
  'mintTokens',
  'freezeAccount',
  'accountOwner',
  'closeAccount',
  'transferFeeConfig',
  'withheldWithdraw',
  'closeMint',
  'interestRate',
  'permanentDelegate',
  'confidentialTransferMint',
  'transferHookProgramId',
  'confidentialTransferFeeConfig',
  'metadataPointer',
  'groupPointer',
  'groupMemberPointer',
  'scaledUiAmount',
  'pause',
];

/** Names of the instructions decoded as `other`, by code (Token-2022 extensions included). */
const OTHER_NAMES: Readonly<Record<number, string>> = {
  2: 'initializeMultisig',
  19: 'initializeMultisig2',
  21: 'getAccountDataSize',
  23: 'amountToUiAmount',
  24: 'uiAmountToAmount',
  25: 'initializeMintCloseAuthority',
  26: 'transferFeeExtension',
  27: 'confidentialTransferExtension',
  28: 'defaultAccountStateExtension',
  29: 'reallocate',
  30: 'memoTransferExtension',
  31: 'createNativeMint',
  32: 'initializeNonTransferableMint',
  33: 'interestBearingMintExtension',
  34: 'cpiGuardExtension',
  35: 'initializePermanentDelegate',
  36: 'transferHookExtension',
  37: 'confidentialTransferFeeExtension',
  38: 'withdrawExcessLamports',
  39: 'metadataPointerExtension',
  40: 'groupPointerExtension',
  41: 'groupMemberPointerExtension',
  42: 'confidentialMintBurnExtension',
  43: 'scaledUiAmountExtension',
  44: 'pausableExtension',
};

/** Token-2022 TransferFeeExtension sub-instruction 1. */
const TRANSFER_CHECKED_WITH_FEE = 1;

export function decodeTokenInstruction(accounts: readonly string[], data: Uint8Array): TokenInstruction {
  const r = new InstructionDataReader(data);
  const at = (position: number, role: string) => accountAt(accounts, position, role);
  const code = r.u8('instruction');
  switch (code) {
    case 0:
    case 20:
      return {
        program: 'token',
        type: code === 0 ? 'initializeMint' : 'initializeMint2',
        mint: at(0, 'mint'),
        decimals: r.u8('decimals'),
        mintAuthority: r.pubkey('mint authority'),
        freezeAuthority: r.optionalPubkey('freeze authority'),
      };
    case 1:
      return { program: 'token', type: 'initializeAccount', account: at(0, 'account'), mint: at(1, 'mint'), owner: at(2, 'owner') };
    case 16:
    case 18:
      return {
        program: 'token',
        type: code === 16 ? 'initializeAccount2' : 'initializeAccount3',
        account: at(0, 'account'),
        mint: at(1, 'mint'),
        owner: r.pubkey('owner'),
      };
    case 3:
      return {
        program: 'token',
        type: 'transfer',
        source: at(0, 'source'),
        destination: at(1, 'destination'),
        authority: at(2, 'authority'),
        amount: r.u64('amount').toString(),
      };
    case 4:
      return { program: 'token', type: 'approve', source: at(0, 'source'), delegate: at(1, 'delegate'), owner: at(2, 'owner'), amount: r.u64('amount').toString() };
    case 5:
      return { program: 'token', type: 'revoke', source: at(0, 'source'), owner: at(1, 'owner') };
    case 6: {
      const kind = r.u8('authority type');
      return {
        program: 'token',
        type: 'setAuthority',
        account: at(0, 'account or mint'),
        authority: at(1, 'current authority'),
        authorityType: AUTHORITY_TYPES[kind] ?? `unknown(${kind})`,
        newAuthority: r.optionalPubkey('new authority'),
      };
    }
    case 7:
    case 14:
      return {
        program: 'token',
        type: code === 7 ? 'mintTo' : 'mintToChecked',
        mint: at(0, 'mint'),
        destination: at(1, 'destination'),
        authority: at(2, 'mint authority'),
        amount: r.u64('amount').toString(),
      };
    case 8:
    case 15:
      return {
        program: 'token',
        type: code === 8 ? 'burn' : 'burnChecked',
        account: at(0, 'account'),
        mint: at(1, 'mint'),
        authority: at(2, 'authority'),
        amount: r.u64('amount').toString(),
      };
    case 9:
      return { program: 'token', type: 'closeAccount', account: at(0, 'account'), destination: at(1, 'destination'), owner: at(2, 'owner') };
    case 10:
    case 11:
      return {
        program: 'token',
        type: code === 10 ? 'freezeAccount' : 'thawAccount',
        account: at(0, 'account'),
        mint: at(1, 'mint'),
        authority: at(2, 'freeze authority'),
      };
    case 12:
      return {
        program: 'token',
        type: 'transferChecked',
        source: at(0, 'source'),
        mint: at(1, 'mint'),
        destination: at(2, 'destination'),
        authority: at(3, 'authority'),
        amount: r.u64('amount').toString(),
        decimals: r.u8('decimals'),
      };
    case 13:
      return {
        program: 'token',
        type: 'approveChecked',
        source: at(0, 'source'),
        mint: at(1, 'mint'),
        delegate: at(2, 'delegate'),
        owner: at(3, 'owner'),
        amount: r.u64('amount').toString(),
        decimals: r.u8('decimals'),
      };
    case 17:
      return { program: 'token', type: 'syncNative', account: at(0, 'account') };
    case 22:
      return { program: 'token', type: 'initializeImmutableOwner', account: at(0, 'account') };
    case 26:
      if (data[1] === TRANSFER_CHECKED_WITH_FEE) {
        r.u8('transfer fee instruction');
        return {
          program: 'token',
          type: 'transferCheckedWithFee',
          source: at(0, 'source'),
          mint: at(1, 'mint'),
          destination: at(2, 'destination'),
          authority: at(3, 'authority'),
          amount: r.u64('amount').toString(),
          decimals: r.u8('decimals'),
          fee: r.u64('fee').toString(),
        };
      }
      return { program: 'token', type: 'other', code, name: OTHER_NAMES[code] ?? 'transferFeeExtension' };
    default: {
      const name = OTHER_NAMES[code];
      if (name === undefined) throw new InstructionDataError(`unknown token instruction ${code}`);
      return { program: 'token', type: 'other', code, name };
    }
  }
}
