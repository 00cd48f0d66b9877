import { MINTS } from '../../api/mints.ts';
import type { PerpsInstruction } from '../decode/perps.ts';
import type { PerpsInstructionName } from '../programs/perps/instructions.ts';
import { CUSTODY_MINT } from '../programs/perps/addresses.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../programs.ts';

// What every account role of the perps instructions must be. Which instructions an operation may
// carry is the instruction gate's table (operation-instructions.ts).

/** Roles whose address is fixed by the program and the live deployment. */
export const FIXED_ROLES: Readonly<Record<string, string>> = {
  pool: PERPS_ACCOUNTS.pool,
  eventAuthority: PERPS_ACCOUNTS.eventAuthority,
  program: PROGRAMS.perps,
  tokenProgram: PROGRAMS.token,
  associatedTokenProgram: PROGRAMS.associatedToken,
  systemProgram: PROGRAMS.system,
  lpTokenMint: MINTS.JLP,
};

/** Roles that must name one of the pool's custodies. */
export const CUSTODY_ROLES = ['custody', 'collateralCustody', 'receivingCustody', 'dispensingCustody'] as const;

/** Roles that must name a mint the perps program moves. */
export const MINT_ROLES = ['inputMint', 'desiredMint'] as const;

/** Requests that open an increase (seeded with change 1); every other request is a decrease (2). */
export const INCREASE_REQUESTS: ReadonlySet<PerpsInstructionName> = new Set(['createIncreasePositionMarketRequest', 'instantCreateLimitOrder']);

/**
 * The wallet's token accounts an instruction names, with the mint each must hold. 'any' when the
 * layout does not name the mint (the instant increase funds from the wallet's account of any
 * perps mint; the policy finds which).
 */
export function walletTokenRoles(ix: PerpsInstruction): Array<{ role: string; mint: string | 'any' }> {
  const a = ix.accounts;
  const custodyMint = a.custody === undefined ? undefined : CUSTODY_MINT[a.custody];
  const roles: Array<{ role: string; mint: string | 'any' | undefined }> = [];
  switch (ix.type) {
    case 'addLiquidity2':
      roles.push({ role: 'fundingAccount', mint: custodyMint }, { role: 'lpTokenAccount', mint: MINTS.JLP });
      break;
    case 'removeLiquidity2':
      roles.push({ role: 'receivingAccount', mint: custodyMint }, { role: 'lpTokenAccount', mint: MINTS.JLP });
      break;
    case 'depositCollateralForBorrows':
    case 'withdrawCollateralForBorrows':
      roles.push({ role: 'userTokenAccount', mint: MINTS.JLP });
      break;
    case 'borrowFromCustody':
    case 'repayToCustody':
      roles.push({ role: 'userTokenAccount', mint: custodyMint });
      break;
    default:
      if (a.fundingAccount !== undefined) roles.push({ role: 'fundingAccount', mint: a.inputMint ?? 'any' });
      if (a.receivingAccount !== undefined) roles.push({ role: 'receivingAccount', mint: a.desiredMint ?? 'any' });
  }
  // An unknown custody names no mint: the custody check reports it, and no ATA can match.
  return roles.map((r) => ({ role: r.role, mint: r.mint ?? 'unknown custody' }));
}

/** The token amount an instruction takes from the wallet's `role` account, by argument name. */
export const PAID_IN_ARGUMENT: Readonly<Partial<Record<PerpsInstructionName, string>>> = {
  createIncreasePositionMarketRequest: 'collateralTokenDelta',
  instantIncreasePosition: 'collateralTokenDelta',
  instantCreateLimitOrder: 'collateralTokenDelta',
  addLiquidity2: 'tokenAmountIn',
  depositCollateralForBorrows: 'amount',
  repayToCustody: 'amount',
};
