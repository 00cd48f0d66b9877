import { z } from 'zod';
import { key } from '../key.ts';
import { httpUrl, keyEnvName, keyFilePath, nonNegativeInt, optionalHttpUrl, portNumber, positiveInt, redisUrl } from '../formats.ts';

/** Where stratd talks to: the mode, the API, the RPC, the wallet, Redis and the paper venue. */

export const modeKey = key({
  doc: 'paper: the simulated venue started in-process (no real money). live: the real API and RPC; refuses to start without api.key, a wallet key and rpc.url. dry-run: live reads, decisions and built transactions, inspected but never signed or sent.',
  schema: z.enum(['paper', 'live', 'dry-run']),
  default: 'paper',
  kind: 'string',
  env: 'STRATD_MODE',
  format: 'one of paper, live, dry-run',
});

export const apiSection = {
  baseUrl: key({
    doc: 'Main API base URL. In paper mode the in-process venue replaces it. A provider key in its path or query is masked by `config show`.',
    schema: httpUrl,
    default: 'https://api.jup.ag',
    kind: 'string',
    env: 'STRATD_API_BASE_URL',
    urlMayHoldSecrets: true,
    format: 'an http(s) URL',
  }),
  liteBaseUrl: key({
    doc: 'Base URL for the three operations also served keyless (decrease, decrease-with-fee, trades). "" means the main base. A provider key in its path or query is masked by `config show`.',
    schema: optionalHttpUrl,
    default: '',
    kind: 'string',
    env: 'STRATD_API_LITE_BASE_URL',
    urlMayHoldSecrets: true,
    format: 'an http(s) URL or ""',
  }),
  useLiteBase: key({
    doc: 'Send the lite operations to liteBaseUrl without the key. The keyless host is being retired, so off by default.',
    schema: z.boolean(),
    default: false,
    kind: 'boolean',
    env: 'STRATD_API_USE_LITE_BASE',
    format: 'true or false',
  }),
  key: key({
    doc: 'API key sent as x-api-key. Required in live mode. Never logged or shown.',
    schema: z.string(),
    default: '',
    kind: 'string',
    env: 'STRATD_API_KEY',
    sensitive: true,
    format: 'the key from the developer portal',
    fix: 'export STRATD_API_KEY=<your key> (keep it out of config files)',
  }),
  timeoutMs: key({
    doc: 'Per-attempt timeout of an API call, in milliseconds.',
    schema: positiveInt,
    default: 10_000,
    kind: 'int',
    env: 'STRATD_API_TIMEOUT_MS',
    format: 'a positive integer (ms)',
  }),
  retries: key({
    doc: 'Retries after the first attempt, for failures that are safe to retry (never a possibly-processed submit).',
    schema: z.int().min(0).max(10),
    default: 3,
    kind: 'int',
    env: 'STRATD_API_RETRIES',
    format: 'an integer from 0 to 10',
  }),
  requestsPerSecond: key({
    doc: "Request budget of the whole deployment, shared through Redis by every process using the same key (the live limit is per account: keyless 0.5, free 1). When it is spent, the executor's calls (builds, executes, fills) take the next slots before the pollers'.",
    schema: z.number().positive().max(1_000),
    default: 1,
    kind: 'number',
    env: 'STRATD_API_RPS',
    format: 'a number above 0 (fractions allowed)',
  }),
  lpMintPath: key({
    doc: 'Path of the LP mint operation: the documented live path is /perps/v1/jlp/mint; the spec writes /perps/v1/lp/mint.',
    schema: z.string().regex(/^\/[A-Za-z0-9/_-]+$/, { message: 'expected an absolute path such as /perps/v1/jlp/mint' }),
    default: '/perps/v1/jlp/mint',
    kind: 'string',
    format: 'an absolute URL path',
  }),
};

