import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { LookupTableUnavailable } from '../../src/chain/decode.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../src/chain/programs.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import { buildTx, computeBudget, lookupTable, productInstruction, randomKey } from '../chain/fixtures.ts';

/**
 * An RPC that does not answer for a lookup table is a transient fault, not a verdict: the
 * inspector throws (the executor looks again later) instead of rejecting the action, which would
 * end a protective decrease and count toward its strategy's circuit breaker.
 */
describe('lookup tables the RPC cannot fetch right now', () => {
  const wallet = Keypair.generate().publicKey;
  const table = lookupTable(randomKey(), [randomKey(), new PublicKey(PERPS_ACCOUNTS.eventAuthority)]);
  const tx = buildTx({ payer: wallet, version: 0, lookupTables: [table], instructions: [...computeBudget(), productInstruction(PROGRAMS.perps, wallet)] });
  const target = { operationId: 'perps.increase', route: 'rpc' } as const;

  it('a resolver that throws (timeout) makes the inspection throw LookupTableUnavailable, not a malformed or unresolved verdict', async () => {
    const inspector = new PolicyInspector({
      wallet,
      priorityFeeCapLamports: 10n ** 9n,
      resolveLookupTable: async () => {
        throw new Error('rpc timed out after 3000 ms');
      },
    });
    await expect(inspector.inspectDetailed(tx, undefined, target)).rejects.toBeInstanceOf(LookupTableUnavailable);
  });

  it('once the RPC answers, the same bytes are judged', async () => {
    const inspector = new PolicyInspector({ wallet, priorityFeeCapLamports: 10n ** 9n, resolveLookupTable: async () => table });
    const { verdict } = await inspector.inspectDetailed(tx, undefined, target);
    expect(verdict.violations.map((v) => v.rule)).not.toContain('unresolved_lookup');
    expect(verdict.violations.map((v) => v.rule)).not.toContain('malformed');
  });
});
