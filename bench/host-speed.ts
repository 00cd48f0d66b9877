// A fixed CPU workload timed before and after a benchmark run: how fast the host was while the run
// measured. On a shared 2-core machine the same code measured 3.4 ms of CPU per landed action in
// one hour and 6.3 ms a few hours later (docs/operations.md, "Benchmark"); CPU milliseconds grow
// when the host runs slower (a busy neighbour, a lower clock), and nothing else in a report tells
// those hours apart. The workload does what an action does most, in proportion: JSON of a record,
// SHA-256 and base64 of transaction-sized bytes, bigint arithmetic, short-lived objects.
import { createHash } from 'node:crypto';

/**
 * What the workload took in the reference run: bench/daemon.ts on a 2-core Intel Xeon, Node 20.20,
 * 2026-11-26 at 14:09 UTC (958 ms before the run, 1,003 ms after), the run in which the daemon at
 * saturation spent 3.4 ms of CPU per landed action. A run on a host taking twice as long ran at
 * half that speed. (The same workload in a fresh process takes about a tenth less.)
 */
export const REFERENCE_WORKLOAD_MS = 980;

export interface HostSpeed {
  /** CPU ms the workload took, best of three, before and after the run. */
  readonly workloadMsBefore: number;
  readonly workloadMsAfter: number;
  readonly referenceMs: number;
  /** referenceMs ÷ the mean of before and after: 1 at the reference host's speed, 0.5 at half of it. */
  readonly speedIndex: number;
}

const RECORD = {
  actionId: 'act-3c8c022e1f36b31a269723cfbd6ec11232245ec3',
  strategy: 'liquidation-guard',
  intent: { type: 'decrease', key: 'decrease:7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU', positionPubkey: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU', sizeUsdDelta: '125000000', notionalUsd: '125000000' },
  state: 'signed',
  txMetadata: { blockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N', lastValidBlockHeight: '291500150' },
  sendCount: 0,
};
const BYTES = Buffer.alloc(1_100, 7);
const P = 2n ** 255n - 19n;

/** One round of the workload; answers a number so that nothing is optimised away. */
function round(i: number): number {
  const json = JSON.stringify({ ...RECORD, updatedAtMs: i, signedTx: BYTES.toString('base64') });
  const back = JSON.parse(json) as { signedTx: string; sendCount: number };
  const digest = createHash('sha256').update(Buffer.from(back.signedTx, 'base64')).digest();
  let x = BigInt(`0x${digest.toString('hex')}`) % P;
  for (let k = 0; k < 20; k++) x = (x * x + 1n) % P;
  return Number(x & 0xffn) + back.sendCount;
}

/** CPU ms of one pass of `rounds` rounds. */
function pass(rounds: number): number {
  const start = process.cpuUsage();
  let sink = 0;
  for (let i = 0; i < rounds; i++) sink += round(i);
  const used = process.cpuUsage(start);
  if (sink < 0) throw new RangeError('unreachable');
  return (used.user + used.system) / 1000;
}

/** The workload's CPU ms, the best of three passes (the least disturbed). */
export function timeWorkload(rounds = 40_000): number {
  pass(2_000); // warm the JIT
  return Math.min(pass(rounds), pass(rounds), pass(rounds));
}

export function hostSpeed(workloadMsBefore: number, workloadMsAfter: number): HostSpeed {
  return { workloadMsBefore, workloadMsAfter, referenceMs: REFERENCE_WORKLOAD_MS, speedIndex: REFERENCE_WORKLOAD_MS / ((workloadMsBefore + workloadMsAfter) / 2) };
}
