import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: IncomingMessage['headers'];
  readonly bodyText: string;
  readonly atMs: number;
}

export interface Reply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Never answer (a hang). */
  readonly hang?: boolean;
}

export type Responder = (req: RecordedRequest, index: number) => Reply | Promise<Reply>;

/**
 * A real HTTP server on loopback that records every request and answers with a scripted
 * reply: the client under test talks to a socket, not a mock.
 */
export class RecordingServer {
  readonly requests: RecordedRequest[] = [];
  private server?: Server;
  private readonly hanging = new Set<ServerResponse>();
  responder: Responder = () => ({ status: 200, body: '{}' });

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const recorded: RecordedRequest = {
          method: req.method ?? '',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          bodyText: Buffer.concat(chunks).toString('utf8'),
          atMs: Date.now(),
        };
        this.requests.push(recorded);
        void Promise.resolve(this.responder(recorded, this.requests.length - 1)).then((reply) => {
          if (reply.hang) {
            this.hanging.add(res);
            return;
          }
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
          res.end(reply.body ?? '');
        });
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}
