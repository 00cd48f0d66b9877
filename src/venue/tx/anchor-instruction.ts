import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { encodeAnchorInstructionData, type AnchorArgInput } from '../../chain/programs/anchor-codec.ts';
import type { AnchorInstructionLayout } from '../../chain/programs/anchor-layout.ts';
import { findProgramAddress } from '../../chain/program-address.ts';
import { PROGRAMS } from '../../chain/programs.ts';

/**
 * An Anchor program's instruction as the live service puts it in a trader's transaction: the
 * IDL's discriminator, account order and flags, and borsh arguments (the layouts the signing policy
 * decodes with), so paper transactions have the shape live ones have.
 */
export function anchorInstruction(
  programId: string,
  layout: AnchorInstructionLayout,
  accounts: Readonly<Record<string, string>>,
  args: Readonly<Record<string, AnchorArgInput>>,
): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(programId),
    keys: layout.accounts.map((spec) => {
      const address = accounts[spec.name];
      if (address === undefined) throw new TypeError(`${layout.name}: account ${spec.name} is missing`);
      return { pubkey: new PublicKey(address), isSigner: spec.signer, isWritable: spec.writable };
    }),
    data: encodeAnchorInstructionData(layout, args),
  });
}

const atas = new Map<string, string>();
/** The associated token account of `owner` for `mint` under SPL Token (every venue mint is a classic SPL Token mint). */
export function venueTokenAccount(owner: string, mint: string): string {
  const id = `${owner}:${mint}`;
  let address = atas.get(id);
  if (!address) {
    address = findProgramAddress([new PublicKey(owner).toBytes(), new PublicKey(PROGRAMS.token).toBytes(), new PublicKey(mint).toBytes()], new PublicKey(PROGRAMS.associatedToken)).address;
    if (atas.size > 20_000) atas.clear();
    atas.set(id, address);
  }
  return address;
}

/** A u64 taken from the first 8 bytes of an account key: a unique id per order the venue names (unique_id, applicationIdx). */
export function u64OfKey(address: string): bigint {
  return Buffer.from(new PublicKey(address).toBytes()).readBigUInt64LE(0);
}
