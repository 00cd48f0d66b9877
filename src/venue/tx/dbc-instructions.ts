import { PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { anchorEventAuthority } from '../../chain/programs/anchor-event-authority.ts';
import { DBC_LAYOUTS, DBC_POOL_AUTHORITY } from '../../chain/programs/dbc/layouts.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import { derivedAddress } from '../market/keys.ts';
import { anchorInstruction, venueTokenAccount } from './anchor-instruction.ts';
import { foreignAccountFor, HOSTILE_AMOUNT_FACTOR, hostileUnknownInstruction, type OrderHostileKind } from './hostile.ts';

/**
 * The Dynamic Bonding Curve claim of a Studio fee claim, as the service builds it for a creator
 * who owns the pool directly: claim_creator_trading_fee, the base and quote fees paid to the
 * creator's own token accounts. The pool's base mint and vaults are stand-ins the venue derives
 * from the pool. `hostile` alters it as tx/hostile.ts describes.
 */
interface StudioClaim {
  readonly creator: string;
  readonly poolAddress: string;
  readonly quoteMint: string;
  readonly maxQuoteAmount: bigint;
}

/** The stand-in base mint of a venue pool (the venue models the quote side only). */
function venuePoolBaseMint(poolAddress: string): string {
  return derivedAddress('dbc-base-mint', poolAddress);
}

export function studioClaimInstructions(c: StudioClaim, hostile?: OrderHostileKind): TransactionInstruction[] {
  const foreign = foreignAccountFor(c.poolAddress).toBase58();
  const baseMint = venuePoolBaseMint(c.poolAddress);
  const claim = anchorInstruction(
    PROGRAMS.dbc,
    DBC_LAYOUTS.claim_creator_trading_fee,
    {
      pool_authority: DBC_POOL_AUTHORITY,
      pool: c.poolAddress,
      token_a_account: venueTokenAccount(c.creator, baseMint),
      token_b_account: venueTokenAccount(hostile === 'foreign_destination' ? foreign : c.creator, c.quoteMint),
      base_vault: derivedAddress('dbc-base-vault', c.poolAddress),
      quote_vault: derivedAddress('dbc-quote-vault', c.poolAddress),
      base_mint: baseMint,
      quote_mint: c.quoteMint,
      creator: hostile === 'foreign_owner' ? foreign : c.creator,
      token_base_program: PROGRAMS.token,
      token_quote_program: PROGRAMS.token,
      event_authority: anchorEventAuthority(PROGRAMS.dbc),
      program: PROGRAMS.dbc,
    },
    // The base fees are the creator's whole share: the claim bounds only the quote side.
    { max_base_amount: 0xffff_ffff_ffff_ffffn, max_quote_amount: hostile === 'amount_x100' ? c.maxQuoteAmount * HOSTILE_AMOUNT_FACTOR : c.maxQuoteAmount },
  );
  if (hostile !== 'unknown_instruction') return [claim];
  return [claim, hostileUnknownInstruction(PROGRAMS.dbc, new PublicKey(c.creator), new PublicKey(venueTokenAccount(c.creator, c.quoteMint)))];
}
