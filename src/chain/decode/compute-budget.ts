import { InstructionDataError, InstructionDataReader } from './instruction-data.ts';

/** Compute Budget program instructions; the micro-lamport price stays exact (string). */
export type ComputeBudgetInstruction = { readonly program: 'computeBudget' } & (
  | { type: 'requestUnitsDeprecated'; units: number; additionalFeeLamports: number }
  | { type: 'requestHeapFrame'; bytes: number }
  | { type: 'setComputeUnitLimit'; units: number }
  | { type: 'setComputeUnitPrice'; microLamports: string }
  | { type: 'setLoadedAccountsDataSizeLimit'; bytes: number }
);

export function decodeComputeBudgetInstruction(data: Uint8Array): ComputeBudgetInstruction {
  const r = new InstructionDataReader(data);
  const code = r.u8('instruction');
  switch (code) {
    case 0:
      return { program: 'computeBudget', type: 'requestUnitsDeprecated', units: r.u32('units'), additionalFeeLamports: r.u32('additional fee') };
    case 1:
      return { program: 'computeBudget', type: 'requestHeapFrame', bytes: r.u32('bytes') };
    case 2:
      return { program: 'computeBudget', type: 'setComputeUnitLimit', units: r.u32('units') };
    case 3:
      return { program: 'computeBudget', type: 'setComputeUnitPrice', microLamports: r.u64('micro-lamports').toString() };
    case 4:
      return { program: 'computeBudget', type: 'setLoadedAccountsDataSizeLimit', bytes: r.u32('bytes') };
    default:
      throw new InstructionDataError(`unknown compute budget instruction ${code}`);
  }
}
