import type { Redis } from 'ioredis';
import { z } from 'zod';

/**
 * An operator's answer to the preview of an act (`stratd act`): sign exactly the message whose
 * hash the operator was shown, or decline. The executor holds an operator's action at `inspected`
 * until this answer exists, and signs only when the hash it names is the one inspected.
 *   <prefix>operator:approval:<actionId> = JSON, kept an hour
 */
export const operatorApproval = z.discriminatedUnion('decision', [
  z.strictObject({ decision: z.literal('sign'), messageSha256: z.string().regex(/^[0-9a-f]{64}$/), by: z.string().min(1).max(100) }),
  z.strictObject({ decision: z.literal('decline'), why: z.string().min(1).max(200), by: z.string().min(1).max(100) }),
]);
export type OperatorApproval = z.infer<typeof operatorApproval>;

const TTL_SEC = 3_600;

function operatorApprovalKey(prefix: string, actionId: string): string {
  return `${prefix}operator:approval:${actionId}`;
}

/** Writes the answer once: a second answer (another terminal, a retry) never replaces the first. Answers whether this one stands. */
export async function answerOperatorAction(redis: Redis, prefix: string, actionId: string, answer: OperatorApproval): Promise<boolean> {
  return (await redis.set(operatorApprovalKey(prefix, actionId), JSON.stringify(operatorApproval.parse(answer)), 'EX', TTL_SEC, 'NX')) === 'OK';
}

/** The answer, if any; an unreadable one reads as a decline (fail closed: nothing is signed on it). */
export async function readOperatorApproval(redis: Redis, prefix: string, actionId: string): Promise<OperatorApproval | undefined> {
  const raw = await redis.get(operatorApprovalKey(prefix, actionId));
  if (raw === null) return undefined;
  try {
    const parsed = operatorApproval.safeParse(JSON.parse(raw));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through: not JSON
  }
  return { decision: 'decline', why: 'unreadable approval in Redis', by: 'stratd' };
}
