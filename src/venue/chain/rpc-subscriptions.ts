import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { z } from 'zod';
import type { Logger } from '../../kernel/logger.ts';
import type { VenueChain } from './chain.ts';
import type { ConfirmationStatus } from './landed.ts';
import { commitment, signatureParam } from './rpc-method.ts';
import { errorResponse, rpcRequest, RPC_CODES, RpcError, stringifyRpc, type RpcId } from './rpc-protocol.ts';

/** Slots between a slot and its root, as the chain finalizes (FINALIZED_AFTER_SLOTS). */
const ROOT_DISTANCE = 32;
const RANK: Readonly<Record<ConfirmationStatus, number>> = { processed: 0, confirmed: 1, finalized: 2 };

/** Legacy commitment names mapped to the three levels; real nodes default to finalized. */
function level(name: z.infer<typeof commitment> | undefined): ConfirmationStatus {
  if (name === 'processed' || name === 'recent') return 'processed';
  if (name === 'confirmed' || name === 'single' || name === 'singleGossip') return 'confirmed';
  return 'finalized';
}

type Subscription =
  | { kind: 'signature'; signature: string; commitment: ConfirmationStatus; received: boolean; announceReceived: boolean }
  | { kind: 'slot'; lastSlot: number }
  | { kind: 'root'; lastRoot: number };

const signatureParams = z.tuple([
  signatureParam,
  z.object({ commitment: commitment.optional(), enableReceivedNotification: z.boolean().optional() }).nullish(),
]);
const unsubscribeParams = z.tuple([z.number().int().nonnegative()]);

const UNSUBSCRIBE: Readonly<Record<string, Subscription['kind']>> = {
  signatureUnsubscribe: 'signature',
  slotUnsubscribe: 'slot',
  rootUnsubscribe: 'root',
};

export interface SubscriptionEndpoint {
  /** Routes a websocket upgrade of `server` to this endpoint. */
  attach(server: HttpServer): void;
  /** Open websocket connections (web3.js closes its own about 0.5 s after its last unsubscribe). */
  clientCount(): number;
  close(): void;
}

/**
 * The pubsub side of the venue's node (signatureSubscribe, slotSubscribe, rootSubscribe and
 * their unsubscribes), so web3.js `confirmTransaction` and `onSlotChange` work. Slot-driven
 * notifications come from polling the chain every `pollMs`, only while someone listens.
 */
export function createSubscriptionEndpoint(chain: VenueChain, opts: { logger: Logger; pollMs?: number }): SubscriptionEndpoint {
  const wss = new WebSocket.Server({ noServer: true });
  const clients = new Map<WebSocket, Map<number, Subscription>>();
  let nextId = 0;
  let timer: NodeJS.Timeout | undefined;

  const send = (socket: WebSocket, message: unknown): void => {
    if (socket.readyState === WebSocket.OPEN) socket.send(stringifyRpc(message));
  };
  const notify = (socket: WebSocket, method: string, subscription: number, result: unknown): void => {
    send(socket, { jsonrpc: '2.0', method, params: { result, subscription } });
  };

  /** Sends what each subscription is owed now; one-shot signature subscriptions end here. */
  const poll = (): void => {
    const slot = chain.slot();
    for (const [socket, subscriptions] of clients) {
      for (const [id, sub] of subscriptions) {
        if (sub.kind === 'slot' && slot > sub.lastSlot) {
          sub.lastSlot = slot;
          notify(socket, 'slotNotification', id, { parent: slot - 1, slot, root: slot - ROOT_DISTANCE });
        } else if (sub.kind === 'root' && slot - ROOT_DISTANCE > sub.lastRoot) {
          sub.lastRoot = slot - ROOT_DISTANCE;
          notify(socket, 'rootNotification', id, sub.lastRoot);
        } else if (sub.kind === 'signature') {
          const status = chain.getSignatureStatus(sub.signature, { searchTransactionHistory: true });
          if (!status) continue;
          if (sub.announceReceived && !sub.received) {
            sub.received = true;
            notify(socket, 'signatureNotification', id, { context: { slot }, value: 'receivedSignature' });
          }
          if (RANK[status.confirmationStatus] < RANK[sub.commitment]) continue;
          notify(socket, 'signatureNotification', id, { context: { slot }, value: { err: status.err } });
          subscriptions.delete(id);
        }
      }
    }
    const listening = [...clients.values()].some((subs) => subs.size > 0);
    if (!listening && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  const subscribe = (socket: WebSocket, sub: Subscription): number => {
    nextId += 1;
    clients.get(socket)?.set(nextId, sub);
    if (!timer) {
      timer = setInterval(poll, opts.pollMs ?? 20);
      timer.unref();
    }
    return nextId;
  };

  const call = (socket: WebSocket, method: string, params: readonly unknown[]): unknown => {
    const parse = <S extends z.ZodType>(schema: S): z.infer<S> => {
      const parsed = schema.safeParse(params);
      if (!parsed.success) throw new RpcError(RPC_CODES.invalidParams, `Invalid params: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return parsed.data;
    };
    if (method === 'signatureSubscribe') {
      const [signature, config] = parse(signatureParams);
      const announceReceived = config?.enableReceivedNotification ?? false;
      return subscribe(socket, { kind: 'signature', signature, commitment: level(config?.commitment), received: false, announceReceived });
    }
    if (method === 'slotSubscribe') return subscribe(socket, { kind: 'slot', lastSlot: chain.slot() });
    if (method === 'rootSubscribe') return subscribe(socket, { kind: 'root', lastRoot: chain.slot() - ROOT_DISTANCE });
    const kind = Object.hasOwn(UNSUBSCRIBE, method) ? UNSUBSCRIBE[method] : undefined;
    if (kind === undefined) throw new RpcError(RPC_CODES.methodNotFound, 'Method not found');
    const [id] = parse(unsubscribeParams);
    const subscriptions = clients.get(socket);
    if (subscriptions?.get(id)?.kind !== kind) throw new RpcError(RPC_CODES.invalidParams, 'Invalid subscription id.');
    subscriptions.delete(id);
    return true;
  };

  const onMessage = (socket: WebSocket, text: string): void => {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      send(socket, errorResponse(null, new RpcError(RPC_CODES.parseError, 'Parse error')));
      return;
    }
    const parsed = rpcRequest.safeParse(body);
    if (!parsed.success) {
      send(socket, errorResponse(null, new RpcError(RPC_CODES.invalidRequest, 'Invalid Request')));
      return;
    }
    const { id, method, params } = parsed.data;
    if (id === undefined) return; // notifications (web3.js sends a 'ping' every few seconds)
    const replyId: RpcId = id;
    try {
      send(socket, { jsonrpc: '2.0', id: replyId, result: call(socket, method, params ?? []) });
    } catch (error) {
      if (!(error instanceof RpcError)) {
        opts.logger.error({ err: error, method }, 'venue rpc: subscription method failed unexpectedly');
      }
      send(socket, errorResponse(replyId, error instanceof RpcError ? error : new RpcError(RPC_CODES.internalError, 'Internal error')));
    }
  };

  wss.on('connection', (socket: WebSocket) => {
    clients.set(socket, new Map());
    socket.on('message', (data) => onMessage(socket, data.toString()));
    socket.on('close', () => clients.delete(socket));
    socket.on('error', (error) => opts.logger.debug({ err: error }, 'venue rpc: websocket error'));
  });

  return {
    attach(server) {
      server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
        wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
      });
    },
    clientCount() {
      return clients.size;
    },
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      for (const socket of clients.keys()) socket.terminate();
      clients.clear();
      wss.close();
    },
  };
}
