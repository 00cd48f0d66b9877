import type { z } from 'zod';
import { plainText, type NotifyEvent } from '../../kernel/notify-event.ts';
import { jsonRequest, type OutgoingRequest } from './outgoing.ts';
import type { discordTarget } from '../../config/notify-targets.ts';

/** Discord execute-webhook: `content` up to 2000 characters; mentions disabled. */
export function discordRequest(target: z.infer<typeof discordTarget>, event: NotifyEvent): OutgoingRequest {
  return jsonRequest(target.webhookUrl, { content: plainText(event).slice(0, 2_000), allowed_mentions: { parse: [] } });
}
