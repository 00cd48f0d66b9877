import { accountAt, InstructionDataError, InstructionDataReader } from './instruction-data.ts';

/** System program instructions, as the policy needs them: who pays whom, what is assigned where. */
export type SystemInstruction = { readonly program: 'system' } & (
  | { type: 'createAccount'; from: string; newAccount: string; lamports: string; space: string; owner: string }
  | { type: 'assign'; account: string; owner: string }
  | { type: 'transfer'; from: string; to: string; lamports: string }
  | {
      type: 'createAccountWithSeed';
      from: string;
      newAccount: string;
      base: string;
      seed: string;
      lamports: string;
      space: string;
      owner: string;
    }
  | { type: 'advanceNonceAccount'; nonceAccount: string; authority: string }
  | { type: 'withdrawNonceAccount'; nonceAccount: string; to: string; authority: string; lamports: string }
  | { type: 'initializeNonceAccount'; nonceAccount: string; authority: string }
  | { type: 'authorizeNonceAccount'; nonceAccount: string; authority: string; newAuthority: string }
  | { type: 'allocate'; account: string; space: string }
  | { type: 'allocateWithSeed'; account: string; base: string; seed: string; space: string; owner: string }
  | { type: 'assignWithSeed'; account: string; base: string; seed: string; owner: string }
  | { type: 'transferWithSeed'; from: string; base: string; to: string; lamports: string; fromSeed: string; fromOwner: string }
  | { type: 'upgradeNonceAccount'; nonceAccount: string }
);

/** Decodes one System program instruction (bincode: u32 discriminant, then fields). */
export function decodeSystemInstruction(accounts: readonly string[], data: Uint8Array): SystemInstruction {
  const r = new InstructionDataReader(data);
  const at = (position: number, role: string) => accountAt(accounts, position, role);
  const discriminant = r.u32('instruction');
  switch (discriminant) {
    case 0:
      return {
        program: 'system',
        type: 'createAccount',
        from: at(0, 'funding account'),
        newAccount: at(1, 'new account'),
        lamports: r.u64('lamports').toString(),
        space: r.u64('space').toString(),
        owner: r.pubkey('owner'),
      };
    case 1:
      return { program: 'system', type: 'assign', account: at(0, 'assigned account'), owner: r.pubkey('owner') };
    case 2:
      return { program: 'system', type: 'transfer', from: at(0, 'funding account'), to: at(1, 'recipient'), lamports: r.u64('lamports').toString() };
    case 3: {
      const base = r.pubkey('base');
      const seed = r.string('seed');
      return {
        program: 'system',
        type: 'createAccountWithSeed',
        from: at(0, 'funding account'),
        newAccount: at(1, 'new account'),
        base,
        seed,
        lamports: r.u64('lamports').toString(),
        space: r.u64('space').toString(),
        owner: r.pubkey('owner'),
      };
    }
    case 4:
      return { program: 'system', type: 'advanceNonceAccount', nonceAccount: at(0, 'nonce account'), authority: at(2, 'nonce authority') };
    case 5:
      return {
        program: 'system',
        type: 'withdrawNonceAccount',
        nonceAccount: at(0, 'nonce account'),
        to: at(1, 'recipient'),
        authority: at(4, 'nonce authority'),
        lamports: r.u64('lamports').toString(),
      };
    case 6:
      return { program: 'system', type: 'initializeNonceAccount', nonceAccount: at(0, 'nonce account'), authority: r.pubkey('authority') };
    case 7:
      return {
        program: 'system',
        type: 'authorizeNonceAccount',
        nonceAccount: at(0, 'nonce account'),
        authority: at(1, 'nonce authority'),
        newAuthority: r.pubkey('new authority'),
      };
    case 8:
      return { program: 'system', type: 'allocate', account: at(0, 'allocated account'), space: r.u64('space').toString() };
    case 9:
      return {
        program: 'system',
        type: 'allocateWithSeed',
        account: at(0, 'allocated account'),
        base: r.pubkey('base'),
        seed: r.string('seed'),
        space: r.u64('space').toString(),
        owner: r.pubkey('owner'),
      };
    case 10:
      return {
        program: 'system',
        type: 'assignWithSeed',
        account: at(0, 'assigned account'),
        base: r.pubkey('base'),
        seed: r.string('seed'),
        owner: r.pubkey('owner'),
      };
    case 11:
      return {
        program: 'system',
        type: 'transferWithSeed',
        from: at(0, 'funding account'),
        base: at(1, 'base'),
        to: at(2, 'recipient'),
        lamports: r.u64('lamports').toString(),
        fromSeed: r.string('from seed'),
        fromOwner: r.pubkey('from owner'),
      };
    case 12:
      return { program: 'system', type: 'upgradeNonceAccount', nonceAccount: at(0, 'nonce account') };
    default:
      throw new InstructionDataError(`unknown System instruction ${discriminant}`);
  }
}
