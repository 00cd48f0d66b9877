import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationIds, operations } from '../../src/api/registry.ts';
import { runCli } from '../support/cli.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { SAMPLES } from './samples.ts';

const dir = mkdtempSync(join(tmpdir(), 'stratd-cli-'));

describe('stratd api list', () => {
  it('--json lists every operation with method and path', async () => {
    const { code, stdout } = await runCli(['api', 'list', '--json']);
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as Array<{ id: string; method: string; path: string }>;
    expect(rows.map((r) => r.id).sort()).toEqual([...operationIds].sort());
    const expected = [
      'tokens.ranked', 'tokens.search', 'tokens.new', 'perps.poolInfo', 'perps.positions', 'perps.collateralLimits', 'perps.limitOrders', 'perps.marketStats', 'perps.createLimitOrder', 'perps.updateLimitOrder', 'perps.cancelLimitOrder',
      'perps.trades', 'perps.traderStats', 'perps.increase', 'perps.decrease', 'perps.decreaseWithFee', 'perps.createTpsl',
      'perps.updateTpslWithFee', 'perps.updateTpsl', 'perps.cancelTpsl', 'perps.createTpslWithFee', 'perps.cancelTpslWithFee', 'perps.lpMint', 'perps.depositBorrow', 'perps.execute', 'ultra.order', 'ultra.execute',
      'trigger.createOrder', 'trigger.execute', 'trigger.cancelOrder', 'trigger.cancelOrders', 'trigger.getTriggerOrders',
      'recurring.createOrder', 'recurring.execute', 'recurring.cancelOrder', 'recurring.getRecurringOrders',
      'recurring.priceDeposit', 'studio.claimFee',
    ];
    expect(rows.map((r) => r.id).sort()).toEqual(expected.sort());
    expect(rows.find((r) => r.id === 'perps.updateTpslWithFee')).toMatchObject({ method: 'PATCH', path: '/perps/v1/tpsl-with-fee' });
    expect(rows.find((r) => r.id === 'perps.cancelTpsl')).toMatchObject({ method: 'DELETE', path: '/perps/v1/tpsl' });
    expect(rows.find((r) => r.id === 'perps.cancelLimitOrder')).toMatchObject({ method: 'DELETE', path: '/perps/v1/orders/limit' });
  });

  it('prints a table without --json', async () => {
    const { code, stdout } = await runCli(['api', 'list']);
    expect(code).toBe(0);
    expect(stdout).toContain('perps.execute');
    expect(stdout).toContain('/perps/v1/transaction/execute');
  });
});

describe('stratd api check', () => {
  it('accepts a valid body (exit 0), including one with a trailing comma as published', async () => {
    const poolInfo = join(dir, 'pool-info.json');
    writeFileSync(poolInfo, SAMPLES['perps.poolInfo'].responseText);
    expect((await runCli(['api', 'check', 'perps.poolInfo', poolInfo])).code).toBe(0);
    // The published cancelOrders sample ends its array with a comma; the parser accepts that.
    const cancel = join(dir, 'cancel-orders.json');
    writeFileSync(cancel, '{\n  "requestId": "5f0c8a52-3a0e-4d55-9b1e-6c2f7d1e9a40",\n  "transactions": ["AQ==", "AQ==",],\n}\n');
    expect((await runCli(['api', 'check', 'trigger.cancelOrders', cancel])).code).toBe(0);
  });

  it('rejects an invalid body with each failing field path (exit 1)', async () => {
    const body = JSON.parse(SAMPLES['perps.positions'].responseText) as { dataList: Array<Record<string, unknown>> };
    body.dataList[0]!.sizeUsd = '12.5';
    delete body.dataList[0]!.positionPubkey;
    const file = join(dir, 'bad-positions.json');
    writeFileSync(file, JSON.stringify(body));
    const { code, stdout } = await runCli(['api', 'check', 'perps.positions', file]);
    expect(code).toBe(1);
    expect(stdout).toContain('dataList.0.positionPubkey');
    expect(stdout).toContain('dataList.0.sizeUsd');
  });

  it('rejects an HTML page and an unknown operation', async () => {
    const file = join(dir, 'page.json');
    writeFileSync(file, '<html>nope</html>');
    expect((await runCli(['api', 'check', 'perps.poolInfo', file])).code).toBe(1);
    expect((await runCli(['api', 'check', 'perps.nope', file])).code).toBe(2);
  });
});

describe('stratd api call', () => {
  const server = new RecordingServer();
  let url = '';
  beforeAll(async () => {
    url = await server.start();
  });
  afterAll(async () => server.stop());

  it('calls the configured API with the key and prints the validated response', async () => {
    server.responder = () => ({ body: SAMPLES['perps.poolInfo'].responseText });
    const { code, stdout, stderr } = await runCli(
      ['api', 'call', 'perps.poolInfo', '--params', '{"mint":"So11111111111111111111111111111111111111112"}'],
      { env: { STRATD_API_BASE_URL: url, STRATD_API_KEY: 'cli-secret-key' } },
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ openFeePercent: '0.06' });
    expect(server.requests[0]!.headers['x-api-key']).toBe('cli-secret-key');
    expect(stdout + stderr).not.toContain('cli-secret-key');
  });

  it('refuses to build the deprecated recurring price deposit, naming the deprecation, and calls nothing', async () => {
    const before = server.requests.length;
    const params = JSON.stringify({ user: 'So11111111111111111111111111111111111111112', order: 'So11111111111111111111111111111111111111112', amount: 1 });
    const { code, stderr } = await runCli(['api', 'call', 'recurring.priceDeposit', '--params', params], { env: { STRATD_API_BASE_URL: url } });
    expect(code).toBe(2);
    expect(stderr).toContain('recurring.priceDeposit (POST /recurring/v1/priceDeposit) is deprecated by the service');
    expect(server.requests).toHaveLength(before);
  });

  it('sends an amount beyond 2^53 in --params exactly as given', async () => {
    server.responder = () => ({ body: '{"transaction":"AQID"}' });
    const before = server.requests.length;
    const params = '{"ownerWallet":"So11111111111111111111111111111111111111112","poolAddress":"So11111111111111111111111111111111111111112","maxQuoteAmount":9007199254740993}';
    const { code, stderr } = await runCli(['api', 'call', 'studio.claimFee', '--params', params], { env: { STRATD_API_BASE_URL: url } });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(server.requests[before]!.bodyText).toContain('"maxQuoteAmount":9007199254740993');
  });

  it('reports an invalid request with the field and exit 1', async () => {
    const { code, stderr } = await runCli(['api', 'call', 'perps.poolInfo', '--params', '{"mint":"nope"}'], { env: { STRATD_API_BASE_URL: url } });
    expect(code).toBe(1);
    expect(stderr).toContain('"path": "mint"');
  });
});

describe('schemas', () => {
  it('every operation has a request and a response schema and a lite flag matching the spec', () => {
    const lite = operationIds.filter((id) => operations[id].lite).sort();
    expect(lite).toEqual(['perps.decrease', 'perps.decreaseWithFee', 'perps.trades']);
  });
});
