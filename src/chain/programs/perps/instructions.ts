/**
 * The Jupiter Perpetuals instructions stratd signs, transcribed from the program's Anchor IDL
 * (instruction names, account lists with their signer/writable flags, argument layouts). Anchor
 * instructions start with an 8-byte discriminator, sha256("global:<snake_case name>")[0..8], then
 * the borsh-encoded parameters. A test rebuilds this table from the IDL when it is available and
 * requires an exact match, so a transcription slip cannot stand.
 *
 * Only the instructions a trader's own transaction carries are here (requests, instant variants,
 * liquidity and borrow); keeper and admin instructions are not, so the policy never allows them.
 */

/** Borsh argument types: u64/i64 little-endian, bool one byte, enums one tag byte, option a 0/1 tag. */
type PerpsScalar = 'u64' | 'i64' | 'bool' | 'side' | 'requestType';
export type PerpsArgType = PerpsScalar | { readonly option: 'u64' | 'bool' };

interface PerpsAccountSpec {
  readonly name: string;
  readonly signer: boolean;
  readonly writable: boolean;
}

export interface PerpsInstructionLayout {
  readonly name: string;
  /** 16 hex characters: the Anchor discriminator. */
  readonly discriminator: string;
  readonly accounts: readonly PerpsAccountSpec[];
  readonly args: ReadonlyArray<readonly [name: string, type: PerpsArgType]>;
}

/** Enum variants in tag order (IDL types Side and RequestType; RequestChange seeds request PDAs). */
export const SIDE_VARIANTS = ['none', 'long', 'short'] as const;
export const REQUEST_TYPE_VARIANTS = ['market', 'trigger'] as const;
export const REQUEST_CHANGE = { none: 0, increase: 1, decrease: 2 } as const;

/** "name:sw name2 name3:w": s = signer, w = writable, in the IDL's account order. */
function layout(discriminator: string, accounts: string, args: PerpsInstructionLayout['args']): Omit<PerpsInstructionLayout, 'name'> {
  return {
    discriminator,
    accounts: accounts.split(' ').map((entry) => {
      const [name = '', flags = ''] = entry.split(':');
      return { name, signer: flags.includes('s'), writable: flags.includes('w') };
    }),
    args,
  };
}

