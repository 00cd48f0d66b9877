import { createHash } from 'node:crypto';
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { encodeAggregatorInstructionData } from '../../chain/programs/aggregator/codec.ts';
import { AGGREGATOR_EVENT_AUTHORITY, AGGREGATOR_LAYOUTS } from '../../chain/programs/aggregator/layouts.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import { derivedAddress } from '../market/keys.ts';
import type { SwapHostileKind } from './hostile.ts';
import { tokenAccountOf } from './perps-instructions.ts';

/**
 * The aggregator's `route` instruction as Ultra puts it in a taker's swap: the IDL's account
 * order and flags and its borsh arguments, the taker's own associated token accounts, and after
 * the layout the accounts a route hands its AMMs (the event authority and program of the
 * program's event CPI, the venue AMM's pool, and a per-order account, the stand-in for the AMM's
 * swap state that also keeps two identical orders' messages apart). Anchor's "none" for an
 * optional account is the program id.
 */

interface UltraRouteArgs {
  readonly requestId: string;
  readonly taker: string;
  /** Ultra's `receiver`: the output goes to its account instead of the taker's. */
  readonly receiver?: string;
  readonly inputMint: string;
  readonly outputMint: string;
  readonly inAmount: bigint;
  readonly quotedOutAmount: bigint;
  readonly slippageBps: bigint;
  /** A hostile venue's tampering with the swap (hostile.ts); absent: an honest route. */
  readonly hostile?: SwapHostileKind;
  /** Where hostile outputs and fees go. */
  readonly foreign: string;
}

/** How much a hostile venue inflates the swap's input ('swap_in_amount'). */
export const HOSTILE_SWAP_FACTOR = 100n;
/** The discriminator of the hostile venue's made-up aggregator instruction ('aggregator_unknown_instruction'). */
const UNKNOWN_AGGREGATOR_DISCRIMINATOR = createHash('sha256').update('global:venue_sweep').digest().subarray(0, 8);

const AGGREGATOR = new PublicKey(PROGRAMS.aggregator);

export function ultraRouteInstructions(a: UltraRouteArgs): TransactionInstruction[] {
  const none = PROGRAMS.aggregator;
  const source = tokenAccountOf(a.taker, a.inputMint);
  const destination = tokenAccountOf(a.taker, a.outputMint);
  const byRole: Record<string, string> = {
    token_program: PROGRAMS.token,
    user_transfer_authority: a.taker,
    user_source_token_account: source,
    user_destination_token_account: destination,
    destination_token_account:
      a.hostile === 'swap_foreign_destination' ? tokenAccountOf(a.foreign, a.outputMint) : a.receiver !== undefined && a.receiver !== a.taker ? tokenAccountOf(a.receiver, a.outputMint) : none,
    destination_mint: a.outputMint,
    platform_fee_account: a.hostile === 'swap_foreign_platform_fee' ? tokenAccountOf(a.foreign, a.outputMint) : none,
  };
  const keys = AGGREGATOR_LAYOUTS.route.accounts.map((spec) => {
    const address = byRole[spec.name];
    if (address === undefined) throw new TypeError(`route: account ${spec.name} is missing`);
    // An absent optional account (the program id) is neither signer nor writable.
    const absent = spec.optional && address === none;
    return { pubkey: new PublicKey(address), isSigner: spec.signer && !absent, isWritable: spec.writable && !absent };
  });
  const amms = [AGGREGATOR_EVENT_AUTHORITY, PROGRAMS.aggregator, derivedAddress('venue-amm', a.inputMint, a.outputMint), derivedAddress('venue-ultra-order', a.requestId)];
  keys.push(...amms.map((address, i) => ({ pubkey: new PublicKey(address), isSigner: false, isWritable: i >= 2 })));
  const minOutOne = a.hostile === 'swap_min_out';
  const data = encodeAggregatorInstructionData('route', {
    route_plan: [{ swap: 'TokenSwap', share: 100, inputIndex: 0, outputIndex: 1 }],
    in_amount: a.hostile === 'swap_in_amount' ? a.inAmount * HOSTILE_SWAP_FACTOR : a.inAmount,
    quoted_out_amount: minOutOne ? 1n : a.quotedOutAmount,
    slippage_bps: minOutOne ? 0n : a.slippageBps,
    platform_fee_bps: a.hostile === 'swap_foreign_platform_fee' ? 100n : 0n,
  });
  const route = new TransactionInstruction({ programId: AGGREGATOR, keys, data });
  if (a.hostile !== 'aggregator_unknown_instruction') return [route];
  // An instruction of the right program that no IDL knows, handed the taker's token accounts with its signature.
  const sweep = new TransactionInstruction({
    programId: AGGREGATOR,
    keys: [
      { pubkey: new PublicKey(a.taker), isSigner: true, isWritable: true },
      { pubkey: new PublicKey(source), isSigner: false, isWritable: true },
      { pubkey: new PublicKey(destination), isSigner: false, isWritable: true },
      { pubkey: new PublicKey(a.foreign), isSigner: false, isWritable: true },
    ],
    data: Buffer.from(UNKNOWN_AGGREGATOR_DISCRIMINATOR),
  });
  return [route, sweep];
}
