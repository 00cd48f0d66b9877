import type { PolicyRule, Violation } from './verdict.ts';

/** Thrown by callers that refuse a transaction (signInspected does): the violations, as values. */
export class PolicyViolation extends Error {
  override readonly name = 'PolicyViolation';
  readonly kind = 'policy_violation' as const;
  readonly violations: readonly Violation[];

  constructor(violations: readonly Violation[]) {
    super(`transaction rejected by policy: ${violations.map((v) => `${v.rule} (${v.detail})`).join('; ') || 'no verdict'}`);
    this.violations = violations;
  }

  get rules(): PolicyRule[] {
    return [...new Set(this.violations.map((v) => v.rule))];
  }

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, violations: this.violations, message: this.message };
  }
}

