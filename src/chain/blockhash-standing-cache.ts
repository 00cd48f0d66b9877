import { z } from 'zod';
import type { JsonRpc } from './json-rpc.ts';
import type { BlockhashStanding } from './policy/context.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** isBlockhashValid as Solana answers it: `{context: {slot}, value: boolean}`. */
const blockhashValidity = z.looseObject({ context: z.looseObject({ slot: z.number().int().nonnegative() }), value: z.boolean() });

/** Positive answers kept at most this many (one per recent blockhash is all a burst needs). */
const REMEMBERED_MAX = 256;
/** Times a "not valid" answer is asked again, a slot apart, before it stands. */
const NOT_VALID_RETRIES = 2;

/**
 * Asks our own RPC whether a blockhash is valid (isBlockhashValid), for the policy's
 * stale_blockhash rule. A burst of builds carries the same few blockhashes: lookups of one
 * blockhash while its request is in flight share it, and a "valid" answer is reused for up to
 * `maxAgeMs` (one slot by default). Only "valid" is reused: a blockhash our node has not seen
 * yet may be known a moment later, and a reused answer keeps its own, older slot, which can only
 * make the landing check (a landing before that slot is not ours) look at fewer slots.
 * Asked at `processed`: the newest view of our node, so a blockhash the API's node issued a slot
 * ahead of our confirmed view is not refused as stale; and a "not valid" answer is asked again
 * twice, a slot apart, before it stands (our node may trail the API's by a slot or two). A refusal
 * costs those two slots; an honest build, none.
 */
export class BlockhashStandingCache {
  readonly #inFlight = new Map<string, Promise<BlockhashStanding>>();
  readonly #valid = new Map<string, { readonly standing: BlockhashStanding; readonly atMs: number }>();

  constructor(
    private readonly rpc: JsonRpc,
    /** How long a valid answer is reused, and how long a "not valid" one waits to be asked again: a slot. */
    private readonly slotMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  standing(blockhash: string): Promise<BlockhashStanding> {
    const known = this.#valid.get(blockhash);
    if (known && this.now() - known.atMs <= this.slotMs) return Promise.resolve(known.standing);
    const pending = this.#inFlight.get(blockhash);
    if (pending) return pending;
    const asked = this.#ask(blockhash).finally(() => this.#inFlight.delete(blockhash));
    this.#inFlight.set(blockhash, asked);
    return asked;
  }

  async #ask(blockhash: string): Promise<BlockhashStanding> {
    let askedAtMs = this.now();
    let standing = await this.#askOnce(blockhash);
    for (let retry = 0; retry < NOT_VALID_RETRIES && !standing.valid; retry++) {
      await sleep(this.slotMs);
      askedAtMs = this.now();
      standing = await this.#askOnce(blockhash);
    }
    if (standing.valid) {
      if (this.#valid.size >= REMEMBERED_MAX) this.#valid.clear();
      this.#valid.set(blockhash, { standing, atMs: askedAtMs });
    }
    return standing;
  }

  async #askOnce(blockhash: string): Promise<BlockhashStanding> {
    const answer = await this.rpc.call('isBlockhashValid', [blockhash, { commitment: 'processed' }], blockhashValidity);
    return { valid: answer.value, slot: answer.context.slot };
  }
}
