import { plainText, type NotifyEvent } from '../../kernel/notify-event.ts';
import { jsonRequest, type OutgoingRequest } from './outgoing.ts';
import type { telegramTarget } from '../../config/notify-targets.ts';
import type { z } from 'zod';

/** Telegram Bot API sendMessage (https://core.telegram.org/bots/api#sendmessage); text up to 4096 characters. */
export function telegramRequest(target: z.infer<typeof telegramTarget>, event: NotifyEvent): OutgoingRequest {
  const base = target.apiBaseUrl.replace(/\/+$/, '');
  return jsonRequest(`${base}/bot${target.botToken}/sendMessage`, {
    chat_id: target.chatId,
    text: plainText(event).slice(0, 4_096),
    disable_web_page_preview: true,
  });
}
