/**
 * The variants of the aggregator's `Swap` enum (the AMM each route step swaps through), in tag
 * order, with the borsh types of their fields: the later IDL's 106 variants, whose first 62 are the
 * older IDL's (two renamed since: PumpdotfunWrappedBuy/Sell are PumpWrappedBuy/Sell). A route
 * plan is walked by these sizes, so a step of a variant not listed here (a tag the program added
 * after the IDL) cannot be walked and the instruction is malformed. A test checks the table
 * against both IDL files.
 *
 * Field types: bool, u8, u32, u64; side (the Side enum, one tag byte); rai (RemainingAccountsInfo:
 * a vec of two-byte slices); a trailing ? makes a field an Option.
 */
export const SWAP_VARIANTS: readonly string[] = [
  'Saber', 'SaberAddDecimalsDeposit', 'SaberAddDecimalsWithdraw', 'TokenSwap', 'Sencha', 'Step', 'Cropper', 'Raydium', 'Crema(bool)',
  'Lifinity', 'Mercurial', 'Cykura', 'Serum(side)', 'MarinadeDeposit', 'MarinadeUnstake', 'Aldrin(side)', 'AldrinV2(side)',
  'Whirlpool(bool)', 'Invariant(bool)', 'Meteora', 'GooseFX', 'DeltaFi(bool)', 'Balansol', 'MarcoPolo(bool)', 'Dradex(side)', 'LifinityV2',
  'RaydiumClmm', 'Openbook(side)', 'Phoenix(side)', 'Symmetry(u64,u64)', 'TokenSwapV2', 'HeliumTreasuryManagementRedeemV0',
  'StakeDexStakeWrappedSol', 'StakeDexSwapViaStake(u32)', 'GooseFXV2', 'Perps', 'PerpsAddLiquidity', 'PerpsRemoveLiquidity', 'MeteoraDlmm',
  'OpenBookV2(side)', 'RaydiumClmmV2', 'StakeDexPrefundWithdrawStakeAndDepositStake(u32)', 'Clone(u8,bool,bool)',
  'SanctumS(u8,u8,u32,u32)', 'SanctumSAddLiquidity(u8,u32)', 'SanctumSRemoveLiquidity(u8,u32)', 'RaydiumCP', 'WhirlpoolSwapV2(bool,rai?)',
  'OneIntro', 'PumpWrappedBuy', 'PumpWrappedSell', 'PerpsV2', 'PerpsV2AddLiquidity', 'PerpsV2RemoveLiquidity', 'MoonshotWrappedBuy',
  'MoonshotWrappedSell', 'StabbleStableSwap', 'StabbleWeightedSwap', 'Obric(bool)', 'FoxBuyFromEstimatedCost', 'FoxClaimPartial(bool)',
  'SolFi(bool)', 'SolayerDelegateNoInit', 'SolayerUndelegateNoInit', 'TokenMill(side)', 'DaosFunBuy', 'DaosFunSell', 'ZeroFi',
  'StakeDexWithdrawWrappedSol', 'VirtualsBuy', 'VirtualsSell', 'Perena(u8,u8)', 'PumpSwapBuy', 'PumpSwapSell', 'Gamma',
  'MeteoraDlmmSwapV2(rai)', 'Woofi', 'MeteoraDammV2', 'MeteoraDynamicBondingCurveSwap', 'StabbleStableSwapV2', 'StabbleWeightedSwapV2',
  'RaydiumLaunchlabBuy(u64)', 'RaydiumLaunchlabSell(u64)', 'BoopdotfunWrappedBuy', 'BoopdotfunWrappedSell', 'Plasma(side)',
  'GoonFi(bool,u8)', 'HumidiFi(u64,bool)', 'MeteoraDynamicBondingCurveSwapWithRemainingAccounts', 'TesseraV(side)', 'PumpWrappedBuyV2',
  'PumpWrappedSellV2', 'PumpSwapBuyV2', 'PumpSwapSellV2', 'Heaven(bool)', 'SolFiV2(bool)', 'Aquifer', 'PumpWrappedBuyV3',
  'PumpWrappedSellV3', 'PumpSwapBuyV3', 'PumpSwapSellV3', 'JupiterLendDeposit', 'JupiterLendRedeem', 'DefiTuna(bool,rai?)', 'AlphaQ(bool)',
  'RaydiumV2',
];

export type SwapFieldType = 'bool' | 'u8' | 'u32' | 'u64' | 'side' | 'rai' | 'rai?';

interface SwapVariant {
  readonly name: string;
  readonly fields: readonly SwapFieldType[];
}

const FIELD_TYPES: ReadonlySet<string> = new Set(['bool', 'u8', 'u32', 'u64', 'side', 'rai', 'rai?']);

/** Parsed once: "Name(type,type)" → name and field types. */
export const SWAP_VARIANT_LIST: readonly SwapVariant[] = SWAP_VARIANTS.map((entry) => {
  const match = /^([A-Za-z0-9]+)(?:\((.*)\))?$/.exec(entry);
  const fields = match?.[2] === undefined ? [] : match[2].split(',');
  if (!match?.[1] || fields.some((f) => !FIELD_TYPES.has(f))) throw new TypeError(`swap variant ${entry} does not parse`);
  return { name: match[1], fields: fields as SwapFieldType[] };
});
