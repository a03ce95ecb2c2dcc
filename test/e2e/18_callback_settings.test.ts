// The deliverer's settings come from the configuration: with `--callback-timeout-ms 1000` an
// attempt at a receiver that accepts the connection and never answers is cut at 1 s and recorded
// as such (it was a fixed 10 s), and the connection is closed.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { appendTicketEvent } from '../../src/store/tickets/ticket-writes.js';
import { seedTicket } from '../support/seed-store.js';
import { eventually, startTestService, type TestService } from './support.js';

describe('callback settings from the configuration', () => {
  let t: TestService;
  const sockets: Socket[] = [];
  let closed = 0;
  const hanging = createServer((socket) => {
    sockets.push(socket);
    socket.on('close', () => {
      closed++;
    });
  });
  let port = 0;

  before(async () => {
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', () => resolve()));
    port = (hanging.address() as { port: number }).port;
    t = await startTestService(['--callback-allow', '127.0.0.1', '--callback-timeout-ms', '1000']);
  });

  after(async () => {
    await t?.stop();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => hanging.close(resolve));
  });

  it('cuts an attempt at callbackTimeoutMs and closes its connection', async () => {
    assert.equal(t.service.parts.config.callbackTimeoutMs, 1000);
    const { db } = t.service.parts;
    const ticketId = await seedTicket(db, {
      status: 'SUCCESS',
      callbackUrl: `http://127.0.0.1:${port}/hook`,
    });
    await db.transaction((tx) => appendTicketEvent(tx, ticketId, new Date()));
    const attempt = await eventually(async () => {
      const rows = await db.query<{ error: string | null; status_code: number | null }>(
        `SELECT a.error, a.status_code FROM delivery_attempts a
           JOIN events e ON e.id = a.event_id WHERE e.ticket_id = $1`,
        [ticketId],
      );
      return rows[0];
    }, 'the attempt at the hanging receiver');
    assert.equal(attempt.status_code, null);
    assert.equal(attempt.error, 'no answer within 1000 ms');
    await eventually(async () => (closed >= 1 ? true : undefined), 'the connection closed');
  });
});
