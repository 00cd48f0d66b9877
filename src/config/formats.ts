import { validateDetailed } from 'node-cron';
import { z } from 'zod';
import { looksLikeKeyMaterial } from '../chain/keys/key-material.ts';
import { uintString } from '../api/amounts.ts';
import { isSentinelUrl, parseSentinelUrl, RedisSentinelUrlError } from '../kernel/redis-sentinel.ts';

/**
 * Value schemas shared by the configuration sections. Each names what it expects, because
 * the message reaches an operator as "<key path>: <message>".
 */

export const httpUrl = z
  .string()
  .refine((text) => isHttpUrl(text), { message: 'expected an http:// or https:// URL' });

/** A URL or "" (unset). */
export const optionalHttpUrl = z
  .string()
  .refine((text) => text === '' || isHttpUrl(text), { message: 'expected an http:// or https:// URL, or "" for none' });

export const redisUrl = z.string().superRefine((text, context) => {
  const problem = isSentinelUrl(text)
    ? sentinelProblem(text)
    : /^rediss?:\/\/./.test(text) && URL.canParse(text)
      ? undefined
      : 'expected a redis:// or rediss:// URL, or redis+sentinel://host:port[,host:port...]/mastername';
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});

function sentinelProblem(text: string): string | undefined {
  try {
    parseSentinelUrl(text);
    return undefined;
  } catch (error) {
    if (error instanceof RedisSentinelUrlError) return error.message;
    throw error;
  }
}

export const positiveInt = z.int().positive();
export const nonNegativeInt = z.int().nonnegative();
export const portNumber = z.int().min(0).max(65_535);

/**
 * An exact non-negative integer (money, lamports): a decimal string, or a JSON number that is
 * a safe integer. Always a string afterwards, so it becomes a bigint without loss.
 */
export const exactUint = z
  .union([uintString, z.int().nonnegative().max(Number.MAX_SAFE_INTEGER)])
  .transform((value) => String(value));

/** A node-cron expression; 6 fields means the first is seconds. */
export const cronExpression = z.string().superRefine((text, ctx) => {
  const fields = text.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) {
    ctx.addIssue({ code: 'custom', message: `expected 5 or 6 cron fields (seconds first when 6), got ${fields}` });
    return;
  }
  const result = validateDetailed(text);
  if (!result.valid) {
    const detail = result.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    ctx.addIssue({ code: 'custom', message: `not a valid cron expression (${detail})` });
  }
});

export const timezone = z.string().refine((tz) => isTimezone(tz), { message: 'expected an IANA time zone such as "UTC"' });

/** The name of an environment variable (never its value). */
const envVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'expected an environment variable name' });

/**
 * The name of the variable that holds the wallet key. A base58 key is letters and digits, so it
 * can pass as a variable name by shape alone: key material is refused by what it decodes to,
 * whatever its first character.
 */
export const keyEnvName = envVarName.refine((value) => !looksLikeKeyMaterial(value), { message: 'looks like a secret key, not an environment variable name: give the name of the variable that holds the key' });

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}

function isTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * A file path that must never be key material: an operator who pastes the key where its path
 * belongs gets an error naming the setting, and the value goes nowhere (no file named after it,
 * no log line with it).
 */
export const keyFilePath = z.string().min(1).refine((value) => !looksLikeKeyMaterial(value), { message: 'looks like a secret key, not a file path: give the path of a key file instead' });
