// Run by test/http/log-injection.test.ts, on a pseudo-terminal (script -qc) or a pipe: the real
// logger (pino-pretty on a terminal, JSON elsewhere) and the real HTTP frame and ticket route,
// asked what issue 29's attacker asked: a ticketID carrying a newline and a forged record, a key
// pasted as a ticketID and as a history address, and a key in `auth_token[]=`.
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { transferRoutes } from '../../src/http/routes/transfer-routes.js';
import { createLogger } from '../../src/process/logger.js';
import type { ApiContext } from '../../src/usecases/context.js';
import { InMemoryApiKeyVerifier } from './in-memory-api-keys.js';

export const PASTED_KEY = 'tp_Zm9yZ2VkLWtleS1wYXN0ZWQtYXMtYW4taWQtMTIzNDU2';
export const FORGED = '[08:10:00.000] INFO: admin key rotated by operator';

const logger = createLogger({ level: 'info', pretty: process.stdout.isTTY === true });
const db = { query: async () => [], transaction: async () => undefined, dialect: 'pglite' };
const app = buildApp({
  config: loadConfig({ argv: [], env: {} }),
  logger,
  apiKeys: new InMemoryApiKeyVerifier([]),
  readiness: async () => ({ ready: true }),
  routes: [
    transferRoutes({
      ctx: { db, now: () => new Date() } as unknown as ApiContext,
      masterKey: new Uint8Array(32),
      environment: 'sandbox',
      maxAddresses: 10,
    }),
  ],
});
const ask = (url: string) => app.inject({ method: 'GET', url });
await ask(`/v2/ticket?ticketID=${encodeURIComponent(`\n${FORGED}`)}`);
await ask(`/v2/ticket?ticketID=${PASTED_KEY}`);
await ask(`/v2/history/${PASTED_KEY}`);
await ask(`/v2/ticket?ticketID=x&auth_token[]=${PASTED_KEY}`);
await ask(`/v2/ticket?ticketID=x&Auth_Token=${PASTED_KEY}`);
await ask(`/v2/ticket?ticketID=x&auth%5Ftoken=${PASTED_KEY}`);
await app.close();
