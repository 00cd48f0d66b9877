/**
 * Invariants the property harness (./property-harness.ts) ships, for strategies that manage
 * positions; an author states their own the same way ({ name, check(step) }).
 */
import { formatUsd } from '../kernel/money-text.ts';
import type { Intent } from './intent.ts';
import type { HarnessStep, Invariant } from './property-harness.ts';
import { tighterStop, type Book } from './simulated-book.ts';

/** The tightest stop-loss of each open position (undefined: none). */
function tightestStops(book: Book): Map<string, { side: 'long' | 'short'; trigger: bigint | undefined }> {
  const out = new Map<string, { side: 'long' | 'short'; trigger: bigint | undefined }>();
  for (const p of book.positions) {
    let trigger: bigint | undefined;
    for (const r of p.requests) if (r.type === 'sl' && (trigger === undefined || tighterStop(p.side, r.triggerPriceUsd, trigger))) trigger = r.triggerPriceUsd;
    out.set(p.pubkey, { side: p.side, trigger });
  }
  return out;
}

/**
 * A stop never loosens: no landing leaves a position that stays open with a looser tightest
 * stop-loss than it had (a moved stop further from the mark, the only stop cancelled).
 */
export const stopsNeverLoosen: Invariant = {
  name: 'a stop never loosens',
  check(step: HarnessStep) {
    for (const landing of step.landings) {
      if (landing.outcome !== 'landed') continue;
      const before = tightestStops(landing.bookBefore);
      for (const [position, after] of tightestStops(landing.bookAfter)) {
        const was = before.get(position)?.trigger;
        if (was === undefined) continue;
        if (after.trigger === undefined || tighterStop(after.side, was, after.trigger)) {
          // Cents would show a loosening by a hair as "$11.00 to $11.00": then all six places.
          const places = after.trigger !== undefined && formatUsd(was) === formatUsd(after.trigger) ? { decimals: 6 } : {};
          return `${landing.action.strategy}'s ${landing.action.intent.type} ${landing.action.intent.key} moved the stop of ${after.side} ${position} from ${formatUsd(was, places)} to ${after.trigger === undefined ? 'none' : formatUsd(after.trigger, places)}`;
        }
      }
    }
    return true;
  },
};

/** What an intent acts on (position, TP/SL request, order, mint pair), for "one open intent per target and kind". */
export function intentTarget(intent: Intent): string {
  const i = intent as Record<string, unknown>;
  const kind = intent.type === 'tpsl-create' ? `tpsl-create:${String(i.requestType)}` : intent.type;
  const target = i.positionPubkey ?? i.tpslPubkey ?? i.order ?? (i.inputMint !== undefined ? `${String(i.inputMint)}→${String(i.outputMint)}` : intent.key);
  return `${kind} ${String(target)}`;
}

/** Never more than one open intent of a strategy per target (position, request, order) and kind. */
export const oneOpenIntentPerTarget: Invariant = {
  name: 'never more than one open intent per target and kind',
  check(step: HarnessStep) {
    const seen = new Map<string, string>();
    for (const action of step.open) {
      const id = `${action.strategy} ${intentTarget(action.intent)}`;
      const other = seen.get(id);
      if (other !== undefined) return `${action.strategy} has ${other} and ${action.intent.key} open at once (${intentTarget(action.intent)})`;
      seen.set(id, action.intent.key);
    }
    return true;
  },
};
