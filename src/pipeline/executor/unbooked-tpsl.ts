import type { ActionRecord } from '../../records/action-record.ts';
import type { UnbookedTpslAction } from '../../risk/stop-arbitration.ts';
import type { ActionStore } from './action-store.ts';
import { attachedTpslOf } from '../../sdk/attached-tpsl.ts';

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
      } else if ((intent.type === 'open' || intent.type === 'increase') && record.createdTpslPubkeys?.includes(tpslPubkey)) {
        const attached = attachedTpslOf(intent)[record.createdTpslPubkeys.indexOf(tpslPubkey)];
        if (attached) found.push({ strategy: record.strategy, triggerPrice: attached.triggerPrice, created: true, requestType: attached.requestType, side: intent.side });
      } else if (intent.type === 'tpsl-update' && intent.tpslPubkey === tpslPubkey) {
        found.push({ strategy: record.strategy, triggerPrice: intent.triggerPrice, created: false });
      }
    }
    return found;
  };
}
