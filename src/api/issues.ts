import type { z } from 'zod';

export interface FieldIssue {
  /** Dotted path of the failing field ("quote.closeFeeUsd", "dataList.0.side"); "(root)" for the body itself. */
  readonly path: string;
  readonly message: string;
}

type Issue = z.core.$ZodIssue;

/**
 * Flattens zod issues to field paths an operator can act on. For a union of documented
 * alternative shapes, the branch that came closest (fewest issues) speaks for the union.
 */
export function fieldIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): FieldIssue[] {
  return flatten(error.issues, prefix);
}

function flatten(issues: readonly Issue[], prefix: readonly PropertyKey[]): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const closest = issue.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
      if (closest.length > 0) {
        out.push(...flatten(closest, path));
        continue;
      }
    }
    out.push({ path: formatPath(path), message: issue.message });
  }
  return out;
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join('; ');
}
