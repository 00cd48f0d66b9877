import { z } from 'zod';
import { notifyTargets, type NotifyTarget } from '../notify-targets.ts';
import { positiveInt } from '../formats.ts';
import { key } from '../key.ts';
import { maskUrlSecrets, REDACTED } from '../mask-url.ts';

/** Notifications: where they go and how they are delivered. */
export const notifySection = {
  targets: key({
    doc: 'Where notifications go: a list of targets, each {type: telegram|discord|slack|webhook, name?, events: [kinds or "*"], minSeverity: info|warning|critical, ...} with botToken + chatId (+ apiBaseUrl) for telegram, webhookUrl for discord and slack, url (+ headers) for webhook; user:password@ in a URL is sent as an Authorization: Basic header (not together with an Authorization header of its own). Event kinds: action_landed, action_rejected, action_expired, policy_violation, replayed_transaction, trading_state, health, poller_stale, redis_unreachable, redis_memory, redis_write_refused, api_unreachable, rpc_unreachable, simulation_unavailable, external_fill, archive_failed, archive_disk_low. Tokens, URLs and headers are masked in `config show` and never logged.',
    schema: notifyTargets,
    default: [],
    kind: 'list',
    env: 'STRATD_NOTIFY_TARGETS',
    sensitive: true,
    mask: (value) => (Array.isArray(value) ? value.map((t) => maskTarget(t as NotifyTarget)) : REDACTED),
    format: 'a JSON list of targets',
  }),
  dedupWindowMs: key({
    doc: 'A target receives one message per event key within this window (the same alert from several processes, or raised again, is sent once).',
    schema: positiveInt,
    default: 300_000,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
  attempts: key({
    doc: 'Delivery attempts per message before it counts as failed (exponential back-off from notify.retryDelayMs).',
    schema: z.int().min(1).max(20),
    default: 6,
    kind: 'int',
    format: 'an integer 1-20',
  }),
  retryDelayMs: key({
    doc: 'First retry delay of a failed delivery; doubles with each attempt.',
    schema: positiveInt,
    default: 2_000,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
  deliveryTimeoutMs: key({
    doc: "Longest one delivery may take before it counts as failed (and is retried). Delivery runs in its own queue worker: a slow target never delays trading.",
    schema: positiveInt,
    default: 10_000,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
  staleIntervals: key({
    doc: 'A poller that made no progress for this many of its intervals raises a poller_stale notification.',
    schema: z.int().min(2),
    default: 5,
    kind: 'int',
    format: 'an integer of at least 2',
  }),
};

function maskTarget(target: NotifyTarget): Record<string, unknown> {
  switch (target.type) {
    case 'telegram':
      return { ...target, botToken: REDACTED, apiBaseUrl: maskUrlSecrets(target.apiBaseUrl) };
    case 'discord':
    case 'slack':
      return { ...target, webhookUrl: maskUrlSecrets(target.webhookUrl) };
    case 'webhook':
      return { ...target, url: maskUrlSecrets(target.url), headers: Object.fromEntries(Object.keys(target.headers).map((h) => [h, REDACTED])) };
  }
}
