import type { StrategyCost } from '../../pipeline/metrics.ts';

/**
 * Each strategy's cost read off a running daemon's /metrics (the stratd_strategy_* families the
 * status page reads in-process through Metrics.strategyCost): `stratd status` runs in a process of
 * its own, which decided nothing, so it asks the daemon's ops server for the same figures.
 */

type ScrapedCost = { readonly ok: true; readonly costs: ReadonlyMap<string, StrategyCost> } | { readonly ok: false; readonly reason: string };

const SAMPLE = /^(stratd_strategy_[a-z_]+)\{([^}]*)\}\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the stratd_strategy_* samples of a Prometheus text exposition into each strategy's cost. */
export function strategyCostFromMetricsText(text: string): Map<string, StrategyCost> {
  const out = new Map<string, { decisions: number; failed: number; decideSeconds: number; intents: number; stateBytes: number }>();
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const [, name, labelText, valueText] = match;
    const value = Number(valueText);
    if (!Number.isFinite(value)) continue;
    const labels = new Map<string, string>();
    for (const l of labelText!.matchAll(LABEL)) labels.set(l[1]!, l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)));
    const strategy = labels.get('strategy');
    if (strategy === undefined) continue;
    let cost = out.get(strategy);
    if (!cost) out.set(strategy, (cost = { decisions: 0, failed: 0, decideSeconds: 0, intents: 0, stateBytes: 0 }));
    if (name === 'stratd_strategy_decisions_total') {
      cost.decisions += value;
      if (labels.get('outcome') === 'failed') cost.failed += value;
    } else if (name === 'stratd_strategy_decide_seconds_sum') cost.decideSeconds += value;
    else if (name === 'stratd_strategy_intents_total') cost.intents += value;
    else if (name === 'stratd_strategy_state_bytes') cost.stateBytes = value;
  }
  return out;
}

/** The ops server's address as a client reaches it: a wildcard bind is reached on loopback. */
export function opsMetricsUrl(host: string, port: number): string {
  const reach = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${String(port)}/metrics`;
}

/** GET /metrics of the daemon's ops server, within `timeoutMs`; a daemon not running is a reason, not an error. */
export async function scrapeStrategyCost(url: string, options: { readonly timeoutMs?: number; readonly controlToken?: string } = {}): Promise<ScrapedCost> {
  try {
    const headers: Record<string, string> = options.controlToken ? { authorization: `Bearer ${options.controlToken}` } : {};
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 2_000), redirect: 'error' });
    const text = await res.text();
    if (res.status !== 200) return { ok: false, reason: `${url} answered ${String(res.status)}` };
    return { ok: true, costs: strategyCostFromMetricsText(text) };
  } catch (error) {
    return { ok: false, reason: `${url} did not answer (${(error as Error).name === 'TimeoutError' ? 'timeout' : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message)})` };
  }
}
