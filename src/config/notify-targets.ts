import { z } from 'zod';
import { NOTIFY_EVENT_KINDS, severity } from '../kernel/notify-event.ts';
import { hasUrlCredentials } from './url-credentials.ts';

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

const common = {
  /** Names the target in metrics and logs (default: its type). */
  name: z.string().regex(/^[a-zA-Z0-9_.-]{1,40}$/, 'letters, digits, "_", "." and "-" only').optional(),
  /** Which events this target receives; "*" means all. */
  events: z.array(z.enum([...NOTIFY_EVENT_KINDS, '*'])).min(1).default(['*']),
  minSeverity: severity.default('warning'),
};

export const telegramTarget = z.strictObject({
  type: z.literal('telegram'),
  ...common,
  botToken: z.string().min(1),
  chatId: z.union([z.string().min(1), z.int()]).transform(String),
  /** The Bot API's base URL (tests point it at a local server). */
  apiBaseUrl: httpUrl.default('https://api.telegram.org'),
});

export const discordTarget = z.strictObject({ type: z.literal('discord'), ...common, webhookUrl: httpUrl });
export const slackTarget = z.strictObject({ type: z.literal('slack'), ...common, webhookUrl: httpUrl });
export const webhookTarget = z.strictObject({
  type: z.literal('webhook'),
  ...common,
  url: httpUrl,
  /**
   * Extra request headers (an Authorization header, say); masked in `config show`. A
   * `user:password@` in `url` is sent as Authorization: Basic instead.
   */
  headers: z.record(z.string(), z.string()).default({}),
});

const notifyTarget = z.discriminatedUnion('type', [telegramTarget, discordTarget, slackTarget, webhookTarget]);
export type NotifyTarget = z.infer<typeof notifyTarget>;

export const notifyTargets = z.array(notifyTarget).superRefine((targets, ctx) => {
  const seen = new Set<string>();
  targets.forEach((t, index) => {
    const name = targetName(t);
    if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `two targets are named "${name}"; give each its own name` });
    seen.add(name);
    // Two Authorization headers for one request: which one the operator meant is a guess, so refuse.
    if (t.type === 'webhook' && hasUrlCredentials(t.url) && Object.keys(t.headers).some((h) => h.toLowerCase() === 'authorization')) {
      ctx.addIssue({ code: 'custom', path: [index, 'url'], message: `target "${name}" has both user:password in its url and an Authorization header; keep one` });
    }
  });
});

export function targetName(target: Pick<NotifyTarget, 'name' | 'type'>): string {
  return target.name ?? target.type;
}
