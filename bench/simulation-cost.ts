// The balance-delta check's own cost (docs/safety.md, "Simulation"): the SimulationCheck the
// daemon runs, in this process, against the bench venue's JSON-RPC, on venue-built trigger-order
// transactions (a build per batch: a blockhash lives 15 s of 100 ms slots). One sample is one
// whole check: simulateTransaction and the pre-state read beside it, then the comparison.
import { Keypair } from '@solana/web3.js';
import { MINTS } from '../src/api/mints.ts';
import { ApiClient } from '../src/api/client.ts';
import { readWireTransaction } from '../src/chain/decode.ts';
import { decodeTransaction } from '../src/chain/decode.ts';
import { ChainClient } from '../src/chain/rpc-client.ts';
import { simulationBounds, watchedAccounts } from '../src/pipeline/executor/simulation-bounds.ts';
import { SimulationCheck, type SimulationOutcome } from '../src/pipeline/executor/simulation-check.ts';
import type { Intent } from '../src/sdk/intent.ts';
import { percentile, type LatencySummary } from './action-timings.ts';
import { fundWallet } from './daemon-venue.ts';

const BATCH = 50;

export interface SimulationCost {
  readonly checks: LatencySummary;
  readonly outcomes: Record<string, number>;
}

export async function simulationCost(apiUrl: string, rpcUrl: string, samples: number): Promise<SimulationCost> {
  const wallet = Keypair.generate().publicKey.toBase58();
  await fundWallet(apiUrl, wallet, [], true);
  const client = new ApiClient({ baseUrl: apiUrl, retries: 1 });
  const chain = new ChainClient(rpcUrl);
  const outcomes: Record<string, number> = {};
  const check = new SimulationCheck(chain.simulation, () => ({ enabled: true, onUnavailable: 'refuse', timeoutMs: 2_000, protectiveTimeoutMs: 300 }), {
    outcome: (outcome: SimulationOutcome) => void (outcomes[outcome] = (outcomes[outcome] ?? 0) + 1),
    signedUnchecked: () => undefined,
  });
  const intent: Intent = { type: 'trigger-create', key: 'bench', reason: 'bench', notionalUsd: '100000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '100000000', takingAmount: '1000000000' };
  const ms: number[] = [];
  try {
    for (let done = 0; done < samples; ) {
      const built = await client.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: wallet, payer: wallet, params: { makingAmount: '100000000', takingAmount: '1000000000' } });
      const wire = readWireTransaction(built.transaction);
      const decoded = await decodeTransaction(wire);
      const request = { unsignedTx: wire.bytes(), wallet, watched: watchedAccounts(wallet, intent, undefined), bounds: simulationBounds(intent, decoded, {}, 165n, 100), protective: false };
      for (let i = 0; i < BATCH && done < samples; i++, done++) {
        const started = performance.now();
        await check.check(request);
        ms.push(performance.now() - started);
      }
    }
  } finally {
    await client.close();
  }
  ms.sort((a, b) => a - b);
  return { checks: { count: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms.at(-1) ?? Number.NaN }, outcomes };
}
