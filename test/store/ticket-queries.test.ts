// Tickets read by id and locked by a batch of verdicts, on both adapters.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { uuidv7 } from '../../src/crypto/random-id.js';
import { ticketById } from '../../src/store/tickets/ticket-queries.js';
import { lockTicketsByTxid } from '../../src/store/tickets/ticket-writes.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket } from '../support/seed-store.js';

describeOnEachDb('ticket queries', (fresh) => {
  test('ticketById returns every field', async () => {
    const createdAt = new Date('2025-03-01T10:00:00.123Z');
    const updatedAt = new Date('2025-03-01T10:00:05.456Z');
    const txid = randomTxid();
    const rawTx = new Uint8Array([1, 0, 0, 0, 9, 8, 7]);
    const id = await seedTicket(fresh.db, {
      txid,
      rawTx,
      status: 'FAILED',
      callbackUrl: 'https://example.com/hook',
      errors: 'double spend',
      apiKeyId: 'key-1',
      createdAt,
      updatedAt,
    });
    assert.deepStrictEqual(await ticketById(fresh.db, id), {
      id,
      txid,
      rawTx,
      status: 'FAILED',
      callbackUrl: 'https://example.com/hook',
      errors: 'double spend',
      createdAt,
      updatedAt,
      apiKeyId: 'key-1',
      requestId: null,
    });
    const anonymous = await seedTicket(fresh.db, {});
    const got = await ticketById(fresh.db, anonymous);
    assert.equal(got?.status, 'BROADCASTING');
    assert.equal(got?.callbackUrl, null);
    assert.equal(got?.errors, null);
    assert.equal(got?.apiKeyId, null);
  });

  test('ticketById: unknown ids and strings that are not UUIDs are not found', async () => {
    assert.equal(await ticketById(fresh.db, uuidv7()), null);
    for (const id of ['', 'nope', "'; DROP TABLE tickets; --", '0000-0000']) {
      assert.equal(await ticketById(fresh.db, id), null, id);
    }
  });

  test('ticketById accepts the id in upper case', async () => {
    const id = await seedTicket(fresh.db, {});
    assert.equal((await ticketById(fresh.db, id.toUpperCase()))?.id, id);
  });

  test('a batch of verdicts reads the transaction only of a ticket with a callback URL', async () => {
    const rawTx = new Uint8Array([1, 0, 0, 0, 4, 5, 6]);
    const [calledTxid, silentTxid] = [randomTxid(), randomTxid()];
    const called = await seedTicket(fresh.db, {
      txid: calledTxid,
      rawTx,
      callbackUrl: 'https://example.com/hook',
    });
    const silent = await seedTicket(fresh.db, { txid: silentTxid, rawTx });
    const locked = await fresh.db.transaction((tx) => lockTicketsByTxid(tx, [calledTxid, silentTxid]));
    const byId = new Map(locked.map((l) => [l.ticket.id, l]));
    assert.deepStrictEqual(byId.get(called)?.rawTx, rawTx);
    assert.equal(byId.get(silent)?.rawTx, null);
    assert.equal(byId.get(silent)?.ticket.status, 'BROADCASTING');
    assert.ok(!('rawTx' in byId.get(silent)!.ticket));
  });
});
