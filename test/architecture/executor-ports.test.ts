// The executor reaches the world through its ports (src/pipeline/executor/ports.ts): the state
// machine, its admission and its bookkeeping name no API or RPC client, not even as a type. The
// adapters (the routed submitter, the builders, the keeper's fill watch) do; the daemon wires them.
import { describe, expect, it } from 'vitest';
import { importGraph, rel } from './import-graph.ts';

/** The executor's own files: its facade, options and worker (executor*.ts) and the parts the facade is made of. */
const EXECUTOR_PARTS = /^pipeline\/executor\/(executor[^/]*|action-scheduler|step-machine|preparation-steps|action-bookkeeping|submitted-watch)\.ts$/;
const CLIENTS = ['api/client.ts', 'chain/rpc-client.ts'];

describe('the executor behind its ports', () => {
  const graph = importGraph();
  const parts = [...graph.keys()].map(rel).filter((f) => EXECUTOR_PARTS.test(f));

  it('covers the files it means to (a rename must not leave it checking nothing)', () => {
    expect(parts).toEqual(expect.arrayContaining([
        'pipeline/executor/executor.ts',
        'pipeline/executor/executor-options.ts',
        'pipeline/executor/executor-worker.ts',
        'pipeline/executor/action-scheduler.ts',
        'pipeline/executor/step-machine.ts',
        'pipeline/executor/preparation-steps.ts',
        'pipeline/executor/action-bookkeeping.ts',
        'pipeline/executor/submitted-watch.ts',
      ]));
  });

  it('no part of the executor imports the API client or the RPC client (types included): sends go through the Submitter, reads through ChainReads', () => {
    const edges = [...graph].filter(([from]) => EXECUTOR_PARTS.test(rel(from))).flatMap(([from, targets]) => targets.map(rel).filter((to) => CLIENTS.includes(to)).map((to) => `${rel(from)} -> ${to}`));
    expect(edges).toEqual([]);
  });
});
