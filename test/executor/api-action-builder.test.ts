import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { ApiActionBuilder } from '../../src/pipeline/executor/api-action-builder.ts';
import { RecordingServer } from '../support/recording-server.ts';

/**
 * Routing of trigger builds by the reply's shape: with a request id through the trigger execute
 * operation, and in the oldest documented shape ({order, tx}, no id) through the RPC — never an
 * execute call with no request id.
 */
const server = new RecordingServer();
let builder: ApiActionBuilder;
let client: ApiClient;
const ORDER = Keypair.generate().publicKey.toBase58();
const record = {
  intent: { type: 'trigger-create', key: 'k', reason: 'test', notionalUsd: '5000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '5000000', takingAmount: '30000000' },
} as unknown as ActionRecord;

beforeAll(async () => {
  client = new ApiClient({ baseUrl: await server.start(), retries: 0 });
  builder = new ApiActionBuilder({ client, wallet: Keypair.generate().publicKey, slippageBps: 50 });
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

describe('trigger build routing', () => {
  it('a reply with a request id goes through the trigger execute operation', async () => {
    server.responder = () => ({ body: JSON.stringify({ order: ORDER, transaction: 'AQ==', requestId: 'req-9' }) });
    expect(await builder.build(record)).toMatchObject({ route: 'trigger-execute', requestId: 'req-9', unsignedTx: 'AQ==' });
  });

  it('the oldest reply shape ({order, tx}, no request id) is sent through the RPC', async () => {
    server.responder = () => ({ body: JSON.stringify({ order: ORDER, tx: 'AQ==', lastValidBlockHeight: 1000 }) });
    const built = await builder.build(record);
    expect(built).toMatchObject({ route: 'rpc', unsignedTx: 'AQ==' });
    expect(built.requestId).toBeUndefined();
  });
});
