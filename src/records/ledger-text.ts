/**
 * Control characters (C0, DEL, C1) and bidirectional overrides, which could forge lines or colour
 * a terminal when ledger text (a control `reason`, an API error message) is printed.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

// The same class without the g flag: test() of a g regex moves its lastIndex between calls.
const HAS_UNSAFE = new RegExp(UNSAFE.source);

/** The text with every unsafe character shown as a visible escape (`\n` → "\\x0a"). */
function sanitiseText(text: string): string {
  return HAS_UNSAFE.test(text) ? text.replace(UNSAFE, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`) : text;
}

/**
 * Every string inside a JSON value, sanitised (keys too). A value with nothing to change is
 * answered as it is, not copied: every executor transition writes an entry, and almost none
 * holds an unsafe character.
 */
export function sanitiseDeep<T>(value: T): T {
  if (typeof value === 'string') return sanitiseText(value) as T;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const clean = sanitiseDeep(item);
      if (clean !== item) (out ??= value.slice())[i] = clean;
    }
    return (out ?? value) as T;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const entries: Array<[string, unknown]> = [];
    for (const [k, v] of Object.entries(value)) {
      const [key, member] = [sanitiseText(k), sanitiseDeep(v)];
      if (key !== k || member !== v) changed = true;
      entries.push([key, member]);
    }
    return (changed ? Object.fromEntries(entries) : value) as T;
  }
  return value;
}