const LAYOUTS = {
  createIncreasePositionMarketRequest: layout('b855c71869ab9c38', 'owner:sw fundingAccount:w perpetuals pool position:w positionRequest:w positionRequestAta:w custody collateralCustody inputMint referral tokenProgram associatedTokenProgram systemProgram eventAuthority program', [['sizeUsdDelta', 'u64'], ['collateralTokenDelta', 'u64'], ['side', 'side'], ['priceSlippage', 'u64'], ['jupiterMinimumOut', { option: 'u64' }], ['counter', 'u64']]),
  createDecreasePositionMarketRequest: layout('4ac6c356c163014f', 'owner:sw receivingAccount:w perpetuals pool position positionRequest:w positionRequestAta:w custody collateralCustody desiredMint referral tokenProgram associatedTokenProgram systemProgram eventAuthority program', [['collateralUsdDelta', 'u64'], ['sizeUsdDelta', 'u64'], ['priceSlippage', 'u64'], ['jupiterMinimumOut', { option: 'u64' }], ['entirePosition', { option: 'bool' }], ['counter', 'u64']]),
  createDecreasePositionRequest2: layout('6940c952fa0e6d4d', 'owner:sw receivingAccount:w perpetuals pool position positionRequest:w positionRequestAta:w custody custodyDovesPriceAccount custodyPythnetPriceAccount collateralCustody desiredMint referral tokenProgram associatedTokenProgram systemProgram eventAuthority program', [['collateralUsdDelta', 'u64'], ['sizeUsdDelta', 'u64'], ['requestType', 'requestType'], ['priceSlippage', { option: 'u64' }], ['jupiterMinimumOut', { option: 'u64' }], ['triggerPrice', { option: 'u64' }], ['triggerAboveThreshold', { option: 'bool' }], ['entirePosition', { option: 'bool' }], ['counter', 'u64']]),
  updateDecreasePositionRequest2: layout('90c8f9ff6cd9f974', 'owner:s perpetuals pool position positionRequest:w custody custodyDovesPriceAccount custodyPythnetPriceAccount', [['sizeUsdDelta', 'u64'], ['triggerPrice', 'u64']]),
  // Closes a request the owner created (a TP/SL cancel); keeper and ownerAta are optional accounts
  // (Anchor's "none" is the program id), and the owner does not sign: the fee payer does.
  closePositionRequest: layout('2869d9bcdc2d6d6e', 'keeper:s owner:w ownerAta:w pool:w positionRequest:w positionRequestAta:w position tokenProgram eventAuthority program', []),
  instantIncreasePosition: layout('a47e44b6dfa640b7', 'keeper:s apiKeeper:s owner:sw fundingAccount:w perpetuals pool:w position:w custody:w custodyDovesPriceAccount custodyPythnetPriceAccount collateralCustody:w collateralCustodyDovesPriceAccount collateralCustodyPythnetPriceAccount collateralCustodyTokenAccount:w tokenLedger referral tokenProgram systemProgram eventAuthority program', [['sizeUsdDelta', 'u64'], ['collateralTokenDelta', { option: 'u64' }], ['side', 'side'], ['priceSlippage', 'u64'], ['requestTime', 'i64']]),
  instantDecreasePosition: layout('2e17f02c1e8a5e8c', 'keeper:s apiKeeper:s owner:sw receivingAccount:w transferAuthority perpetuals pool:w position:w custody:w custodyDovesPriceAccount custodyPythnetPriceAccount collateralCustody:w collateralCustodyDovesPriceAccount collateralCustodyPythnetPriceAccount collateralCustodyTokenAccount:w desiredMint referral tokenProgram associatedTokenProgram systemProgram eventAuthority program', [['collateralUsdDelta', 'u64'], ['sizeUsdDelta', 'u64'], ['priceSlippage', 'u64'], ['entirePosition', { option: 'bool' }], ['requestTime', 'i64']]),
  instantCreateTpsl: layout('7562427f1e3249b9', 'keeper:s apiKeeper:s owner:sw receivingAccount:w perpetuals pool:w position positionRequest:w positionRequestAta:w custody custodyDovesPriceAccount custodyPythnetPriceAccount collateralCustody desiredMint referral tokenProgram associatedTokenProgram systemProgram eventAuthority program', [['collateralUsdDelta', 'u64'], ['sizeUsdDelta', 'u64'], ['triggerPrice', 'u64'], ['triggerAboveThreshold', 'bool'], ['entirePosition', 'bool'], ['counter', 'u64'], ['requestTime', 'i64']]),
  instantUpdateTpsl: layout('90e47225a5f26f65', 'keeper:s apiKeeper:s owner:s perpetuals pool position positionRequest:w custody custodyDovesPriceAccount custodyPythnetPriceAccount eventAuthority program', [['sizeUsdDelta', 'u64'], ['triggerPrice', 'u64'], ['requestTime', 'i64']]),
  instantCreateLimitOrder: layout('c225c37b287f7e9c', 'keeper:s apiKeeper:s owner:sw fundingAccount:w perpetuals pool position:w positionRequest:w positionRequestAta:w custody custodyDovesPriceAccount custodyPythnetPriceAccount collateralCustody inputMint referral tokenProgram associatedTokenProgram systemProgram eventAuthority program', [['sizeUsdDelta', 'u64'], ['collateralTokenDelta', 'u64'], ['side', 'side'], ['triggerPrice', 'u64'], ['triggerAboveThreshold', 'bool'], ['counter', 'u64'], ['requestTime', 'i64']]),
  instantUpdateLimitOrder: layout('88f5e53a798d0ccf', 'keeper:s apiKeeper:s owner:s perpetuals pool position positionRequest:w custody custodyDovesPriceAccount custodyPythnetPriceAccount', [['sizeUsdDelta', 'u64'], ['triggerPrice', 'u64'], ['requestTime', 'i64']]),
  addLiquidity2: layout('e4a24e1c46db7473', 'owner:s fundingAccount:w lpTokenAccount:w transferAuthority perpetuals pool:w custody:w custodyDovesPriceAccount custodyPythnetPriceAccount custodyTokenAccount:w lpTokenMint:w tokenProgram eventAuthority program', [['tokenAmountIn', 'u64'], ['minLpAmountOut', 'u64'], ['tokenAmountPreSwap', { option: 'u64' }]]),
  removeLiquidity2: layout('e6d7527ff165e392', 'owner:s receivingAccount:w lpTokenAccount:w transferAuthority perpetuals pool:w custody:w custodyDovesPriceAccount custodyPythnetPriceAccount custodyTokenAccount:w lpTokenMint:w tokenProgram eventAuthority program', [['lpAmountIn', 'u64'], ['minAmountOut', 'u64']]),
  depositCollateralForBorrows: layout('1102c3be4c10ee4a', 'owner:sw perpetuals pool custody transferAuthority borrowPosition:w collateralTokenAccount:w userTokenAccount:w lpTokenMint tokenProgram systemProgram eventAuthority program', [['amount', 'u64']]),
  withdrawCollateralForBorrows: layout('75a03c52ede92eb6', 'owner:sw perpetuals pool custody:w transferAuthority borrowPosition:w collateralTokenAccount:w userTokenAccount:w lpTokenMint tokenProgram eventAuthority program', [['amount', 'u64']]),
  borrowFromCustody: layout('99b741417121f92d', 'owner:sw perpetuals pool custody:w transferAuthority borrowPosition:w custodyTokenAccount:w userTokenAccount:w lpTokenMint tokenProgram eventAuthority program', [['amount', 'u64']]),
  repayToCustody: layout('d3dbb7def84a051a', 'owner:sw perpetuals pool custody:w borrowPosition:w custodyTokenAccount:w userTokenAccount:w tokenProgram eventAuthority program', [['amount', 'u64']]),
} as const;

export type PerpsInstructionName = keyof typeof LAYOUTS;

export const PERPS_INSTRUCTIONS: Readonly<Record<PerpsInstructionName, PerpsInstructionLayout>> = Object.fromEntries(
  Object.entries(LAYOUTS).map(([name, l]) => [name, { name, ...l }]),
) as Record<PerpsInstructionName, PerpsInstructionLayout>;

const BY_DISCRIMINATOR: ReadonlyMap<string, PerpsInstructionLayout> = new Map(Object.values(PERPS_INSTRUCTIONS).map((l) => [l.discriminator, l]));

/** The layout whose discriminator starts `data`, or undefined for any other instruction. */
export function perpsLayoutOf(data: Uint8Array): PerpsInstructionLayout | undefined {
  if (data.length < 8) return undefined;
  return BY_DISCRIMINATOR.get(Buffer.from(data.subarray(0, 8)).toString('hex'));
}
