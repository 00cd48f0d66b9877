import { maskUrlSecretsIn } from '../../config/mask-url.ts';
import { discordRequest } from './discord.ts';
import type { NotifyEvent } from '../../kernel/notify-event.ts';
import type { OutgoingRequest } from './outgoing.ts';
import { slackRequest } from './slack.ts';
import { targetName, type NotifyTarget } from '../../config/notify-targets.ts';
import { telegramRequest } from './telegram.ts';
import { webhookRequest } from './webhook.ts';

type DeliveryErrorKind = 'timeout' | 'unreachable' | 'http_status' | 'refused_by_target';

/**
 * A target did not take the message. Its text names the target, never its URL or token: it goes
 * to the log and, as the failed job's reason and stack, into Redis. Whatever fetch or the
 * target's answer says about the URL is masked.
 */
class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  constructor(
    readonly kind: DeliveryErrorKind,
    readonly target: string,
    message: string,
    url: string,
  ) {
    super(maskUrlSecretsIn(`notify target "${target}": ${message}`, url));
  }
}

function requestFor(target: NotifyTarget, event: NotifyEvent): OutgoingRequest {
  switch (target.type) {
    case 'telegram':
      return telegramRequest(target, event);
    case 'discord':
      return discordRequest(target, event);
    case 'slack':
      return slackRequest(target, event);
    case 'webhook':
      return webhookRequest(target, event);
  }
}

/** Sends one event to one target; resolves when the target took it, throws a DeliveryError otherwise. */
export async function deliver(target: NotifyTarget, event: NotifyEvent, timeoutMs: number): Promise<void> {
  const name = targetName(target);
  const request = requestFor(target, event);
  let response: Response;
  try {
    response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (error) {
    const timedOut = (error as { name?: string }).name === 'TimeoutError';
    throw new DeliveryError(timedOut ? 'timeout' : 'unreachable', name, timedOut ? `no answer within ${timeoutMs} ms` : `unreachable (${causeCode(error)})`, request.url);
  }
  const text = await response.text().catch(() => '');
  // Masked before it is cut short, so a token straddling the cut cannot survive in part.
  const answer = maskUrlSecretsIn(text, request.url).slice(0, 200);
  if (!response.ok) throw new DeliveryError('http_status', name, `HTTP ${response.status} ${answer}`, request.url);
  // Telegram answers 200 {"ok":false,...} for some refusals.
  if (target.type === 'telegram' && /"ok"\s*:\s*false/.test(text)) throw new DeliveryError('refused_by_target', name, answer, request.url);
}

function causeCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
