import { describeIssues, fieldIssues } from '../../api/issues.ts';
import { actionJobSchema, type ActionJob } from '../../records/action.ts';

/** The action a decision-outbox entry holds, or why it holds none (not JSON, not an action, another action's). */
export function outboxAction(actionId: string, json: string | null): ActionJob | string {
  let value: unknown;
  try {
    value = JSON.parse(json ?? 'null');
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  const parsed = actionJobSchema.safeParse(value);
  if (!parsed.success) return describeIssues(fieldIssues(parsed.error));
  return parsed.data.actionId === actionId ? parsed.data : `the entry is action ${parsed.data.actionId}`;
}
