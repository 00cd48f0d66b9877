import { z } from 'zod';
import { JsonRpcError, type JsonRpc } from './json-rpc.ts';

/** Most signatures one getSignatureStatuses request may carry (Solana nodes refuse more). */
const MAX_SIGNATURES_PER_REQUEST = 256;

/** One signature's status as the node reports it (ranking against a commitment is the caller's). */
type RawSignatureStatus = z.infer<typeof rawStatus>;

/** One signature's entry of a getSignatureStatuses reply. */
export const rawStatus = z.looseObject({
  slot: z.number().int().nonnegative(),
  confirmations: z.number().int().nonnegative().nullable(),
  err: z.unknown(),
  confirmationStatus: z.enum(['processed', 'confirmed', 'finalized']).nullish(),
});

const signatureStatuses = z.looseObject({ value: z.array(rawStatus.nullable()) });

interface Pending {
  readonly answer: Promise<RawSignatureStatus | null>;
  readonly resolve: (status: RawSignatureStatus | null) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Coalesces signature-status lookups into one getSignatureStatuses request per event-loop turn.
 * Every action in flight polls its own signature; at a few hundred actions that was one HTTP
 * round trip (and its JSON, zod and socket work) per action per poll. Lookups queue until the
 * check phase of the current turn (setImmediate), so every timer and I/O callback of that turn
 * joins the same request, and no lookup waits longer than that turn. A signature asked twice in
 * one turn is sent once; more than 256 distinct signatures go out as several requests, sent
 * together, and a request that fails rejects only the lookups it carried, with its own error.
 */
export class SignatureStatusBatch {
  #pending = new Map<string, Pending>();
  #scheduled = false;

  constructor(
    private readonly rpc: JsonRpc,
    private readonly maxPerRequest = MAX_SIGNATURES_PER_REQUEST,
  ) {}

  /** The signature's status, searching history; null when the node has not seen it. */
  status(signature: string): Promise<RawSignatureStatus | null> {
    const queued = this.#pending.get(signature);
    if (queued) return queued.answer;
    let resolve!: Pending['resolve'];
    let reject!: Pending['reject'];
    const answer = new Promise<RawSignatureStatus | null>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.#pending.set(signature, { answer, resolve, reject });
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    }
    return answer;
  }

  #flush(): void {
    const batch = this.#pending;
    this.#pending = new Map();
    this.#scheduled = false;
    const signatures = [...batch.keys()];
    for (let i = 0; i < signatures.length; i += this.maxPerRequest) {
      void this.#ask(signatures.slice(i, i + this.maxPerRequest), batch);
    }
  }

  /** One request; never rejects itself: its outcome is handed to the lookups it carried. */
  async #ask(signatures: readonly string[], batch: ReadonlyMap<string, Pending>): Promise<void> {
    let value: ReadonlyArray<RawSignatureStatus | null>;
    try {
      ({ value } = await this.rpc.call('getSignatureStatuses', [signatures, { searchTransactionHistory: true }], signatureStatuses));
      // Answers are matched by position: a short or long reply would give a status to the wrong signature.
      if (value.length !== signatures.length) throw new JsonRpcError(`getSignatureStatuses: ${value.length} answers for ${signatures.length} signatures`);
    } catch (error) {
      for (const signature of signatures) batch.get(signature)!.reject(error);
      return;
    }
    signatures.forEach((signature, i) => batch.get(signature)!.resolve(value[i] ?? null));
  }
}
