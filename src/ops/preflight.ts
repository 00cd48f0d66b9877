import { z } from 'zod';
import { maskUrlSecrets, maskUrlSecretsIn } from '../config/mask-url.ts';
import type { Config } from '../config/index.ts';
import { MAINNET_GENESIS_HASH } from '../config/sections/preflight.ts';

/**
 * Preflight: before live or dry-run mode starts its roles (and as `stratd doctor`), one short
 * request to each host it depends on. A daemon started against an unreachable API or RPC, the
 * wrong cluster, an empty wallet or a wrong clock would otherwise start "fine" and retry for ever;
 * once started, outages are retried as before. Every check is a value naming its host and the fix.
 */

type PreflightCheckName = 'api' | 'rpc' | 'cluster' | 'fee-balance' | 'clock';

interface PreflightCheck {
  readonly check: PreflightCheckName;
  readonly ok: boolean;
  /** The URL asked, through maskUrlSecrets (provider keys in RPC URLs stay hidden). */
  readonly host: string;
  readonly detail: string;
  /** What the operator does about a failure; absent when ok. */
  readonly fix?: string;
}

interface PreflightOptions {
  readonly apiBaseUrl: string;
  /** Sent as x-api-key; never printed. */
  readonly apiKey: string;
  readonly rpcUrl: string;
  /** The wallet's public key (base58). */
  readonly wallet: string;
  readonly expectedGenesisHash: string;
  readonly minLamports: bigint;
  readonly maxClockSkewMs: number;
  readonly timeoutMs: number;
  /** Local clock; tests may shift it. */
  readonly now?: () => number;
}

/** The start was refused: at least one check failed. */
export class PreflightError extends Error {
  readonly kind = 'preflight_failed' as const;
  readonly checks: readonly PreflightCheck[];

  constructor(checks: readonly PreflightCheck[]) {
    const failed = checks.filter((c) => !c.ok);
    super(`preflight failed: ${failed.map((c) => `${c.check} (${c.host}): ${c.detail}`).join('; ')}`);
    this.name = 'PreflightError';
    this.checks = checks;
  }
}

const KNOWN_CLUSTERS: Readonly<Record<string, string>> = {
  [MAINNET_GENESIS_HASH]: 'mainnet-beta',
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG: 'devnet',
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY': 'testnet',
};

