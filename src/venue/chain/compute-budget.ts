import type { VersionedMessage } from '@solana/web3.js';
import { PROGRAMS } from '../../chain/programs.ts';

/** Lamports per signature, as on mainnet. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
// Runtime defaults when a transaction sets no limit (per non-compute-budget instruction, capped).
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_COMPUTE_UNITS = 1_400_000;
// ComputeBudget instruction discriminators (first data byte).
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;

interface ComputeBudget {
  readonly unitLimit: number;
  readonly unitPriceMicroLamports: bigint;
}

function readU32LE(data: Uint8Array, offset: number): number | undefined {
  if (data.length < offset + 4) return undefined;
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).readUInt32LE(offset);
}

function readU64LE(data: Uint8Array, offset: number): bigint | undefined {
  if (data.length < offset + 8) return undefined;
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).readBigUInt64LE(offset);
}

/** The compute budget a message requests, with the runtime's defaults for what it leaves out. */
export function computeBudgetOf(message: VersionedMessage): ComputeBudget {
  const keys = message.staticAccountKeys;
  let unitLimit: number | undefined;
  let unitPriceMicroLamports = 0n;
  let otherInstructions = 0;
  for (const ix of message.compiledInstructions) {
    if (keys[ix.programIdIndex]?.toBase58() !== PROGRAMS.computeBudget) {
      otherInstructions += 1;
      continue;
    }
    if (ix.data[0] === SET_COMPUTE_UNIT_LIMIT) unitLimit = readU32LE(ix.data, 1) ?? unitLimit;
    if (ix.data[0] === SET_COMPUTE_UNIT_PRICE) unitPriceMicroLamports = readU64LE(ix.data, 1) ?? unitPriceMicroLamports;
  }
  const limit = unitLimit ?? otherInstructions * DEFAULT_UNITS_PER_INSTRUCTION;
  return { unitLimit: Math.min(limit, MAX_COMPUTE_UNITS), unitPriceMicroLamports };
}

/** Base fee per signature plus the priority fee, ceil(price × limit / 10^6), in lamports. */
export function transactionFeeLamports(message: VersionedMessage): bigint {
  const { unitLimit, unitPriceMicroLamports } = computeBudgetOf(message);
  const priority = (unitPriceMicroLamports * BigInt(unitLimit) + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(message.header.numRequiredSignatures) + priority;
}
