// The 001_init schema on both adapters: defaults, checks, cascades, and that the indexes
// fit the queries they were made for (planner told to avoid sequential scans, then the
// plan must name the index; no timing involved).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Db, Queryable, SqlValue } from '../../src/store/db/db.js';
import { SqlState, sqlStateOf } from '../../src/store/db/sql-error.js';
import { nextScores } from '../../src/store/feed/score.js';
import { KEPT_BALANCES } from '../../src/store/wallets/address-balances.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';

const TXID_A = 'a'.repeat(64);
const TXID_B = 'b'.repeat(64);
const TICKET = '01890a5d-ac96-774b-bcce-b302099a8057';

async function planOf(db: Db, sql: string, params: readonly SqlValue[] = []): Promise<string> {
  return db.transaction(async (tx: Queryable) => {
    await tx.query('SET LOCAL enable_seqscan = off');
    const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

describeOnEachDb('schema', (fresh) => {
  before(async () => {
    await fresh.db.transaction(async (tx) => {
      const [a, b] = await nextScores(tx, 2);
      await tx.query(
        "INSERT INTO transactions (txid, raw_tx, receivers, outs, state, score) VALUES ($1, $2, $3, $4, 'mined', $5)",
        [TXID_A, new Uint8Array([1]), ['alice', 'bob'], [0, 1, 2], a!],
      );
      await tx.query(
        "INSERT INTO transactions (txid, raw_tx, senders, receivers, outs, state, score) VALUES ($1, $2, $3, $4, $5, 'unconfirmed', $6)",
        [TXID_B, new Uint8Array([2]), ['alice'], ['carol'], [0], b!],
      );
      await tx.query(
        `INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, score) VALUES
           ($1, 0, 'alice', 100000000000000000000, 'deploy+mint', '\\x51', 1, $2),
           ($1, 1, 'alice', 5, 'transfer', '\\x51', 1, $2),
           ($1, 2, 'bob', 7, 'transfer', '\\x51', 1, $2),
           ($3, 0, 'carol', 5, 'transfer', '\\x51', 1, $4)`,
        [TXID_A, a!, TXID_B, b!],
      );
      await tx.query('UPDATE token_outputs SET spent_by = $1 WHERE txid = $2 AND vout = 1', [TXID_B, TXID_A]);
      await tx.query(
        `INSERT INTO tickets (id, txid, raw_tx, status, status_rank, next_check_at)
         VALUES ($1, $2, '\\x02', 'BROADCASTING', 10, now())`,
        [TICKET, TXID_B],
      );
      await tx.query(
        `INSERT INTO funding_outputs (txid, vout, satoshis, script, state) VALUES
           ($1, 10, 50, '\\x51', 'available'), ($1, 11, 500, '\\x51', 'available'),
           ($1, 12, 200, '\\x51', 'available'), ($1, 13, 300, '\\x51', 'spent')`,
        [TXID_A],
      );
    });
  });

  test('transactions get the unconfirmed defaults of the sync record', async () => {
    const [row] = await fresh.db.query(
      'SELECT senders, height, idx, blk_hash, blk_time FROM transactions WHERE txid = $1',
      [TXID_A],
    );
    assert.deepStrictEqual(row, { senders: [], height: 0, idx: 0, blk_hash: '', blk_time: '0' });
  });

  test('states outside the listed values are refused', async () => {
    const err = await fresh.db
      .query("UPDATE transactions SET state = 'lost' WHERE txid = $1", [TXID_A])
      .catch((e: unknown) => e);
    assert.equal(sqlStateOf(err), SqlState.CHECK_VIOLATION);
  });

  test('spendable outputs and balance exclude spent and reserved outputs', async () => {
    const balance =
      'SELECT coalesce(sum(amount), 0) AS amt FROM token_outputs WHERE owner = $1 AND spent_by IS NULL AND reserved_by IS NULL';
    assert.deepStrictEqual(await fresh.db.query(balance, ['alice']), [{ amt: '100000000000000000000' }]);
    await fresh.db.query('UPDATE token_outputs SET reserved_by = $1 WHERE txid = $2 AND vout = 0', [
      TICKET,
      TXID_A,
    ]);
    assert.deepStrictEqual(await fresh.db.query(balance, ['alice']), [{ amt: '0' }]);
    // Released by the write path (no key from outputs to tickets since migration 039: a batch's
    // losers release their inputs before their tickets go).
    await fresh.db.query('UPDATE token_outputs SET reserved_by = NULL WHERE reserved_by = $1', [TICKET]);
    assert.deepStrictEqual(await fresh.db.query(balance, ['alice']), [{ amt: '100000000000000000000' }]);
  });

  test('the smallest available funding output of at least N satoshis', async () => {
    const sql =
      "SELECT vout, satoshis FROM funding_outputs WHERE state = 'available' AND satoshis >= $1 ORDER BY satoshis, txid, vout LIMIT 1";
    assert.deepStrictEqual(await fresh.db.query(sql, [100]), [{ vout: 12, satoshis: '200' }]);
    assert.deepStrictEqual(await fresh.db.query(sql, [501]), []);
  });

  test('events are unique per webhook id and per (ticket, seq), and go with their ticket', async () => {
    const ticket = '01890a5d-ac96-774b-bcce-b302099a8058';
    await fresh.db.query(
      "INSERT INTO tickets (id, txid, raw_tx, status, status_rank) VALUES ($1, $2, '\\x02', 'SUCCESS', 20)",
      [ticket, 'c'.repeat(64)],
    );
    const insert = 'INSERT INTO events (ticket_id, webhook_id, seq, payload) VALUES ($1, $2, $3, $4)';
    await fresh.db.query(insert, [ticket, 'msg_1', 1, '{"status":"SUCCESS"}']);
    const dupSeq = await fresh.db.query(insert, [ticket, 'msg_2', 1, '{}']).catch((e: unknown) => e);
    const dupId = await fresh.db.query(insert, [ticket, 'msg_1', 2, '{}']).catch((e: unknown) => e);
    assert.equal(sqlStateOf(dupSeq), SqlState.UNIQUE_VIOLATION);
    assert.equal(sqlStateOf(dupId), SqlState.UNIQUE_VIOLATION);
    const [event] = await fresh.db.query<{ id: string; state: string; attempts: number; payload: unknown }>(
      'SELECT id, state, attempts, payload FROM events WHERE ticket_id = $1',
      [ticket],
    );
    assert.ok(event);
    assert.deepStrictEqual(
      [event.state, event.attempts, event.payload],
      ['pending', 0, { status: 'SUCCESS' }],
    );
    await fresh.db.query(
      'INSERT INTO delivery_attempts (event_id, status_code, latency_ms) VALUES ($1, 500, 12)',
      [event.id],
    );
    await fresh.db.query('DELETE FROM tickets WHERE id = $1', [ticket]);
    assert.deepStrictEqual(await fresh.db.query('SELECT count(*)::int AS n FROM delivery_attempts'), [
      { n: 0 },
    ]);
  });

  const indexed: [string, string, (string | number)[]][] = [
    [
      'token_outputs_spendable_by_owner',
      "SELECT txid, vout FROM token_outputs WHERE owner = $1 AND spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn' ORDER BY score LIMIT 10",
      ['alice'],
    ],
    [
      'token_outputs_spendable_by_owner',
      "SELECT sum(amount) FROM token_outputs WHERE owner = $1 AND spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn'",
      ['alice'],
    ],
    [
      'funding_outputs_available',
      "SELECT txid, vout FROM funding_outputs WHERE state = 'available' AND satoshis >= $1 ORDER BY satoshis LIMIT 1",
      [100],
    ],
    [
      'transaction_addresses_by_address_score',
      'SELECT txid FROM transaction_addresses WHERE address = $1 AND score > $2 ORDER BY score LIMIT 100',
      ['alice', 0],
    ],
    [
      'transactions_score_key',
      'SELECT txid FROM transactions WHERE score > $1 ORDER BY score LIMIT 1000',
      [0],
    ],
    [
      'tickets_due',
      'SELECT id FROM tickets WHERE next_check_at IS NOT NULL AND next_check_at <= now() ORDER BY next_check_at LIMIT 10',
      [],
    ],
    [
      'events_due',
      "SELECT id FROM events WHERE state = 'pending' AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT 10",
      [],
    ],
  ];
  test("a balance (the kept balances the service reads) is its owner's rows, by index", async () => {
    // Migrations 012 and 048: no sum over the owner's outputs, the owner's rows by their key.
    const plan = await planOf(fresh.db, KEPT_BALANCES, [['alice', 'bob']]);
    assert.match(plan, /\baddress_balance_parts_pkey\b/);
    assert.doesNotMatch(plan, /Seq Scan on address_balance_parts\b/);
    assert.doesNotMatch(plan, /token_outputs/);
  });

  test('every table has a primary key (logical replication needs one to replicate updates and deletes)', async () => {
    const keyless = await fresh.db.query<{ table_name: string }>(
      `SELECT c.relname AS table_name FROM pg_class c
        WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p')
        ORDER BY 1`,
    );
    assert.deepStrictEqual(keyless, []);
  });

  for (const [index, sql, params] of indexed) {
    test(`${index} serves: ${sql.slice(0, 60)}...`, async () => {
      assert.match(await planOf(fresh.db, sql, params), new RegExp(`\\b${index}\\b`));
    });
  }
});
