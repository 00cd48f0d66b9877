import type { ValueKind } from './key.ts';

type Coerced = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Turns text from the environment or `--set` into a value of the key's kind. Strict on
 * purpose: "12abc" is not 12 (parseInt would say it is), "yes" is not a boolean.
 */
export function coerceText(kind: ValueKind, text: string): Coerced {
  const trimmed = text.trim();
  switch (kind) {
    case 'string':
      return { ok: true, value: text };
    case 'integer-string':
      return { ok: true, value: trimmed };
    case 'int':
      return /^-?\d+$/.test(trimmed) ? { ok: true, value: Number(trimmed) } : { ok: false, message: `expected an integer, got ${JSON.stringify(text)}` };
    case 'number':
      return /^-?(\d+\.?\d*|\.\d+)$/.test(trimmed)
        ? { ok: true, value: Number(trimmed) }
        : { ok: false, message: `expected a number, got ${JSON.stringify(text)}` };
    case 'boolean':
      if (trimmed === 'true') return { ok: true, value: true };
      if (trimmed === 'false') return { ok: true, value: false };
      return { ok: false, message: `expected true or false, got ${JSON.stringify(text)}` };
    case 'list':
      if (trimmed.startsWith('[')) return parseJson(trimmed);
      return { ok: true, value: trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim()) };
    case 'object':
      return parseJson(trimmed);
  }
}

/** `--set` into the free-form part of an object key (strategies.settings.x.y): JSON when it parses, else the text. */
export function coerceFreeForm(text: string): unknown {
  const trimmed = text.trim();
  // An integer too large for a JSON number stays text, so an amount keeps every digit.
  if (/^-?\d+$/.test(trimmed) && !Number.isSafeInteger(Number(trimmed))) return trimmed;
  const parsed = parseJson(trimmed);
  return parsed.ok ? parsed.value : text;
}

function parseJson(text: string): Coerced {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: `expected JSON: ${(error as Error).message}` };
  }
}
