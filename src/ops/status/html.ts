/**
 * A tagged template that escapes every interpolated value unless it is already `SafeHtml`
 * (made by this tag). Arrays are joined. So a page is safe by construction: strategy names,
 * reasons and ledger text from Redis can never become markup.
 */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

type Interpolated = SafeHtml | string | number | bigint | boolean | null | undefined | readonly Interpolated[];

function render(value: Interpolated): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return (value as readonly Interpolated[]).map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolated[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}