function clusterName(hash: string): string {
  return KNOWN_CLUSTERS[hash] ?? 'an unknown cluster';
}

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Lamports as SOL text for people (exact: bigint arithmetic, trailing zeros dropped). */
function solText(lamports: bigint): string {
  const whole = lamports / LAMPORTS_PER_SOL;
  const fraction = (lamports % LAMPORTS_PER_SOL).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction} SOL` : `${whole} SOL`;
}

interface HttpAnswer {
  readonly status: number;
  readonly text: string;
  /** Local time halfway through the request: what the host's Date header is compared with. */
  readonly midpointMs: number;
  readonly date: string | null;
}

type Reached = { readonly ok: true; readonly answer: HttpAnswer } | { readonly ok: false; readonly detail: string };

async function request(url: string, init: RequestInit, timeoutMs: number, now: () => number): Promise<Reached> {
  const started = now();
  try {
    const reply = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await reply.text();
    return { ok: true, answer: { status: reply.status, text, midpointMs: (started + now()) / 2, date: reply.headers.get('date') } };
  } catch (error) {
    const err = error as Error & { cause?: { code?: string; message?: string } };
    const why = err.name === 'TimeoutError' || err.name === 'AbortError' ? `no answer within ${timeoutMs} ms` : `not reachable (${err.cause?.code ?? err.cause?.message ?? err.message})`;
    // Node's messages may quote the URL: masked like every URL stratd prints.
    return { ok: false, detail: maskUrlSecretsIn(why, url) };
  }
}

const rpcReply = z.union([z.object({ result: z.unknown() }), z.object({ error: z.object({ message: z.string() }).loose() })]);

type RpcResult = { readonly ok: true; readonly result: unknown; readonly answer: HttpAnswer } | { readonly ok: false; readonly detail: string };

async function rpcCall(o: PreflightOptions, method: string, params: unknown[], now: () => number): Promise<RpcResult> {
  const reached = await request(o.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }, o.timeoutMs, now);
  if (!reached.ok) return reached;
  const { answer } = reached;
  if (answer.status !== 200) return { ok: false, detail: `${method} answered HTTP ${answer.status}` };
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return { ok: false, detail: `${method} answered something that is not JSON` };
  }
  const parsed = rpcReply.safeParse(body);
  if (!parsed.success) return { ok: false, detail: `${method} answered no JSON-RPC result` };
  if ('error' in parsed.data) return { ok: false, detail: `${method} failed: ${parsed.data.error.message}` };
  return { ok: true, result: parsed.data.result, answer };
}

const RPC_FIX = 'check rpc.url (STRATD_RPC_URL): the RPC must answer from this machine';

async function checkApi(o: PreflightOptions, now: () => number): Promise<{ check: PreflightCheck; answer?: HttpAnswer }> {
  const base = o.apiBaseUrl.replace(/\/+$/, '');
  const host = maskUrlSecrets(o.apiBaseUrl);
  // One authenticated read the pollers make anyway: the wallet's positions.
  const url = `${base}/perps/v1/positions?walletAddress=${encodeURIComponent(o.wallet)}`;
  const reached = await request(url, { headers: { accept: 'application/json', 'x-api-key': o.apiKey, 'user-agent': 'stratd-preflight' } }, o.timeoutMs, now);
  if (!reached.ok) {
    return { check: { check: 'api', ok: false, host, detail: `the API: ${reached.detail}`, fix: 'check api.baseUrl (STRATD_API_BASE_URL) and that this machine reaches it' } };
  }
  const { answer } = reached;
  if (answer.status === 401 || answer.status === 403) {
    return { check: { check: 'api', ok: false, host, detail: `the API refused the key (HTTP ${answer.status})`, fix: 'check api.key (STRATD_API_KEY): the key from the developer portal, with access to the perps operations' }, answer };
  }
  if (answer.status < 200 || answer.status >= 300) {
    return { check: { check: 'api', ok: false, host, detail: `an authenticated read answered HTTP ${answer.status}`, fix: 'check api.baseUrl (STRATD_API_BASE_URL) is the trading API; retry later if the API reports an outage' }, answer };
  }
  return { check: { check: 'api', ok: true, host, detail: `answered an authenticated read (HTTP ${answer.status})` }, answer };
}

async function checkRpc(o: PreflightOptions, now: () => number): Promise<{ checks: PreflightCheck[]; answer?: HttpAnswer }> {
  const host = maskUrlSecrets(o.rpcUrl);
  // Asked together: an unreachable RPC costs one timeout, not two.
  const [genesis, balance] = await Promise.all([rpcCall(o, 'getGenesisHash', [], now), rpcCall(o, 'getBalance', [o.wallet, { commitment: 'confirmed' }], now)]);
  if (!genesis.ok) {
    const notChecked = 'not checked: the RPC did not answer';
    return {
      checks: [
        { check: 'rpc', ok: false, host, detail: `the RPC: ${genesis.detail}`, fix: RPC_FIX },
        { check: 'cluster', ok: false, host, detail: notChecked, fix: RPC_FIX },
        { check: 'fee-balance', ok: false, host, detail: notChecked, fix: RPC_FIX },
      ],
    };
  }
  const checks: PreflightCheck[] = [{ check: 'rpc', ok: true, host, detail: 'answered getGenesisHash' }];
  const hash = typeof genesis.result === 'string' ? genesis.result : String(JSON.stringify(genesis.result));
  if (hash === o.expectedGenesisHash) {
    checks.push({ check: 'cluster', ok: true, host, detail: `genesis hash ${hash} (${clusterName(hash)})` });
  } else {
    checks.push({
      check: 'cluster',
      ok: false,
      host,
      detail: `cluster mismatch: the RPC is on ${clusterName(hash)} (genesis hash ${hash}), expected ${clusterName(o.expectedGenesisHash)} (${o.expectedGenesisHash})`,
      fix: `point rpc.url at an RPC of ${clusterName(o.expectedGenesisHash)}, or set preflight.genesisHash (STRATD_PREFLIGHT_GENESIS_HASH) to ${hash} if that cluster is intended`,
    });
  }
  const lamports = balance.ok ? z.object({ value: z.union([z.number().int().nonnegative(), z.bigint()]) }).safeParse(balance.result) : undefined;
  if (!balance.ok) {
    checks.push({ check: 'fee-balance', ok: false, host, detail: `getBalance: ${balance.detail}`, fix: RPC_FIX });
  } else if (!lamports?.success) {
    checks.push({ check: 'fee-balance', ok: false, host, detail: 'getBalance answered no lamport value', fix: RPC_FIX });
  } else {
    const held = BigInt(lamports.data.value);
    checks.push(
      held >= o.minLamports
        ? { check: 'fee-balance', ok: true, host, detail: `wallet ${o.wallet} holds ${solText(held)} (at least ${solText(o.minLamports)})` }
        : {
            check: 'fee-balance',
            ok: false,
            host,
            detail: `wallet ${o.wallet} holds ${solText(held)}, less than the ${solText(o.minLamports)} needed for fees`,
            fix: `send at least ${solText(o.minLamports - held)} to ${o.wallet} (or lower preflight.minLamports)`,
          },
    );
  }
  return { checks, answer: genesis.answer };
}

function checkClock(o: PreflightOptions, answers: ReadonlyArray<{ host: string; answer?: HttpAnswer }>): PreflightCheck {
  const dated = answers.find((a) => a.answer?.date && Number.isFinite(Date.parse(a.answer.date)));
  if (!dated?.answer?.date) {
    return { check: 'clock', ok: false, host: answers.map((a) => a.host).join(', '), detail: 'not checked: neither the RPC nor the API answered with a Date header', fix: 'make the API or the RPC reachable, then run stratd doctor again' };
  }
  // The Date header has 1 s resolution (truncated): its second spans [date, date + 1000).
  const remoteMs = Date.parse(dated.answer.date) + 500;
  const skewMs = Math.round(dated.answer.midpointMs - remoteMs);
  const bound = o.maxClockSkewMs + 500;
  const direction = skewMs > 0 ? 'ahead of' : 'behind';
  if (Math.abs(skewMs) <= bound) {
    return { check: 'clock', ok: true, host: dated.host, detail: `local clock within ${Math.abs(skewMs)} ms of the host's` };
  }
  return {
    check: 'clock',
    ok: false,
    host: dated.host,
    detail: `local clock is ${Math.abs(skewMs)} ms ${direction} the host's (allowed ${o.maxClockSkewMs} ms)`,
    fix: 'synchronise this machine\'s clock (e.g. enable NTP: timedatectl set-ntp true)',
  };
}

