import { keyEntries, type KeyEntry } from './key.ts';
import { configKeys } from './schema.ts';

/**
 * The key reference of docs/config.md, generated from the key tree so it cannot drift
 * (test/config/docs.test.ts fails when the file differs). `stratd config docs` prints it.
 */
export function renderKeyReference(): string {
  const bySection = new Map<string, KeyEntry[]>();
  for (const entry of keyEntries(configKeys)) {
    const section = entry.path.includes('.') ? entry.path.slice(0, entry.path.indexOf('.')) : entry.path;
    bySection.set(section, [...(bySection.get(section) ?? []), entry]);
  }
  const parts: string[] = [];
  for (const [section, entries] of bySection) {
    parts.push(`### \`${section}\`\n`);
    parts.push('| Key | Default | Env | Accepts | What it does |');
    parts.push('|---|---|---|---|---|');
    for (const { path, key } of entries) {
      const dflt = key.sensitive ? '(secret)' : `\`${JSON.stringify(key.default)}\``;
      const env = key.env ? `\`${key.env}\`` : '';
      const doc = `${key.doc}${key.sensitive ? ' **Sensitive**: masked by `config show`.' : ''}`;
      parts.push(`| \`${path}\` | ${cell(dflt)} | ${env} | ${cell(key.format)} | ${cell(doc)} |`);
    }
    parts.push('');
  }
  return parts.join('\n');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
