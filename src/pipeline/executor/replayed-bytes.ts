import type { ActionRecord } from '../../records/action-record.ts';

/**
 * How an action ends when the API answered its build with the bytes of an earlier transaction.
 * Ed25519 is deterministic: signing those bytes again makes the earlier signature, which the chain
 * already shows landed. That landing is never this action's.
 * - signature_claimed: the signature already belongs to another action of ours (its `signed` write
 *   claimed it first; ActionStore);
 * - landed_before_build: the chain shows the signature landed in a slot before the one at which
 *   our RPC vouched for the build's blockhash, so before this action signed anything.
 */
export const REPLAY_REASONS = {
  signatureClaimed: 'replay:signature_claimed',
  landedBeforeBuild: 'replay:landed_before_build',
} as const;

/**
 * Slots a landing must lie before the build's slot to count as earlier: slack for a block of a
 * slot our node had passed that its leader was still producing (a leader's run is four slots).
 */
const LATE_BLOCK_SLOTS = 4;

/** Whether the action ended because its bytes were replayed (it alerts as such). */
export function isReplayRejection(record: Pick<ActionRecord, 'state' | 'reason'>): boolean {
  return record.state === 'rejected' && Object.values<string>(REPLAY_REASONS).includes(record.reason ?? '');
}

/**
 * Why a landing the chain shows for the action's signature is not the action's own (it landed
 * before the action was built), or undefined when it may be. A record without a build slot (no
 * RPC vouched for its blockhash, or stored by an older version) cannot tell.
 */
export function landedBeforeBuild(record: Pick<ActionRecord, 'builtSlot' | 'signature'>, seen: { readonly slot: number } | null): string | undefined {
  if (!seen || record.builtSlot === undefined || seen.slot + LATE_BLOCK_SLOTS >= record.builtSlot) return undefined;
  return `signature ${record.signature ?? '?'} landed in slot ${seen.slot}, before this action was built (slot ${record.builtSlot}): the API answered with the bytes of an earlier transaction; that landing is not this action's`;
}
