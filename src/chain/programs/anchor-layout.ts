/**
 * The shape of an Anchor instruction as the policy reads it: 8-byte discriminator, then the
 * borsh-encoded arguments in the IDL's order, with the accounts in the IDL's order. The product
 * programs' layouts (one file per program, beside this one) are written in this shape and a test
 * rebuilds each from the program's IDL, so a transcription slip cannot stand.
 */

/** Borsh argument types the trader-side instructions of Limit Order v2, DCA and DBC use. */
export type AnchorScalar = 'u8' | 'u16' | 'u64' | 'i64' | 'bool' | 'pubkey';
/**
 * `transferHookAccountsInfo`: DBC's `TransferHookAccountsInfo`, a borsh vec (u32 length) of
 * `{ accounts_type: AccountsType (one tag byte), length: u8 }`, read as one argument.
 */
export type AnchorArgType = AnchorScalar | { readonly option: AnchorScalar } | 'transferHookAccountsInfo';

interface AnchorAccountSpec {
  readonly name: string;
  readonly signer: boolean;
  readonly writable: boolean;
  /** Anchor's optional account: a client that leaves it out passes the program id in its place. */
  readonly optional: boolean;
}

export interface AnchorInstructionLayout<Name extends string = string> {
  readonly name: Name;
  /** 16 hex characters: the Anchor discriminator. */
  readonly discriminator: string;
  readonly accounts: readonly AnchorAccountSpec[];
  readonly args: ReadonlyArray<readonly [name: string, type: AnchorArgType]>;
}

/** The variants of DBC's AccountsType, in tag order. */
export const TRANSFER_HOOK_ACCOUNTS_TYPES = ['TransferHookBase', 'TransferHookBaseReferral'] as const;

/**
 * One layout from a compact account list, "name:sw name2:w name3:o" in the IDL's order
 * (s = signer, w = writable, o = optional).
 */
export function anchorLayout<Name extends string>(
  name: Name,
  discriminator: string,
  accounts: string,
  args: AnchorInstructionLayout['args'],
): AnchorInstructionLayout<Name> {
  return {
    name,
    discriminator,
    accounts: accounts.split(' ').map((entry) => {
      const [account = '', flags = ''] = entry.split(':');
      return { name: account, signer: flags.includes('s'), writable: flags.includes('w'), optional: flags.includes('o') };
    }),
    args,
  };
}

/** A table of layouts by discriminator, for the decoders. */
export function layoutsByDiscriminator<Name extends string>(layouts: Readonly<Record<Name, AnchorInstructionLayout<Name>>>): ReadonlyMap<string, AnchorInstructionLayout<Name>> {
  return new Map(Object.values<AnchorInstructionLayout<Name>>(layouts).map((l) => [l.discriminator, l]));
}
