// Issue 29: errors are told by the port they came through, never by their message. A JSON-RPC
// node that refuses connections (the venue's real RPC server, stopped) is "rpc unreachable",
// not "redis unreachable"; a burst of it is one line per interval with a count, and a different
// failure meanwhile is told at once.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.ts';
import { maskUrlSecrets } from '../../src/config/mask-url.ts';
import { notifyEventSchema, type NotifyEventInput } from '../../src/kernel/notify-event.ts';
import { RpcTransportError } from '../../src/chain/rpc-errors.ts';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import { CallFailureLog, observingReplies } from '../../src/pipeline/call-failure-log.ts';
import { RedisOutageLog } from '../../src/pipeline/redis-outage.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { capturedLogger } from '../support/captured-logger.ts';

interface Line {
  msg: string;
  rpc?: string;
  repeated?: number;
  failedCalls?: number;
  err?: { kind?: string; status?: number };
}

describe('failed calls in the log, by source', () => {
  it('an RPC node refusing connections is "rpc unreachable", once per interval with a count; a different failure is told at once', { timeout: 30_000 }, async () => {
    const venue = await startVenue({ seed: 291 });
    const rpcUrl = venue.rpcUrl;
    await venue.close();
    const chain = new ChainClient(rpcUrl, 'confirmed', true, undefined, 3_000, 0);
    const refused = await chain.blockHeight().then(
      () => undefined,
      (error: unknown) => error,
    );
    // The transport says what it is, by class.
    expect(refused).toBeInstanceOf(RpcTransportError);
    expect((refused as RpcTransportError).kind).toBe('network');
    const viaWeb3 = await chain.connection.getSlot().then(
      () => undefined,
      (error: unknown) => error,
    );

    const captured = capturedLogger('info');
    let t = 1_000_000;
    const raised: NotifyEventInput[] = [];
    const notifier = { notify: async (event: NotifyEventInput) => void raised.push(event) };
    const calls = new CallFailureLog(captured.logger, { endpoints: { rpc: maskUrlSecrets(rpcUrl) }, intervalMs: 60_000, now: () => t, notifier });
    const outage = new RedisOutageLog(captured.logger, { calls });
    const lines = () => captured.lines.map((l) => JSON.parse(l) as Line);

    expect(outage.absorbs(refused, { actionId: 'a1' })).toBe(true);
    expect(outage.absorbs(viaWeb3, { actionId: 'a1' })).toBe(true);
    for (let i = 0; i < 5; i++) expect(outage.absorbs(refused)).toBe(true);
    expect(lines().map((l) => l.msg)).toEqual([expect.stringMatching(/^rpc unreachable/)]);
    expect(lines()[0]?.rpc).toBe(maskUrlSecrets(rpcUrl));

    // A different failure (the API refusing a call) is told at once, whatever the RPC burst.
    const apiRefusal = new ApiError({ kind: 'http', operationId: 'perps.poolInfo', status: 503 });
    expect(outage.absorbs(apiRefusal)).toBe(true);
    expect(lines().at(-1)?.msg).toBe('api call failed');

    // After the interval the burst is told again, with what happened since.
    t += 60_000;
    expect(outage.absorbs(refused)).toBe(true);
    expect(lines().filter((l) => l.msg.startsWith('rpc unreachable')).map((l) => l.repeated)).toEqual([undefined, 6]);
    expect(lines().some((l) => l.msg.startsWith('redis'))).toBe(false);

    // A reply ends the outage, in one line.
    outage.callSucceeded('rpc');
    expect(lines().at(-1)).toMatchObject({ msg: 'rpc reachable again', failedCalls: 8 });
    // Told to the operator once when it started and once when it ended.
    expect(raised.map((e) => [e.kind, e.severity])).toEqual([
      ['rpc_unreachable', 'critical'],
      ['rpc_unreachable', 'warning'],
    ]);
    expect(notifyEventSchema.safeParse(raised[0]).success).toBe(true);
  });

  it('an RPC outage ends with the first reply the node gives the chain client', { timeout: 30_000 }, async () => {
    const first = await startVenue({ seed: 292 });
    const rpcPort = Number(new URL(first.rpcUrl).port);
    await first.close();
    const captured = capturedLogger('info');
    const outage = new RedisOutageLog(captured.logger, { calls: new CallFailureLog(captured.logger, { endpoints: { rpc: maskUrlSecrets(first.rpcUrl) } }) });
    const chain = new ChainClient(first.rpcUrl, 'confirmed', true, observingReplies(undefined, () => outage.callSucceeded('rpc')), 3_000, 0);
    const refused = await chain.blockHeight().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(outage.absorbs(refused)).toBe(true);
    const again = await startVenue({ seed: 292, rpcPort });
    try {
      await chain.blockHeight();
      const messages = captured.lines.map((l) => (JSON.parse(l) as Line).msg);
      expect(messages).toEqual([expect.stringMatching(/^rpc unreachable/), 'rpc reachable again']);
    } finally {
      await again.close();
    }
  });

  it('an error of no known port is left to the caller while Redis is up (never absorbed by its message)', () => {
    const captured = capturedLogger('info');
    const outage = new RedisOutageLog(captured.logger);
    const looksLikeRedis = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    expect(outage.absorbs(looksLikeRedis)).toBe(false);
    expect(captured.lines).toEqual([]);
  });
});
