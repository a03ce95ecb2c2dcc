// A callback receiver on 127.0.0.1 for the tests: records every request (headers and raw
// body), answers as a script says (status, headers, a delay, a held answer), can be stopped
// and started again on the same port (a receiver that is down), and checks signatures with
// the standardwebhooks package.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { listenRestartable } from '../support/restartable-port.js';

export interface ReceivedWebhook {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed as JSON. */
  readonly json: Record<string, unknown>;
}

export interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Held until this resolves (a slow receiver). */
  readonly hold?: Promise<void>;
}

export type Script = (request: ReceivedWebhook, index: number) => Answer;

export interface WebhookReceiver {
  readonly port: number;
  /** `http://127.0.0.1:<port><path>`. */
  url(path?: string): string;
  readonly received: ReceivedWebhook[];
  /** Requests that arrived but are not answered yet. */
  readonly open: number;
  script: Script;
  /** Stops listening (connection refused from then on); keeps what was received. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** Listens on `port` (0: any), or, given 'restartable', on a port it can come back to (restartable-port.ts). */
export async function startWebhookReceiver(
  script: Script = () => ({ status: 204 }),
  port: number | 'restartable' = 0,
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let open = 0;
  let server: Server | null = null;
  const sockets = new Set<import('node:net').Socket>();
  const state = { script };

  const listen = async (on: number): Promise<number> => {
    const s = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          // recorded as it came
        }
        const request = { path: req.url ?? '/', headers: req.headers, body, json };
        received.push(request);
        open++;
        void answer(res, state.script(request, received.length - 1)).finally(() => open--);
      });
    });
    s.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(on, '127.0.0.1', () => resolve());
    });
    server = s;
    return (s.address() as AddressInfo).port;
  };

  const actualPort = port === 'restartable' ? await listenRestartable(listen) : await listen(port);
  const stop = async () => {
    const s = server;
    server = null;
    if (s === null) return;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  return {
    port: actualPort,
    url: (path = '/hook') => `http://127.0.0.1:${actualPort}${path}`,
    received,
    get open() {
      return open;
    },
    get script() {
      return state.script;
    },
    set script(next: Script) {
      state.script = next;
    },
    down: stop,
    async up() {
      if (server === null) await listen(actualPort);
    },
    close: stop,
  };
}

async function answer(res: ServerResponse, a: Answer): Promise<void> {
  if (a.hold !== undefined) await a.hold;
  if (res.destroyed) return;
  res.writeHead(a.status, a.headers ?? {});
  res.end(a.body ?? '');
}

/** Verifies one request with the standardwebhooks package; returns the parsed payload. */
export function verifyWebhook(secret: string, request: ReceivedWebhook, format?: 'raw'): unknown {
  const webhook = format === 'raw' ? new Webhook(secret, { format: 'raw' }) : new Webhook(secret);
  return webhook.verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });
}

/** The standardwebhooks package's own signature for a request at the timestamp it carries. */
export function expectedSignature(secret: string, request: ReceivedWebhook): string {
  const seconds = Number(request.headers['webhook-timestamp']);
  return new Webhook(secret).sign(
    String(request.headers['webhook-id']),
    new Date(seconds * 1000),
    request.body,
  );
}
