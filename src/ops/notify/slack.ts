import type { z } from 'zod';
import { plainText, type NotifyEvent } from '../../kernel/notify-event.ts';
import { jsonRequest, type OutgoingRequest } from './outgoing.ts';
import type { slackTarget } from '../../config/notify-targets.ts';

/** Slack incoming webhook: a plain `text` message. */
export function slackRequest(target: z.infer<typeof slackTarget>, event: NotifyEvent): OutgoingRequest {
  return jsonRequest(target.webhookUrl, { text: plainText(event) });
}
