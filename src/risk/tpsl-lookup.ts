import type { Redis } from 'ioredis';
import { decimalToScaled, tryBigInt } from '../api/amounts.ts';
import { readLatestSnapshots } from '../pipeline/snapshot-store.ts';
import type { CurrentTpsl } from './reducing.ts';

/** Finds a TP/SL request in the latest positions snapshots (both documented item shapes). */
export function tpslFromSnapshots(redis: Redis, prefix: string): (tpslPubkey: string) => Promise<CurrentTpsl | undefined> {
  return async (tpslPubkey) => {
    for (const snapshot of await readLatestSnapshots(redis, prefix, 'positions')) {
      for (const position of snapshot.positions) {
        for (const request of position.tpslRequests ?? []) {
          if (request.positionRequestPubkey !== tpslPubkey) continue;
          if (request.requestType !== 'tp' && request.requestType !== 'sl') return undefined;
          const raw = (request as Record<string, unknown>).triggerPriceUsd ?? (request as Record<string, unknown>).triggerPrice;
          const trigger = typeof raw === 'string' ? (tryBigInt(raw) ?? (/^\d+\.\d+$/.test(raw) ? decimalToScaled(raw, 6) : undefined)) : undefined;
          if (trigger === undefined) return undefined;
          return { requestType: request.requestType, triggerPrice: trigger, side: position.side };
        }
      }
    }
    return undefined;
  };
}
