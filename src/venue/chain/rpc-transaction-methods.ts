import { VersionedMessage } from '@solana/web3.js';
import bs58 from 'bs58';
import { z } from 'zod';
import { accountInfo } from './rpc-read-methods.ts';
import { commitment, context, defineMethod, pubkeyParam, readConfig, requireContextSlot, signatureParam, type MethodHandler } from './rpc-method.ts';
import { RPC_CODES, RpcError } from './rpc-protocol.ts';
import { ChainRejection } from './rejection.ts';

const wireEncoding = z.enum(['base58', 'base64']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Most signatures getSignatureStatuses accepts in one call (as real nodes). */
const MAX_SIGNATURE_STATUSES = 256;

/** Wire text to bytes; real nodes default to base58 when no encoding is given. */
function decodeWire(encoded: string, encoding: 'base58' | 'base64'): Uint8Array {
  if (encoding === 'base64') {
    if (!BASE64.test(encoded)) throw new RpcError(RPC_CODES.invalidParams, 'invalid transaction: invalid base64 encoding');
    return Buffer.from(encoded, 'base64');
  }
  try {
    return bs58.decode(encoded);
  } catch {
    throw new RpcError(RPC_CODES.invalidParams, 'invalid transaction: invalid base58 encoding');
  }
}

/** A rejection as a real node reports it: bad bytes, bad signatures, or a failed preflight. */
function rejectionError(rejection: ChainRejection): RpcError {
  switch (rejection.kind) {
    case 'malformed':
      return new RpcError(RPC_CODES.invalidParams, `invalid transaction: ${rejection.message}`);
    case 'signature_invalid':
    case 'missing_signature':
      return new RpcError(RPC_CODES.signatureVerification, rejection.message);
    default:
      return new RpcError(RPC_CODES.preflightFailure, rejection.message, {
        accounts: null,
        err: rejection.solanaError,
        innerInstructions: null,
        logs: [],
        replacementBlockhash: null,
        returnData: null,
        unitsConsumed: 0,
      });
  }
}

const sendConfig = z
  .object({
    encoding: wireEncoding.optional(),
    skipPreflight: z.boolean().optional(),
    preflightCommitment: commitment.optional(),
    // Accepted and validated; the venue's node delivers in one attempt, so retries change nothing
    // (the drop fault models a transaction lost after all of them).
    maxRetries: z.number().int().nonnegative().optional(),
    minContextSlot: z.number().int().nonnegative().optional(),
  })
  .nullish();

const simulateConfig = z
  .object({
    encoding: wireEncoding.optional(),
    sigVerify: z.boolean().optional(),
    replaceRecentBlockhash: z.boolean().optional(),
    commitment: commitment.optional(),
    minContextSlot: z.number().int().nonnegative().optional(),
    innerInstructions: z.boolean().optional(),
    accounts: z
      .object({ addresses: z.array(pubkeyParam).max(100), encoding: z.enum(['base64', 'jsonParsed']).optional() })
      .optional(),
  })
  .nullish();

export const TRANSACTION_METHODS: Readonly<Record<string, MethodHandler>> = {
  sendTransaction: defineMethod(z.tuple([z.string().min(1), sendConfig]), ([encoded, config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    const raw = decodeWire(encoded, config?.encoding ?? 'base58');
    try {
      return chain.submit(raw, { via: 'rpc' }).signature;
    } catch (error) {
      if (!(error instanceof ChainRejection)) throw error;
      // Without preflight a node forwards whatever parses and returns its id; the network
      // then discards it, so it never lands (the caller must watch the block height).
      if (config?.skipPreflight && error.kind !== 'malformed' && error.signature !== undefined) return error.signature;
      throw rejectionError(error);
    }
  }),

  simulateTransaction: defineMethod(z.tuple([z.string().min(1), simulateConfig]), ([encoded, config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    if (config?.sigVerify && config.replaceRecentBlockhash) {
      throw new RpcError(RPC_CODES.invalidParams, 'Invalid params: sigVerify may not be used with replaceRecentBlockhash');
    }
    const raw = decodeWire(encoded, config?.encoding ?? 'base58');
    let result;
    try {
      result = chain.simulate(raw, { sigVerify: config?.sigVerify, replaceRecentBlockhash: config?.replaceRecentBlockhash });
    } catch (error) {
      if (error instanceof ChainRejection) throw rejectionError(error);
      throw error;
    }
    const accounts = config?.accounts;
    return {
      context: context(chain),
      value: {
        err: result.err,
        logs: result.logs,
        // The post-state of each account asked for, in the order asked (null: none exists then).
        accounts: accounts ? accounts.addresses.map((address) => accountInfo(result.postState, address, { encoding: accounts.encoding ?? 'base64' })) : null,
        unitsConsumed: result.unitsConsumed,
        returnData: null,
        innerInstructions: config?.innerInstructions ? [] : null,
        replacementBlockhash: result.replacementBlockhash ?? null,
        loadedAccountsDataSize: 0,
      },
    };
  }),

  getSignatureStatuses: defineMethod(
    z.tuple([z.array(signatureParam).max(MAX_SIGNATURE_STATUSES), z.object({ searchTransactionHistory: z.boolean().optional() }).nullish()]),
    ([signatures, config], chain) => ({
      context: context(chain),
      value: signatures.map((signature) => {
        const status = chain.getSignatureStatus(signature, { searchTransactionHistory: config?.searchTransactionHistory ?? false });
        // `status` is the deprecated Result form real nodes still send next to `err`.
        return status && { ...status, status: status.err === null ? { Ok: null } : { Err: status.err } };
      }),
    }),
  ),

  getFeeForMessage: defineMethod(z.tuple([z.string().min(1), readConfig]), ([encoded, config], chain) => {
    requireContextSlot(chain, config?.minContextSlot);
    let message: VersionedMessage;
    try {
      message = VersionedMessage.deserialize(decodeWire(encoded, 'base64'));
    } catch (error) {
      if (error instanceof RpcError) throw error;
      throw new RpcError(RPC_CODES.invalidParams, `invalid message: ${error instanceof Error ? error.message : String(error)}`);
    }
    // Null for an unknown or expired blockhash, as real nodes answer.
    const value = chain.isBlockhashValid(message.recentBlockhash) ? chain.feeFor(message) : null;
    return { context: context(chain), value };
  }),
};
