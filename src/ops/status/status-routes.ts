import { randomBytes } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkControlToken } from '../control-token.ts';
import { html } from './html.ts';
import { renderStatusPage } from './status-page.ts';
import type { StatusView } from './status-view.ts';
import { hasSession, sessionCookie } from './viewer-session.ts';

interface StatusRoutesOptions {
  /** ops.controlToken; empty: no session can be opened and /queues stays closed. */
  readonly controlToken: string;
  readonly queues: ReadonlyMap<string, Queue>;
  /** The control endpoints' own check (answers the refusal, or nothing when authorised). */
  readonly authorise: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  readonly readView: () => Promise<StatusView>;
}

/** Where the queue UI is mounted. */
const QUEUE_UI_PATH = '/queues';

const QUEUE_UI_CLOSED = html`<!doctype html><title>stratd queues</title><p>The queue UI needs the control token: enter it on the <a href="/">status page</a> and press “Queue UI”.</p>`.text;

/**
 * The browser side of the ops server: the status page at `/` (read-only, like /status), a
 * viewer session (POST /ops/session with the Bearer token sets an HttpOnly cookie) and the
 * bull-board queue UI at /queues, open only to that session or the Bearer token. The queue UI is
 * read-only: jobs are the executor's input, and retrying or deleting one by hand is not an
 * operator's kill switch (that is pause / resume).
 */
export async function registerStatusRoutes(app: FastifyInstance, options: StatusRoutesOptions): Promise<void> {
  app.get('/', async (_request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    const page = renderStatusPage(await options.readView(), nonce, { controls: options.controlToken !== '' });
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('content-security-policy', `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`)
      .send(page);
  });

  app.post('/ops/session', { preHandler: options.authorise }, async (_request, reply) => {
    return reply.header('set-cookie', sessionCookie(options.controlToken)).code(204).send();
  });

  // Without a control token nobody can open the queue UI: its code (~10 MB of RSS) is not loaded.
  if (options.controlToken === '') {
    app.get(`${QUEUE_UI_PATH}*`, async (_request, reply) => reply.code(401).header('content-type', 'text/html; charset=utf-8').send(QUEUE_UI_CLOSED));
    return;
  }
  const [{ createBullBoard }, { BullMQAdapter }, { FastifyAdapter }] = await Promise.all([import('@bull-board/api'), import('@bull-board/api/bullMQAdapter'), import('@bull-board/fastify')]);
  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_UI_PATH);
  createBullBoard({
    queues: [...options.queues.values()].map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'stratd queues' } },
  });
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      if (hasSession(options.controlToken, request.headers.cookie)) return;
      if (options.controlToken !== '' && checkControlToken(options.controlToken, request.headers.authorization) === undefined) return;
      return reply.code(401).header('content-type', 'text/html; charset=utf-8').send(QUEUE_UI_CLOSED);
    });
    await scope.register(board.registerPlugin(), { prefix: QUEUE_UI_PATH });
  });
}
