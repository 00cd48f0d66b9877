import { z } from 'zod';

// Base58 alphabet, 32 to 44 characters: the text form of a 32-byte public key.
const BASE58_KEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** A base58 public key. Requests validate it; responses accept any string (docs use placeholders). */
export const pubkey = z.string().regex(BASE58_KEY, { message: 'expected a base58 public key' });
