import bs58 from 'bs58';

/** One way the wallet secret could be written down, as the bytes to look for. */
export interface SecretEncoding {
  readonly name: string;
  readonly needle: Buffer;
}

/** Where a secret encoding was found. */
export interface SecretFinding {
  readonly where: string;
  readonly encoding: string;
}

/**
 * base64 of `bytes` as it appears inside a longer base64 text whose payload has `lead` bytes
 * before them: only the characters that depend on `bytes` alone, so a key embedded in any larger
 * base64 value (a serialized transaction, a job payload) is found at every alignment.
 */
function embeddedBase64(bytes: Buffer, lead: 0 | 1 | 2, url: boolean): string {
  const skipBytes = (3 - lead) % 3;
  const whole = Math.floor((bytes.length - skipBytes) / 3) * 3;
  const text = bytes.subarray(skipBytes, skipBytes + whole).toString(url ? 'base64url' : 'base64');
  return text;
}

/**
 * Every encoding of a 64-byte Solana secret key (seed ‖ public key) and of its 32-byte seed that
 * a careless line of code could produce: base58, the solana-keygen JSON array, a comma list,
 * a typed-array JSON object, hex, base64 and base64url (at every alignment), and the raw bytes.
 */
export function secretKeyEncodings(secretKey: Uint8Array): SecretEncoding[] {
  const secret = Buffer.from(secretKey);
  const seed = secret.subarray(0, 32);
  const list = Array.from(secret);
  const text = (name: string, value: string): SecretEncoding => ({ name, needle: Buffer.from(value, 'utf8') });
  const encodings: SecretEncoding[] = [
    text('base58 secret', bs58.encode(secret)),
    text('base58 seed', bs58.encode(seed)),
    text('keygen JSON array', JSON.stringify(list)),
    text('comma-joined bytes', list.join(',')),
    text('comma-space-joined bytes', list.join(', ')),
    text('space-joined bytes', list.join(' ')),
    text('Uint8Array JSON', JSON.stringify(Object.fromEntries(list.map((b, i) => [String(i), b])))),
    text('seed comma-joined bytes', Array.from(seed).join(',')),
    text('hex secret', secret.toString('hex')),
    text('HEX secret', secret.toString('hex').toUpperCase()),
    text('hex seed', seed.toString('hex')),
    text('HEX seed', seed.toString('hex').toUpperCase()),
    { name: 'raw secret bytes', needle: Buffer.from(secret) },
    { name: 'raw seed bytes', needle: Buffer.from(seed) },
  ];
  for (const [label, bytes] of [['secret', secret], ['seed', seed]] as const) {
    encodings.push(text(`base64 ${label}`, bytes.toString('base64')), text(`base64url ${label}`, bytes.toString('base64url')));
    for (const lead of [0, 1, 2] as const) {
      encodings.push(text(`base64 ${label} at offset ${lead}`, embeddedBase64(bytes, lead, false)));
      encodings.push(text(`base64url ${label} at offset ${lead}`, embeddedBase64(bytes, lead, true)));
    }
  }
  return encodings;
}

/** The encodings found in `haystack` (bytes or text), named with `where`. */
export function findSecret(where: string, haystack: Buffer | string, encodings: readonly SecretEncoding[]): SecretFinding[] {
  const bytes = typeof haystack === 'string' ? Buffer.from(haystack, 'utf8') : haystack;
  return encodings.filter((e) => bytes.includes(e.needle)).map((e) => ({ where, encoding: e.name }));
}