/** Runs every check (API and RPC concurrently, each request bounded by timeoutMs) and answers them all. */
export async function runPreflight(o: PreflightOptions): Promise<PreflightCheck[]> {
  const now = o.now ?? Date.now;
  const [api, rpc] = await Promise.all([checkApi(o, now), checkRpc(o, now)]);
  const clock = checkClock(o, [
    { host: maskUrlSecrets(o.rpcUrl), answer: rpc.answer },
    { host: maskUrlSecrets(o.apiBaseUrl), answer: api.answer },
  ]);
  return [api.check, ...rpc.checks, clock];
}

/** One line per check, as `stratd doctor` and a refused start print them. */
export function formatCheck(c: PreflightCheck): string {
  return `${c.ok ? 'ok  ' : 'FAIL'} ${c.check.padEnd(11)} ${c.host}: ${c.detail}${c.fix ? `\n       fix: ${c.fix}` : ''}`;
}

/** The preflight of a configuration: the hosts live and dry-run mode talk to, and its bounds. */
export function preflightOptions(config: Config, wallet: string): PreflightOptions {
  return {
    apiBaseUrl: config.api.baseUrl,
    apiKey: config.api.key,
    rpcUrl: config.rpc.url,
    wallet,
    expectedGenesisHash: config.preflight.genesisHash,
    minLamports: BigInt(config.preflight.minLamports),
    maxClockSkewMs: config.preflight.maxClockSkewMs,
    timeoutMs: config.preflight.timeoutMs,
  };
}
