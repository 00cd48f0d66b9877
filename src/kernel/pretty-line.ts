import { formatUsd } from './money-text.ts';

/**
 * The terminal's line for a log record (pino-pretty `messageFormat`, with `hideObject`): one line
 * per event — the message, then for an action the state, intent type, market and amounts in
 * dollars, then every other field as key=value. pino-pretty's default puts each field on a line
 * of its own (5–7 lines an event), and an action line never said what the action was.
 *
 * JSON logs (files, pm2, Docker) are untouched: this only shapes what a person reads.
 */

/** Fields pino-pretty prints itself (time, level) or that say nothing to a person at a terminal. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v']);
/** The fields an action line leads with, in this order (src/pipeline/executor/action-log-fields.ts). */
const ACTION_LEAD = ['state', 'intent', 'market'] as const;
const INTEGER = /^-?\d+$/;

/** A field holding USD × 10^6 by the codebase's naming rule: `...Usd`, `...UsdDelta`. */
function isUsdField(key: string): boolean {
  return /Usd(Delta)?$/.test(key);
}

function dollars(key: string, value: unknown): string | undefined {
  if (!isUsdField(key)) return undefined;
  if (typeof value === 'bigint') return formatUsd(value);
  if ((typeof value === 'string' && INTEGER.test(value)) || (typeof value === 'number' && Number.isSafeInteger(value))) return formatUsd(BigInt(value));
  return undefined;
}

/** A value on one line: plain words as they are, anything with spaces or control characters quoted (a reason cannot break the line). */
function text(value: unknown): string {
  if (typeof value === 'string') return /^[\w.:/@$,+\-→…]+$/u.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

interface ErrorLike {
  readonly type?: unknown;
  readonly message?: unknown;
  readonly kind?: unknown;
  readonly stack?: unknown;
}

function errorText(err: ErrorLike): string {
  const type = typeof err.type === 'string' ? err.type : 'Error';
  const kind = typeof err.kind === 'string' ? ` (${err.kind})` : '';
  return JSON.stringify(`${type}${kind}: ${typeof err.message === 'string' ? err.message : text(err)}`);
}

/** pino's number for the error level: an error's stack follows its line from there up, and only there. */
const ERROR_LEVEL = 50;

/** The line (without time and level, which pino-pretty writes before it). */
export function prettyLine(log: Readonly<Record<string, unknown>>, messageKey = 'msg'): string {
  const parts: string[] = [typeof log[messageKey] === 'string' ? log[messageKey] : ''];
  const isAction = typeof log.intent === 'string';
  const done = new Set<string>([...HIDDEN, messageKey]);
  if (isAction) {
    for (const key of ACTION_LEAD) {
      // Words stratd wrote itself ("SOL long"): unquoted, but still on one line.
      if (log[key] !== undefined) parts.push(String(log[key]).replace(/\s+/g, ' '));
      done.add(key);
    }
    // The amounts next, in dollars, by name: "notional $1,234.56 size $500.00".
    for (const [key, value] of Object.entries(log)) {
      const usd = done.has(key) ? undefined : dollars(key, value);
      if (usd === undefined) continue;
      done.add(key);
      // A TP/SL moves no money (notional 0): saying "$0.00" would be noise.
      if (key === 'notionalUsd' && usd === '$0.00') continue;
      parts.push(`${key.replace(/Usd(Delta)?$/, '')} ${usd}`);
    }
  }
  let stack: string | undefined;
  for (const [key, value] of Object.entries(log)) {
    if (done.has(key) || value === undefined) continue;
    if ((key === 'err' || key === 'error') && value !== null && typeof value === 'object') {
      const err = value as ErrorLike;
      parts.push(`${key}=${errorText(err)}`);
      if (typeof log.level === 'number' && log.level >= ERROR_LEVEL && typeof err.stack === 'string') stack = err.stack;
      continue;
    }
    const usd = dollars(key, value);
    parts.push(`${key}=${usd ?? text(value)}`);
  }
  const line = parts.filter((p) => p !== '').join('  ');
  // An error's stack is what a person needs to act on it: kept, on the lines under the event.
  return stack === undefined ? line : `${line}\n    ${stack.split('\n').slice(1).map((l) => l.trim()).join('\n    ')}`;
}

/**
 * pino-pretty's options for one-line records: `messageFormat` writes the line, and the object is
 * not printed again under it.
 */
export const ONE_LINE_PRETTY = {
  messageFormat: (log: Record<string, unknown>, messageKey: string): string => prettyLine(log, messageKey),
  hideObject: true,
} as const;
