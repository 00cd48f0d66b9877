/**
 * Anchor programs start every instruction's data with an 8-byte discriminator,
 * sha256("global:<snake_case name>")[0..8]. The tables of the product programs (one file per
 * program, beside this one) are transcribed from the programs' IDLs as hex; a test recomputes
 * each from the IDL files when they are available, so a transcription slip cannot stand.
 */

/** 16 hex characters: the first 8 bytes of an instruction's data, or null when it has fewer. */
export function discriminatorOf(data: Uint8Array): string | null {
  if (data.length < 8) return null;
  return Buffer.from(data.subarray(0, 8)).toString('hex');
}
