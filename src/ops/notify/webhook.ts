import type { z } from 'zod';
import type { NotifyEvent } from '../../kernel/notify-event.ts';
import { jsonRequest, type OutgoingRequest } from './outgoing.ts';
import type { webhookTarget } from '../../config/notify-targets.ts';

/** A generic webhook: the event itself as JSON, for whatever the operator runs behind it. */
export function webhookRequest(target: z.infer<typeof webhookTarget>, event: NotifyEvent): OutgoingRequest {
  return jsonRequest(target.url, { source: 'stratd', ...event }, target.headers);
}
