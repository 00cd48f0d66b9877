import { z } from 'zod';
import type { Logger } from '../kernel/logger.ts';
import type { NotifyEventInput, NotifySink } from '../kernel/notify-event.ts';
import { tradingState } from './trading-state.ts';

/**
 * What a change made outside any daemon (`stratd pause`/`resume` from a shell) carries on the
 * trading-state channel, so the daemons that acknowledge it can log and announce it: a shell has
 * no log anyone reads and, usually, none of the notifier's settings.
 */
const tradingStateNotice = z.object({
  state: tradingState,
  previous: tradingState,
  reason: z.string(),
  by: z.string(),
  cause: z.enum(['cli', 'control', 'breaker', 'loss_stop']),
  changedAtMs: z.number(),
});
export type TradingStateNotice = z.infer<typeof tradingStateNotice>;

/** The announcement on the channel: every change has a changeId and state; a CLI's also its notice. */
export const tradingStateAnnouncement = z.object({ changeId: z.string(), state: z.string().optional(), notice: tradingStateNotice.optional() });

/**
 * A daemon that acknowledges a CLI's change logs it (every such daemon: each one's log shows the
 * pause it obeys) and raises the `trading_state` notification. Several daemons raise the same
 * event key; the Notifier's per-target SET NX claim lets exactly one delivery through per target.
 */
export async function announceTradingStateNotice(notice: TradingStateNotice, o: { readonly logger: Logger; readonly notifier?: NotifySink; readonly changeId: string }): Promise<void> {
  logTradingState(o.logger, notice, { changeId: o.changeId, acknowledged: true });
  await o.notifier?.notify(tradingStateEvent(notice));
}

/** The log line of a change, the same in the process that made it and in a daemon that announces a CLI's change. */
export function logTradingState(logger: Logger | undefined, notice: TradingStateNotice, extra: Record<string, unknown> = {}): void {
  const detail = { event: 'trading_state', state: notice.state, previous: notice.previous, reason: notice.reason, by: notice.by, cause: notice.cause, ...extra };
  const log = notice.state === 'active' ? logger?.warn.bind(logger) : logger?.error.bind(logger);
  log?.(detail, `trading ${notice.state} (${notice.cause}: ${notice.reason}) by ${notice.by}`);
}

/**
 * The notification of a change. Its key is the change's (state and time), so every daemon that
 * raises it for the same change is deduplicated per target by the Notifier's SET NX claim.
 */
export function tradingStateEvent(notice: TradingStateNotice): NotifyEventInput {
  return {
    kind: 'trading_state',
    severity: notice.state === 'halted' ? 'critical' : 'warning',
    key: `trading_state:${notice.state}:${notice.changedAtMs}`,
    title: `trading ${notice.state} (was ${notice.previous}) — ${notice.cause} by ${notice.by}`,
    text: notice.reason,
    atMs: notice.changedAtMs,
  };
}
