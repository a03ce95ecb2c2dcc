// A local HTTP receiver for ARC callbacks (127.0.0.1): records what arrives, and can hand each
// callback to a handler (the arc adapter's handleArcCallback) to answer with its status.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown>;
}

export interface CallbackReceiver {
  readonly url: string;
  readonly received: ReceivedCallback[];
  /** Resolves when a callback matching `predicate` has arrived (already or later). */
  waitFor(predicate: (c: ReceivedCallback) => boolean): Promise<ReceivedCallback>;
  close(): Promise<void>;
}

export type CallbackHandler = (
  body: unknown,
  authorization: string | undefined,
) => Promise<{ status: number }>;

export async function startCallbackReceiver(handler?: CallbackHandler): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const waiters: Array<{
    predicate: (c: ReceivedCallback) => boolean;
    resolve: (c: ReceivedCallback) => void;
  }> = [];
  const server = createServer((req, res) => {
    void readJson(req).then(async (body) => {
      const callback = { authorization: req.headers.authorization, body };
      received.push(callback);
      const status = handler === undefined ? 200 : (await handler(body, req.headers.authorization)).status;
      res.writeHead(status).end();
      for (const waiter of waiters.splice(0)) {
        if (waiter.predicate(callback)) waiter.resolve(callback);
        else waiters.push(waiter);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/arc-callback`,
    received,
    waitFor(predicate) {
      const found = received.find(predicate);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}
