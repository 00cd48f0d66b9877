import { accountAt, InstructionDataError } from './instruction-data.ts';

/** Associated Token Account program instructions. */
export type AssociatedTokenInstruction = { readonly program: 'associatedToken' } & (
  | { type: 'create' | 'createIdempotent'; payer: string; associatedAccount: string; owner: string; mint: string; tokenProgram: string }
  | {
      type: 'recoverNested';
      nestedAccount: string;
      nestedMint: string;
      destination: string;
      ownerAccount: string;
      ownerMint: string;
      wallet: string;
      tokenProgram: string;
    }
);

export function decodeAssociatedTokenInstruction(accounts: readonly string[], data: Uint8Array): AssociatedTokenInstruction {
  const at = (position: number, role: string) => accountAt(accounts, position, role);
  // An empty data field is the original "create" (before the instruction enum existed).
  const code = data.length === 0 ? 0 : data[0];
  if (code === 0 || code === 1) {
    return {
      program: 'associatedToken',
      type: code === 0 ? 'create' : 'createIdempotent',
      payer: at(0, 'payer'),
      associatedAccount: at(1, 'associated account'),
      owner: at(2, 'owner'),
      mint: at(3, 'mint'),
      tokenProgram: at(5, 'token program'),
    };
  }
  if (code === 2) {
    return {
      program: 'associatedToken',
      type: 'recoverNested',
      nestedAccount: at(0, 'nested account'),
      nestedMint: at(1, 'nested mint'),
      destination: at(2, 'destination'),
      ownerAccount: at(3, 'owner account'),
      ownerMint: at(4, 'owner mint'),
      wallet: at(5, 'wallet'),
      tokenProgram: at(6, 'token program'),
    };
  }
  throw new InstructionDataError(`unknown associated token instruction ${code}`);
}
