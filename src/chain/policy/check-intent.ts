import type { PolicyContext } from './context.ts';
import type { Outflow } from './check-value-flows.ts';
import type { Violation } from './verdict.ts';

const BPS = 10_000n;

/** `limit` plus `slippageBps` of it, rounded up. */
function withSlippage(limit: bigint, slippageBps: number): bigint {
  const bps = BigInt(Math.max(0, Math.trunc(slippageBps)));
  return limit + (limit * bps + BPS - 1n) / BPS;
}

/**
 * Rule intent_exceeded: what the transaction sends or approves from the wallet to explained
 * accounts stays within what the intent asked for, plus slippage. A token the intent does not
 * name may not move at all once the intent names tokens.
 */
export function checkIntent(outflows: readonly Outflow[], ctx: PolicyContext): Violation[] {
  const intent = ctx.intent;
  if (!intent) return [];
  const slippage = intent.slippageBps ?? 0;
  const totals = new Map<string, bigint>();
  for (const flow of outflows) totals.set(flow.asset, (totals.get(flow.asset) ?? 0n) + flow.amount);
  const violations: Violation[] = [];
  for (const [asset, total] of totals) {
    if (total === 0n) continue;
    if (asset === 'lamports') {
      if (intent.maxMoveLamports === undefined) continue;
      const allowed = withSlippage(intent.maxMoveLamports, slippage);
      if (total > allowed) {
        violations.push({ rule: 'intent_exceeded', detail: `the transaction moves ${total} lamports from the wallet; the intent allows ${allowed}` });
      }
      continue;
    }
    if (intent.maxMoveTokens === undefined) continue;
    const limit = Object.hasOwn(intent.maxMoveTokens, asset) ? intent.maxMoveTokens[asset] : undefined;
    if (limit === undefined) {
      violations.push({ rule: 'intent_exceeded', detail: `the transaction moves ${total} of ${asset === 'unknown' ? 'an unidentified mint' : `mint ${asset}`}, which the intent does not name` });
      continue;
    }
    const allowed = withSlippage(limit, slippage);
    if (total > allowed) {
      violations.push({ rule: 'intent_exceeded', detail: `the transaction moves ${total} of mint ${asset} from the wallet; the intent allows ${allowed}` });
    }
  }
  return violations;
}
