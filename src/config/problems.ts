import type { z } from 'zod';
import { fieldIssues } from '../api/issues.ts';
import type { ConfigProblem } from './errors.ts';
import type { KeyEntry } from './key.ts';
import { scrubKeyMaterial } from '../chain/keys/key-material.ts';
import { editDistance, nameMintOptions, PUBLIC_MINT_ADDRESSES } from './suggest.ts';

// A public mint address standing alone (not part of a longer base58 run, which could be a key).
const PUBLIC_MINT = new RegExp(`(?<![1-9A-HJ-NP-Za-km-z])(?:${PUBLIC_MINT_ADDRESSES.join('|')})(?![1-9A-HJ-NP-Za-km-z])`, 'g');

/**
 * scrubKeyMaterial, except for the public mint addresses: they decode to 32 bytes like a seed, but
 * they are the live service's token addresses, and a wrong mint needs them listed to be fixed.
 */
function scrubExceptPublicMints(text: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(PUBLIC_MINT)) {
    out += scrubKeyMaterial(text.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return out + scrubKeyMaterial(text.slice(last));
}

/** Turns what went wrong into problems that name the key and say how to fix it. */
export class ProblemList {
  readonly items: ConfigProblem[] = [];
  private readonly byPath: ReadonlyMap<string, KeyEntry>;

  constructor(private readonly entries: readonly KeyEntry[]) {
    this.byPath = new Map(entries.map((e) => [e.path, e]));
  }

  get isEmpty(): boolean {
    return this.items.length === 0;
  }

  /** Every problem passes through here: a key pasted where a path or name belongs is never echoed. */
  add(problem: ConfigProblem): void {
    this.items.push({ path: scrubKeyMaterial(problem.path), message: scrubExceptPublicMints(problem.message), fix: scrubExceptPublicMints(problem.fix) });
  }

  /** A bad value of a key (or of a member of an object key). */
  invalidValue(path: string, message: string): void {
    const entry = this.entryFor(path);
    const safeMessage = entry?.key.sensitive ? message.replace(/"[^"]*"/g, '"[redacted]"') : nameMintOptions(message);
    this.add({ path, message: safeMessage, fix: entry ? fixFor(entry) : `correct or remove "${path}"` });
  }

  unknownKey(path: string, where: string): void {
    const suggestion = this.nearestKey(path);
    this.add({
      path,
      message: `unknown key (${where})`,
      fix: `remove "${path}"${suggestion ? `; did you mean "${suggestion}"?` : ''} — "stratd config docs" lists every key`,
    });
  }

  /** zod's issues (the precise paths: "categories.1", not "categories"). */
  fromZod(error: z.ZodError): void {
    for (const issue of fieldIssues(error)) {
      if (this.items.some((p) => p.path === issue.path)) continue;
      if (issue.message.startsWith('Unrecognized key')) continue; // convict reports undeclared keys by name
      this.invalidValue(issue.path, issue.message);
    }
  }

  /**
   * convict's validation error: one line per problem, "<key>: <message>" or a sentence naming
   * the key. Run after fromZod: a key zod already reported (at it or below it) is skipped, since
   * both see the same bad value and zod names the exact member.
   */
  fromConvict(error: Error): void {
    for (const line of error.message.split('\n').filter(Boolean)) {
      const undeclared = /^configuration param '(.+)' not declared in the schema$/.exec(line);
      if (undeclared) {
        this.unknownKey(undeclared[1]!, 'not declared in the schema');
        continue;
      }
      const missing = /^configuration param '(.+)' missing from config/.exec(line);
      if (missing) {
        this.add({ path: missing[1]!, message: 'missing: a parent section was replaced by a value that is not an object', fix: `give "${missing[1]!.split('.')[0]}" as an object of keys` });
        continue;
      }
      const entry = [...this.entries].sort((a, b) => b.path.length - a.path.length).find((e) => line.startsWith(`${e.path}: `));
      if (entry && this.items.some((p) => p.path === entry.path || p.path.startsWith(`${entry.path}.`))) continue;
      if (entry) {
        const message = line.slice(entry.path.length + 2).replace(/: value was .*$/, '');
        this.invalidValue(entry.path, message);
      } else {
        this.add({ path: '(config)', message: line, fix: 'correct the configuration' });
      }
    }
  }

  /** The key a path belongs to: itself, or the object key it lies inside. */
  entryFor(path: string): KeyEntry | undefined {
    const exact = this.byPath.get(path);
    if (exact) return exact;
    return this.entries.find((e) => e.key.kind === 'object' && path.startsWith(`${e.path}.`));
  }

  nearestKey(path: string): string | undefined {
    let best: { path: string; distance: number } | undefined;
    for (const entry of this.entries) {
      const distance = editDistance(path.toLowerCase(), entry.path.toLowerCase());
      if (!best || distance < best.distance) best = { path: entry.path, distance };
    }
    return best && best.distance <= Math.max(2, Math.floor(path.length / 4)) ? best.path : undefined;
  }
}

/** The generated fix hint of a key: where to set it, to what, and its default. */
function fixFor(entry: KeyEntry): string {
  const { path, key } = entry;
  if (key.fix) return key.fix;
  const where = [`"${path}" in a config file`, `--set ${path}=…`, ...(key.env ? [`env ${key.env}`] : [])].join(', ');
  const dflt = key.sensitive ? '' : `; default ${JSON.stringify(key.default)}`;
  return `set it to ${key.format} (${where})${dflt}`;
}
