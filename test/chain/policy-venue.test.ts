// The simulated venue builds its transactions with the live program ids: the policy must accept
// its own transactions for every product (legacy and instant) and refuse each hostile variant.
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { decodeTransaction } from '../../src/chain/decode.ts';
import { DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, inspectTransaction, type PolicyRule } from '../../src/chain/policy/index.ts';
import { buildRequestTransaction, toBase64, type HostileKind } from '../../src/venue/tx/builder.ts';
import { HOSTILE_KINDS } from '../../src/venue/tx/hostile.ts';
import { BLOCKHASH, PRODUCT_OPERATIONS, randomKey } from './fixtures.ts';

const wallet = Keypair.generate().publicKey;
const keeper = Keypair.generate().publicKey;

// price_slippage changes a perps market request's argument, and these generic builds carry none:
// test/chain/policy-perps-venue.test.ts refuses it on the venue's perps requests.
const EXPECTED_RULE: Record<Exclude<HostileKind, 'price_slippage'>, PolicyRule> = {
  sol_transfer: 'value_transfer',
  token_transfer: 'value_transfer',
  token_approve: 'token_approval',
  fee_payer: 'fee_payer',
  unknown_program: 'program_not_allowed',
  durable_nonce: 'durable_nonce',
};

describe('transactions of the simulated venue', () => {
  for (const { product, operationId, discriminator } of PRODUCT_OPERATIONS) {
    // Perps, Ultra, trigger, recurring and Studio transactions carry their programs' real
    // instructions, built by the venue's handlers: test/chain/policy-perps-venue.test.ts,
    // policy-swap-venue.test.ts and policy-orders-venue.test.ts accept each operation's and refuse
    // their hostile variants.
    const decodedProgram = product === 'perps' || product === 'ultra' || product === 'trigger' || product === 'recurring' || product === 'studio';
    for (const transactionType of decodedProgram ? [] : (['legacy', 'instant'] as const)) {
      it(`accepts its ${transactionType} ${product} transaction (${operationId})`, async () => {
        const tx = buildRequestTransaction({
          payer: wallet,
          product,
          requestId: `req-${product}-${transactionType}`,
          blockhash: BLOCKHASH,
          accounts: [randomKey(), randomKey()],
          discriminator,
          ...(transactionType === 'instant' ? { keeperSigner: keeper } : {}),
        });
        const decoded = await decodeTransaction(toBase64(tx));
        const verdict = inspectTransaction(decoded, {
          wallet,
          operationId,
          transactionType,
          txMetadata: { blockhash: BLOCKHASH },
          priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS,
        });
        expect(verdict).toEqual({ ok: true, violations: [], messageSha256: decoded.messageSha256 });
      });
    }

    for (const hostile of HOSTILE_KINDS.filter((k) => k !== 'price_slippage')) {
      it(`rejects the hostile ${hostile} variant of ${operationId} with ${EXPECTED_RULE[hostile]}`, async () => {
        const tx = buildRequestTransaction({ payer: wallet, product, requestId: `hostile-${hostile}`, blockhash: BLOCKHASH, hostile });
        const verdict = inspectTransaction(await decodeTransaction(toBase64(tx)), {
          wallet,
          operationId,
          txMetadata: { blockhash: BLOCKHASH },
          priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS,
        });
        expect(verdict.ok).toBe(false);
        expect(verdict.violations.map((v) => v.rule)).toContain(EXPECTED_RULE[hostile]);
      });
    }
  }
});
