/**
 * Control characters (C0, DEL, C1) and bidirectional overrides, which could forge lines or colour
 * a terminal when ledger text (a control `reason`, an API error message) is printed.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The text with every unsafe character shown as a visible escape (`\n` → "\\x0a"). */
export function sanitiseText(text: string): string {
  return text.replace(UNSAFE, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Every string inside a JSON value, sanitised (keys too). */
export function sanitiseDeep<T>(value: T): T {
  if (typeof value === 'string') return sanitiseText(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => sanitiseDeep(v)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [sanitiseText(k), sanitiseDeep(v)])) as T;
  }
  return value;
}
