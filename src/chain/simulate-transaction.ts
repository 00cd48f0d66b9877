import { z } from 'zod';
import type { JsonRpc } from './json-rpc.ts';
import type { ReportedAccount, SimulationReport } from './policy/check-simulation.ts';

/** What the node answered for the accounts asked, at its slot. */
export interface AccountsAtSlot {
  readonly slot: number;
  readonly accounts: ReadonlyArray<ReportedAccount | null>;
}

export interface SimulatedAtSlot {
  readonly slot: number;
  readonly report: SimulationReport;
}

/** The two reads of the balance-delta check: the simulation's post-state, and the pre-state beside it. */
export interface SimulationRpc {
  simulate(unsignedTx: Uint8Array, addresses: readonly string[]): Promise<SimulatedAtSlot>;
  accounts(addresses: readonly string[]): Promise<AccountsAtSlot>;
}

/**
 * The node answered, but not with accounts the check can read (an account's data is no base64,
 * a member is missing): refused as simulation_invalid whatever policy.simulation.onUnavailable
 * says, since a node that garbles its answer is no node that could not answer.
 */
export class SimulationAnswerInvalid extends Error {
  override readonly name = 'SimulationAnswerInvalid';
  readonly kind = 'simulation_invalid' as const;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const account = z.looseObject({
  lamports: z.union([z.number().int().nonnegative(), z.string().regex(/^[0-9]+$/)]),
  owner: z.string().min(32).max(44),
  data: z.tuple([z.string(), z.literal('base64')]),
});
const contextSlot = z.looseObject({ slot: z.number().int().nonnegative() });
const simulateReply = z.looseObject({
  context: contextSlot,
  value: z.looseObject({ err: z.unknown(), logs: z.array(z.string()).nullish(), accounts: z.array(z.unknown()).nullish() }),
});
const accountsReply = z.looseObject({ context: contextSlot, value: z.array(z.unknown()) });

/** Each answer as an account or null; anything else is SimulationAnswerInvalid naming its position. */
function readAccounts(method: string, answers: readonly unknown[]): Array<ReportedAccount | null> {
  return answers.map((answer, i) => {
    if (answer === null) return null;
    const parsed = account.safeParse(answer);
    if (!parsed.success) throw new SimulationAnswerInvalid(`${method}: account ${String(i)} is not an account (base64-encoded): ${parsed.error.issues[0]?.message ?? 'unreadable'}`);
    const [text] = parsed.data.data;
    if (!BASE64.test(text)) throw new SimulationAnswerInvalid(`${method}: account ${String(i)}'s data is not base64`);
    return { lamports: BigInt(parsed.data.lamports), owner: parsed.data.owner, data: Buffer.from(text, 'base64') };
  });
}

/**
 * simulateTransaction as the policy asks it: the unsigned bytes (sigVerify false), its own
 * blockhash (replaceRecentBlockhash false: an expired one fails the simulation), at `confirmed`,
 * with the post-state of `addresses` in base64; and getMultipleAccounts of the same addresses at
 * `confirmed` for the pre-state. Replies are validated; an answer that is no account list is
 * SimulationAnswerInvalid, a node that does not answer throws what the transport throws.
 */
export function jsonRpcSimulation(rpc: JsonRpc): SimulationRpc {
  return {
    async simulate(unsignedTx, addresses) {
      const reply = await rpc.call(
        'simulateTransaction',
        [Buffer.from(unsignedTx).toString('base64'), { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: false, commitment: 'confirmed', accounts: { addresses: [...addresses], encoding: 'base64' } }],
        simulateReply,
      );
      const { err, logs, accounts } = reply.value;
      if (err !== null && err !== undefined) return { slot: reply.context.slot, report: { err, logs: logs ?? [], accounts: [] } };
      if (!accounts) throw new SimulationAnswerInvalid('simulateTransaction: the answer carries no accounts');
      return { slot: reply.context.slot, report: { err: null, logs: logs ?? [], accounts: readAccounts('simulateTransaction', accounts) } };
    },
    async accounts(addresses) {
      const reply = await rpc.call('getMultipleAccounts', [[...addresses], { encoding: 'base64', commitment: 'confirmed' }], accountsReply);
      return { slot: reply.context.slot, accounts: readAccounts('getMultipleAccounts', reply.value) };
    },
  };
}
