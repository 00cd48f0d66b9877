/**
 * Parses a response body as JSON. The service's published samples include bodies with a
 * trailing comma before `}` or `]`; those are accepted by removing such commas (outside
 * strings) and parsing again. Anything else that is not JSON (an HTML error page) throws.
 */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (strictError) {
    const repaired = stripTrailingCommas(text);
    if (repaired === text) throw strictError;
    return JSON.parse(repaired);
  }
}

function stripTrailingCommas(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (inString) {
      out += ch;
      if (ch === '\\') {
        out += text[i + 1] ?? '';
        i++;
      } else if (ch === '"') {
        inString = false;
      }
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    if (ch === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j] as string)) j++;
      if (text[j] === '}' || text[j] === ']') continue;
    }
    out += ch;
  }
  return out;
}
