import { randomBytes } from 'node:crypto';
import type { SecretEncoding } from './secret-key-encodings.ts';

/**
 * Every secret of a deployment besides the wallet key, each with a value found nowhere else, and
 * where the test plants it: the daemon's environment (the way an operator keeps secrets out of
 * config files) and the Redis URL the CLI uses. Paper mode ignores the API URLs and the API key
 * for trading, which is no reason for them to be printed.
 */
export interface PlantedSecrets {
  /** The daemon's environment: API key and URLs, control token, notify targets, REDIS_URL with ?password=. */
  readonly daemonEnv: Readonly<Record<string, string>>;
  /** The operator's CLI: the same settings and an RPC URL with a provider key, REDIS_URL with the password as user info. */
  readonly cliEnv: Readonly<Record<string, string>>;
  /** What to search for, named: every value, and the Basic credentials as they travel (base64). */
  readonly needles: readonly SecretEncoding[];
  readonly controlToken: string;
  readonly telegramToken: string;
  readonly webhookBasicAuthorization: string;
  /** Paths on the capture server, by target name. */
  readonly paths: Readonly<Record<'telegram' | 'discord' | 'slack' | 'webhook' | 'dead', string>>;
}

function distinct(label: string): string {
  return `leak-${label}-${randomBytes(6).toString('hex')}`;
}

/** `capture`: the local server the notify targets point at; its /dead/ paths answer 404, echoing the path. */
export function plantSecrets(o: { readonly captureUrl: string; readonly redisUrl: string }): PlantedSecrets {
  const v = {
    apiKey: distinct('api-key'),
    apiBasePathKey: distinct('api-base-path'),
    apiBaseQueryKey: distinct('api-base-query'),
    apiLitePathKey: distinct('api-lite-path'),
    controlToken: distinct('control-token'),
    redisQueryPassword: distinct('redis-query-password'),
    redisUserInfoPassword: distinct('redis-userinfo-password'),
    rpcPathKey: distinct('rpc-path'),
    rpcQueryKey: distinct('rpc-query'),
    telegramToken: `7000001:${distinct('telegram-token')}`,
    discordToken: distinct('discord-token'),
    slackToken: distinct('slack-token'),
    hookUser: distinct('hook-user'),
    hookPassword: distinct('hook-password'),
    hookQueryToken: distinct('hook-query'),
    hookHeader: distinct('hook-header'),
    deadHookToken: distinct('dead-hook-token'),
  };
  const paths = {
    telegram: `/bot${v.telegramToken}/sendMessage`,
    discord: `/api/webhooks/1/${v.discordToken}`,
    slack: `/services/T0/B0/${v.slackToken}`,
    webhook: '/hook',
    dead: `/dead/${v.deadHookToken}`,
  };
  const hook = new URL(`${o.captureUrl}${paths.webhook}`);
  hook.username = v.hookUser;
  hook.password = v.hookPassword;
  hook.searchParams.set('token', v.hookQueryToken);
  const targets = [
    { type: 'telegram', botToken: v.telegramToken, chatId: '-100777', apiBaseUrl: o.captureUrl },
    { type: 'discord', webhookUrl: `${o.captureUrl}${paths.discord}` },
    { type: 'slack', webhookUrl: `${o.captureUrl}${paths.slack}` },
    { type: 'webhook', name: 'basic-auth', url: hook.toString(), headers: { 'x-hook-secret': v.hookHeader } },
    { type: 'webhook', name: 'dead', url: `${o.captureUrl}${paths.dead}` },
  ].map((t) => ({ ...t, events: ['*'], minSeverity: 'info' }));
  const withQueryPassword = new URL(o.redisUrl);
  withQueryPassword.searchParams.set('password', v.redisQueryPassword);
  // The test Redis has no password: its default user takes any, so both forms reach it.
  const withUserInfo = new URL(o.redisUrl);
  withUserInfo.username = 'default';
  withUserInfo.password = v.redisUserInfoPassword;
  const settings = {
    STRATD_API_KEY: v.apiKey,
    STRATD_API_BASE_URL: `https://api.example.invalid/${v.apiBasePathKey}?key=${v.apiBaseQueryKey}`,
    STRATD_API_LITE_BASE_URL: `https://lite.example.invalid/${v.apiLitePathKey}`,
    STRATD_CONTROL_TOKEN: v.controlToken,
    STRATD_NOTIFY_TARGETS: JSON.stringify(targets),
  };
  const webhookBasicAuthorization = `Basic ${Buffer.from(`${v.hookUser}:${v.hookPassword}`).toString('base64')}`;
  // Not the daemon's: in paper mode an rpc.url means "an external venue", and this run uses its own.
  const rpcUrl = `https://rpc.example.invalid/${v.rpcPathKey}?api-key=${v.rpcQueryKey}`;
  return {
    daemonEnv: { ...settings, REDIS_URL: withQueryPassword.toString() },
    cliEnv: { ...settings, STRATD_RPC_URL: rpcUrl, REDIS_URL: withUserInfo.toString() },
    needles: [
      ...Object.entries(v).map(([name, value]) => ({ name, needle: Buffer.from(value, 'utf8') })),
      { name: 'webhook Basic credentials', needle: Buffer.from(webhookBasicAuthorization.slice('Basic '.length), 'utf8') },
    ],
    controlToken: v.controlToken,
    telegramToken: v.telegramToken,
    webhookBasicAuthorization,
    paths,
  };
}