export const rpcSection = {
  url: key({
    doc: 'Solana JSON-RPC URL for sending and confirming transactions. Required in live mode; in paper mode the venue provides it. Provider keys in the URL are masked by `config show`.',
    schema: optionalHttpUrl,
    default: '',
    kind: 'string',
    env: 'STRATD_RPC_URL',
    urlMayHoldSecrets: true,
    format: 'an http(s) URL',
    fix: 'export STRATD_RPC_URL=https://<your RPC provider>',
  }),
  timeoutMs: key({
    doc: "Deadline of each JSON-RPC call (send, status, block height); a call that outlives it is abandoned and the action's step is retried from its stored state. Keep it well below what a protective action can afford (a request is valid for maxRequestExecutionSec, 45 s live).",
    schema: positiveInt,
    default: 3_000,
    kind: 'int',
    env: 'STRATD_RPC_TIMEOUT_MS',
    format: 'a positive integer (ms)',
  }),
  commitment: key({
    doc: 'Commitment at which a signature counts as landed.',
    schema: z.enum(['processed', 'confirmed', 'finalized']),
    default: 'confirmed',
    kind: 'string',
    env: 'STRATD_RPC_COMMITMENT',
    format: 'one of processed, confirmed, finalized',
  }),
};

export const walletSection = {
  keyFile: key({
    doc: 'Path of the wallet key file (solana-keygen JSON: 64 numbers). The configuration holds the path, never the key.',
    schema: z.string(),
    default: '',
    kind: 'string',
    env: 'STRATD_WALLET_KEY_FILE',
    format: 'a file path, or "" to use keyEnv',
    fix: 'set wallet.keyFile to a solana-keygen key file (mode 0600), or export the variable named by wallet.keyEnv',
  }),
  keyEnv: key({
    doc: 'Name of the environment variable that holds the key (base58 or the JSON byte array) when keyFile is "".',
    schema: keyEnvName,
    default: 'STRATD_WALLET_KEY',
    kind: 'string',
    format: 'an environment variable name',
  }),
  paperKeyFile: key({
    doc: 'Paper mode: where the generated paper wallet is kept (created on first start).',
    schema: keyFilePath,
    default: 'var/paper-wallet.json',
    kind: 'string',
    env: 'STRATD_PAPER_KEY_FILE',
    format: 'a file path',
  }),
};

export const redisSection = {
  url: key({
    doc: 'Redis URL shared by every process of the deployment. A password in it is masked by `config show`. Redis Sentinel (a primary that fails over): `redis+sentinel://[:password@]host1:port1,host2:port2/mastername[/db][?sentinelPassword=…]` (docs/operations.md, "Redis that fails over").',
    schema: redisUrl,
    default: 'redis://127.0.0.1:6379',
    kind: 'string',
    env: 'REDIS_URL',
    urlMayHoldSecrets: true,
    format: 'a redis:// or redis+sentinel:// URL',
  }),
  sentinels: key({
    doc: 'Redis Sentinel, as keys rather than in the URL: the sentinels to ask for the primary. When set, they and redis.sentinelName replace redis.url\'s host; redis.url still gives the data nodes\' password and db (docs/operations.md, "Redis that fails over").',
    schema: z.array(z.string().regex(/^(\[[^\]]+\]|[^:,/@[\]\s]+):\d{1,5}$/, { message: 'expected host:port' })),
    default: [],
    kind: 'list',
    env: 'STRATD_REDIS_SENTINELS',
    format: 'a list of host:port (comma-separated in env/--set)',
  }),
  sentinelName: key({
    doc: 'The master name the sentinels monitor (their `sentinel monitor <name> …`). Required with redis.sentinels.',
    schema: z.string().regex(/^[A-Za-z0-9_.-]*$/, { message: 'expected letters, digits, "_", "." or "-"' }),
    default: '',
    kind: 'string',
    env: 'STRATD_REDIS_SENTINEL_NAME',
    format: 'a name such as mymaster',
  }),
  sentinelPassword: key({
    doc: 'Password of the sentinels themselves (`requirepass` in their configuration), when they have one. Never logged or shown.',
    schema: z.string(),
    default: '',
    kind: 'string',
    env: 'STRATD_REDIS_SENTINEL_PASSWORD',
    sensitive: true,
    format: 'a password, or "" for none',
  }),
  waitReplicas: key({
    doc: 'Replicas that must acknowledge the executor\'s signed record (Redis WAIT) before its transaction is sent, so a failover cannot lose a signed action and have it signed again. `auto`: 1 with sentinels or when the primary reports connected replicas at start, else 0 (a single node waits for nothing); 0: never wait (docs/operations.md, "Redis that fails over").',
    schema: z.string().regex(/^(auto|\d{1,2})$/, { message: 'expected "auto" or a number of replicas' }),
    default: 'auto',
    kind: 'string',
    env: 'STRATD_REDIS_WAIT_REPLICAS',
    format: 'auto, or a number of replicas (0 = never wait)',
  }),
  prefix: key({
    doc: 'Key prefix of this deployment. Always wrapped in a Redis Cluster hash tag ("stratd" → "{stratd}:") so the keys BullMQ scripts touch together share a slot.',
    schema: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'expected 1-64 letters, digits, "_", "." or "-" (the hash tag is added for you)' }),
    default: 'stratd',
    kind: 'string',
    env: 'STRATD_REDIS_PREFIX',
    format: 'a name such as stratd',
  }),
};

