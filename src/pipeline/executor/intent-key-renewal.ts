import type { Redis } from 'ioredis';
import type { Logger } from '../../kernel/logger.ts';
import type { Ledger } from '../../records/ledger.ts';
import { extendIntent } from '../strategy-runtime/intent-lock.ts';
import type { ActionRecord } from '../../records/action-record.ts';

interface IntentKeyRenewalOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly ttlMs: number;
  readonly ledger: Ledger;
  readonly logger: Logger;
}

/** The executor's keeps of an ambiguous action's intent key (SubmittedWatch, and the `submitted` write). */
export interface IntentKeyRenewal {
  /** How long one keep holds the key (strategies.intentLockMs). */
  readonly ttlMs: number;
  /** Renews the claim while the action holds it; alerts when it does not. */
  keep(record: ActionRecord): Promise<void>;
  /** Alerts that the action no longer holds its key, as a keep made elsewhere (the `submitted` write) found. */
  lost(record: ActionRecord): Promise<void>;
}

/**
 * The executor's keep of an ambiguous action's intent key: renews the claim while this action
 * holds it. When it no longer does (the claim lapsed, or another action of the same key holds it)
 * the strategy may decide the same thing twice while this action can still land: that is an alert
 * in the log and the ledger, not a silent no-op. Nothing is taken back: the other action may be on
 * its way too.
 */
export function intentKeyRenewal(o: IntentKeyRenewalOptions): IntentKeyRenewal {
  const lost = async (record: ActionRecord): Promise<void> => {
    o.logger.error({ actionId: record.actionId, strategy: record.strategy, intentKey: record.intent.key }, 'ALERT: an ambiguous action no longer holds its intent key; a second decision for it may go out');
    await o.ledger.append({ at: Date.now(), type: 'alert', actionId: record.actionId, strategy: record.strategy, detail: { event: 'intent_key_lost', intentKey: record.intent.key } });
  };
  return {
    ttlMs: o.ttlMs,
    async keep(record) {
      if (await extendIntent(o.redis, o.prefix, record.strategy, record.intent.key, record.actionId, o.ttlMs)) return;
      await lost(record);
    },
    lost,
  };
}
