import { anchorLayout, layoutsByDiscriminator, type AnchorInstructionLayout } from '../anchor-layout.ts';
import { DCA_INSTRUCTIONS } from './instructions.ts';

/**
 * The DCA instructions of a trader's recurring orders, transcribed from the IDL (legacy Anchor:
 * camelCase account and argument names, kept as the IDL writes them): opening an order (both
 * generations), closing it, the deprecated price-order deposit, and end_and_close (the keeper's,
 * decoded so the policy can name it when it refuses it). A test rebuilds these layouts from the
 * IDL and requires an exact match.
 */
const OPEN_ARGS = [
  ['applicationIdx', 'u64'],
  ['inAmount', 'u64'],
  ['inAmountPerCycle', 'u64'],
  ['cycleFrequency', 'i64'],
  ['minPrice', { option: 'u64' }],
  ['maxPrice', { option: 'u64' }],
  ['startAt', { option: 'i64' }],
] as const;

const LAYOUTS = {
  open_dca: anchorLayout(
    'open_dca',
    DCA_INSTRUCTIONS.open_dca,
    'dca:w user:sw inputMint outputMint userAta:w inAta:w outAta:w systemProgram tokenProgram associatedTokenProgram eventAuthority program',
    [...OPEN_ARGS, ['closeWsolInAta', { option: 'bool' }]],
  ),
  open_dca_v2: anchorLayout(
    'open_dca_v2',
    DCA_INSTRUCTIONS.open_dca_v2,
    'dca:w user:s payer:sw inputMint outputMint userAta:w inAta:w outAta:w systemProgram tokenProgram associatedTokenProgram eventAuthority program',
    OPEN_ARGS,
  ),
  close_dca: anchorLayout(
    'close_dca',
    DCA_INSTRUCTIONS.close_dca,
    'user:sw dca:w inputMint outputMint inAta:w outAta:w userInAta:w userOutAta:w systemProgram tokenProgram associatedTokenProgram eventAuthority program',
    [],
  ),
  deposit: anchorLayout('deposit', DCA_INSTRUCTIONS.deposit, 'user:sw dca:w inAta:w userInAta:w tokenProgram eventAuthority program', [['depositIn', 'u64']]),
  end_and_close: anchorLayout(
    'end_and_close',
    DCA_INSTRUCTIONS.end_and_close,
    'keeper:sw dca:w inputMint outputMint inAta:w outAta:w user:w userOutAta:wo initUserOutAta:wo intermediateAccount:wo systemProgram tokenProgram associatedTokenProgram eventAuthority program',
    [],
  ),
} as const;

export type DcaLayoutName = keyof typeof LAYOUTS;
export const DCA_LAYOUTS: Readonly<Record<DcaLayoutName, AnchorInstructionLayout<DcaLayoutName>>> = LAYOUTS;
export const DCA_LAYOUT_BY_DISCRIMINATOR = layoutsByDiscriminator(DCA_LAYOUTS);