export const venueSection = {
  host: key({
    doc: 'Paper mode: interface the in-process venue listens on.',
    schema: z.string().min(1),
    default: '127.0.0.1',
    kind: 'string',
    format: 'a host name or address',
  }),
  port: key({
    doc: 'Paper mode: HTTP port of the venue API (0 = any free port).',
    schema: portNumber,
    default: 0,
    kind: 'int',
    env: 'STRATD_VENUE_PORT',
    format: 'a port 0-65535',
  }),
  rpcPort: key({
    doc: 'Paper mode: JSON-RPC port of the venue chain (0 = any free port).',
    schema: portNumber,
    default: 0,
    kind: 'int',
    env: 'STRATD_VENUE_RPC_PORT',
    format: 'a port 0-65535',
  }),
  seed: key({
    doc: 'Paper mode: seed of the venue price walk, so a run can be repeated.',
    schema: nonNegativeInt,
    default: 1,
    kind: 'int',
    env: 'STRATD_VENUE_SEED',
    format: 'a non-negative integer',
  }),
  seedWallet: key({
    doc: 'Paper mode: fund the paper wallet and open positions (one close to liquidation) on the first start; later starts resume the saved paper state instead (venue.persist).',
    schema: z.boolean(),
    default: true,
    kind: 'boolean',
    format: 'true or false',
  }),
  persist: key({
    doc: 'Paper mode: keep the in-process venue\'s state (balances, positions, TP/SL requests, limit, trigger and recurring orders, prices) in venue/state.json next to wallet.paperKeyFile (./var/venue/ by default; written venue.saveDelayMs after each change and on shutdown, the folder locked by stratd.lock) and resume it on the next start. `stratd paper reset` starts over.',
    schema: z.boolean(),
    default: true,
    kind: 'boolean',
    env: 'STRATD_VENUE_PERSIST',
    format: 'true or false',
  }),
  saveDelayMs: key({
    doc: 'Paper mode: the paper state is written this long after a change of the venue state; the changes of that time are written together (it is also written on shutdown).',
    schema: z.int().min(0).max(10_000),
    default: 200,
    kind: 'int',
    format: 'an integer 0-10000 (ms)',
  }),
  slotMs: key({
    doc: 'Paper mode: milliseconds per slot of the simulated chain.',
    schema: positiveInt,
    default: 400,
    kind: 'int',
    env: 'STRATD_VENUE_SLOT_MS',
    format: 'a positive integer (ms)',
  }),
};
