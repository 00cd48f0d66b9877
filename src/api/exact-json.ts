import { randomBytes } from 'node:crypto';

/**
 * JSON text whose numbers are exact. Some request fields are JSON numbers on the wire (recurring
 * `inAmount`, Studio `maxQuoteAmount`, the recurring price band) while stratd holds their values
 * exactly (bigint amounts, decimal text). JSON.stringify cannot write a bigint and a float64 would
 * round what it carries, so a request body is written here: a bigint as its integer digits, a
 * {@link JsonDecimal} as its decimal text. The venue reads a request body back the same way: an
 * integer beyond 2^53 − 1 becomes a bigint instead of a rounded float64.
 */

const DECIMAL_TEXT = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** A non-negative decimal given by its exact text, written into JSON as a number token. */
export class JsonDecimal {
  private constructor(readonly text: string) {}

  /** The decimal `text` ("0.0000001234", "250.1"); undefined when it is not a plain non-negative decimal. */
  static of(text: string): JsonDecimal | undefined {
    return DECIMAL_TEXT.test(text) ? new JsonDecimal(text) : undefined;
  }
}

/** JSON.stringify, with a bigint written as its digits and a JsonDecimal as its text, both as number tokens. */
export function stringifyExactJson(value: unknown): string {
  const exact: string[] = [];
  // A placeholder no string of the body can contain: a fresh random tag per call.
  const tag = `\u0001${randomBytes(12).toString('hex')}:`;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return `${tag}${String(exact.push(v.toString()) - 1)}`;
    if (v instanceof JsonDecimal) return `${tag}${String(exact.push(v.text) - 1)}`;
    return v;
  });
  if (exact.length === 0) return text;
  // JSON.stringify writes U+0001 as the six characters \u0001.
  const written = JSON.stringify(tag).slice(1, -1);
  return text.replace(new RegExp(`"${escapeRegExp(written)}(\\d+)"`, 'g'), (_all, index: string) => exact[Number.parseInt(index, 10)]!);
}

/** An integer number token of more digits than any safe integer can have is left to the exact path. */
const LONG_INTEGER = /\d{16}/;
const NUMBER_TOKEN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * JSON.parse, with every integer number token beyond 2^53 − 1 read as a bigint (a float64 would
 * round it). Other numbers read as JSON.parse reads them.
 */
export function parseExactJson(text: string): unknown {
  if (!LONG_INTEGER.test(text)) return JSON.parse(text);
  const tag = `\u0001${randomBytes(12).toString('hex')}:`;
  const written = JSON.stringify(tag).slice(1, -1);
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      continue;
    }
    if (ch !== '-' && (ch < '0' || ch > '9')) continue;
    NUMBER_TOKEN.lastIndex = i;
    const token = NUMBER_TOKEN.exec(text)?.[0];
    if (token === undefined) continue;
    if (/^-?\d+$/.test(token) && !isSafeIntegerText(token)) {
      out += `${text.slice(from, i)}"${written}${token}"`;
      from = i + token.length;
    }
    i += token.length - 1;
  }
  if (from === 0) return JSON.parse(text);
  out += text.slice(from);
  return JSON.parse(out, (_key, v: unknown) => (typeof v === 'string' && v.startsWith(tag) ? BigInt(v.slice(tag.length)) : v));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function isSafeIntegerText(token: string): boolean {
  const value = BigInt(token);
  return value <= MAX_SAFE && value >= -MAX_SAFE;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
