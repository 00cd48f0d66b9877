import { z } from 'zod';
import { positionItemRaw, type PositionItem } from '../../api/schemas/perps.ts';
import { readUsd } from '../../sdk/position-view.ts';

/**
 * What the position's own TP/SL requests cover, read from the positions item (both documented
 * shapes: raw `triggerPriceUsd`/`sizeUsd`, formatted `triggerPrice`/`sizeUsdDelta`). Unreadable
 * members count as "present, trigger unknown": coverage is never invented.
 */

const tpslDetail = z.looseObject({
  positionRequestPubkey: z.string(),
  requestType: z.string(),
  triggerPriceUsd: z.string().optional(),
  triggerPrice: z.string().optional(),
  sizeUsd: z.string().optional(),
  sizeUsdDelta: z.string().optional(),
  entirePosition: z.boolean().optional(),
});

export interface TpslLeg {
  readonly requestPubkey: string;
  /** USD × 10^6, undefined when the item does not say. */
  readonly triggerPriceUsd: bigint | undefined;
  /** Share of the position the request closes, in bps (10000 = all of it); undefined when unknown. */
  readonly coverBps: bigint | undefined;
}

interface TpslCoverage {
  readonly tp: readonly TpslLeg[];
  readonly sl: readonly TpslLeg[];
}

export function tpslCoverage(item: PositionItem, positionSizeUsd: bigint): TpslCoverage {
  // The item's shape says how its amounts read (positionView's rule): a formatted item's whole-dollar
  // "150" is $150, not 150 × 10^-6.
  const formatted = !positionItemRaw.safeParse(item).success;
  const usdAmount = (text: string | undefined) => readUsd(text, formatted);
  const tp: TpslLeg[] = [];
  const sl: TpslLeg[] = [];
  for (const raw of item.tpslRequests ?? []) {
    const parsed = tpslDetail.safeParse(raw);
    if (!parsed.success) continue;
    const r = parsed.data;
    const size = usdAmount(r.sizeUsd) ?? usdAmount(r.sizeUsdDelta);
    const coverBps = r.entirePosition ? 10_000n : size !== undefined && positionSizeUsd > 0n ? (size * 10_000n) / positionSizeUsd : undefined;
    const leg: TpslLeg = { requestPubkey: r.positionRequestPubkey, triggerPriceUsd: usdAmount(r.triggerPriceUsd) ?? usdAmount(r.triggerPrice), coverBps };
    if (r.requestType === 'tp') tp.push(leg);
    else if (r.requestType === 'sl') sl.push(leg);
  }
  return { tp, sl };
}
