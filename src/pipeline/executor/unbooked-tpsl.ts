import type { Side } from '../../api/schemas/common.ts';
import type { ActionRecord } from './action-record.ts';
import type { ActionStore } from './action-store.ts';

/** A TP/SL create or update of ours that may be on the venue already but is not in the TP/SL book yet. */
export interface UnbookedTpslAction {
  readonly strategy: string;
  readonly triggerPrice: string;
  /** Whether it created the request (then its type and side are known). */
  readonly created: boolean;
  readonly requestType?: 'tp' | 'sl';
  readonly side?: Side;
}

/** States in which an action's transaction may have landed while its settlement (and booking) is still to come. */
const MAY_HAVE_LANDED: ReadonlySet<ActionRecord['state']> = new Set(['signed', 'submitted', 'landed']);

/**
 * The TP/SL actions on a request that may have landed but are not booked yet: the TP/SL book is
 * written when the executor sees a landing, and a positions snapshot can show the request (a
 * create's, or an update's trigger) before that. Stop arbitration counts them as set, so a move
 * decided on that snapshot cannot slip past them. Reads the unsettled actions, which are few.
 */
export function unbookedTpslActions(store: Pick<ActionStore, 'openActionIds' | 'load'>): (tpslPubkey: string) => Promise<UnbookedTpslAction[]> {
  return async (tpslPubkey) => {
    const records = await Promise.all((await store.openActionIds()).map(async (id) => (await store.load(id))?.record));
    const found: UnbookedTpslAction[] = [];
    for (const record of records) {
      if (!record || !MAY_HAVE_LANDED.has(record.state)) continue;
      const intent = record.intent;
      if (intent.type === 'tpsl-create' && record.createdTpslPubkeys?.includes(tpslPubkey)) {
        found.push({ strategy: record.strategy, triggerPrice: intent.triggerPrice, created: true, requestType: intent.requestType, side: intent.side });
      } else if (intent.type === 'tpsl-update' && intent.tpslPubkey === tpslPubkey) {
        found.push({ strategy: record.strategy, triggerPrice: intent.triggerPrice, created: false });
      }
    }
    return found;
  };
}
