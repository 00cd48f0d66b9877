import { z } from 'zod';
import type { Logger } from '../ops/logger.ts';
import type { NotifySink } from '../ops/notify/event.ts';
import { tradingState } from './trading-state.ts';
import { logTradingState, tradingStateEvent } from './trading-switch.ts';

/**
 * What a change made outside any daemon (`stratd pause`/`resume` from a shell) carries on the
 * trading-state channel, so the daemons that acknowledge it can log and announce it: a shell has
 * no log anyone reads and, usually, none of the notifier's settings.
 */
export const tradingStateNotice = z.object({
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
