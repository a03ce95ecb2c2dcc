// Migration 039 on a populated database: a ticket written before keeps its own copy of the
// transaction and reads it back; a ticket written after stores none and reads its change-feed
// record's; the write path's tables get room on their pages for the next row version; address rows
// are keyed by their transaction first, and found by it through the key; an input's release is
// HOT (reserved_by in no index, no key to tickets).
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { migrate, migrationsDir } from '../../src/store/migrate.js';
import { ticketById } from '../../src/store/tickets/ticket-queries.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';

function migrationsBefore(number: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-migrations-'));
  for (const name of readdirSync(migrationsDir()))
    if (name.endsWith('.sql') && name < number) copyFileSync(join(migrationsDir(), name), join(dir, name));
  return dir;
}

const OLD_TICKET = '018f0000-0000-7000-8000-000000000001';
const NEW_TICKET = '018f0000-0000-7000-8000-000000000002';

describeOnEachDb('migration 039', { migrate: false }, (fresh) => {
  let dir: string;
  before(async () => {
    dir = migrationsBefore('039');
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  test("tickets keep their copy or read their record's; pages get room; address rows by txid", async () => {
    const { applied } = await migrate(fresh.db, { dir });
    assert.ok(!applied.some((v) => v.startsWith('039')));
    const oldTxid = 'ab'.repeat(32);
    const newTxid = 'cd'.repeat(32);
    const insertRecord = (txid: string, raw: string, score: number) =>
      fresh.db.query(
        `INSERT INTO transactions (txid, raw_tx, state, score) VALUES ($1, decode($2, 'hex'), 'unconfirmed', $3)`,
        [txid, raw, score],
      );
    await insertRecord(oldTxid, '0a0b0c', 1);
    await fresh.db.query(
      `INSERT INTO tickets (id, txid, submitted_txid, raw_tx, status, status_rank)
       VALUES ($1, $2, $2, '\\x0a0b0c', 'BROADCASTING', 10)`,
      [OLD_TICKET, oldTxid],
    );

    assert.ok((await migrate(fresh.db)).applied.includes('039_one_copy_and_room_to_update'));
    const [kept] = await fresh.db.query<{ raw_tx: Uint8Array }>('SELECT raw_tx FROM tickets WHERE id = $1', [
      OLD_TICKET,
    ]);
    assert.deepEqual([...kept!.raw_tx], [0x0a, 0x0b, 0x0c]);
    assert.deepEqual([...(await ticketById(fresh.db, OLD_TICKET))!.rawTx], [0x0a, 0x0b, 0x0c]);

    // A submission's ticket from now on: no bytes of its own.
    await insertRecord(newTxid, '0d0e', 2);
    await fresh.db.query(
      `INSERT INTO tickets (id, txid, submitted_txid, status, status_rank) VALUES ($1, $2, $2, 'BROADCASTING', 10)`,
      [NEW_TICKET, newTxid],
    );
    assert.deepEqual([...(await ticketById(fresh.db, NEW_TICKET))!.rawTx], [0x0d, 0x0e]);

    const key = await fresh.db.query<{ def: string }>(
      `SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index
        WHERE indrelid = 'transaction_addresses'::regclass ORDER BY 1`,
    );
    assert.deepEqual(
      key.map((k) => k.def.replace(/^.* USING /, '')),
      ['btree (address, score)', 'btree (txid, address)'],
    );
    await fresh.db.query(
      `INSERT INTO transaction_addresses (address, txid, score) VALUES ('alice', $1, 1), ('bob', $1, 1)`,
      [oldTxid],
    );
    await assert.rejects(
      fresh.db.query(`INSERT INTO transaction_addresses (address, txid, score) VALUES ('bob', $1, 2)`, [
        oldTxid,
      ]),
      /duplicate key/,
    );
    await fresh.db.query('SET enable_seqscan = off');
    const plan = await fresh.db.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT address FROM transaction_addresses WHERE txid = '${oldTxid}'`,
    );
    await fresh.db.query('RESET enable_seqscan');
    assert.match(plan.map((line) => line['QUERY PLAN']).join('\n'), /transaction_addresses_pkey/);

    // An input reserved and spent, then released: the release changes no indexed column.
    await fresh.db.query(
      `INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, score)
       VALUES ($1, 0, 'alice', 5, 'transfer', '\\x51', 1, 1)`,
      [oldTxid],
    );
    await fresh.db.query('UPDATE token_outputs SET spent_by = $2, reserved_by = $3 WHERE txid = $1', [
      oldTxid,
      newTxid,
      NEW_TICKET,
    ]);
    const hot = await fresh.db.transaction(async (tx) => {
      // This backend's counts not yet reported (the earlier update's too), before and after.
      const counts = async () =>
        (
          await tx.query<{ upd: number; hot: number }>(
            `SELECT n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables
              WHERE relid = 'token_outputs'::regclass`,
          )
        )[0]!;
      const before = await counts();
      await tx.query('UPDATE token_outputs SET reserved_by = NULL WHERE spent_by = $1 AND reserved_by = $2', [
        newTxid,
        NEW_TICKET,
      ]);
      const after = await counts();
      return { updates: after.upd - before.upd, hot: after.hot - before.hot };
    });
    assert.deepEqual(hot, { updates: 1, hot: 1 });
    const outputIndexes = await fresh.db.query<{ def: string }>(
      `SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index
        WHERE indrelid = 'token_outputs'::regclass ORDER BY 1`,
    );
    assert.deepEqual(
      outputIndexes.map((k) => k.def.replace(/^.* USING /, '')),
      [
        // Migration 040's burns, in no column a release changes.
        "btree (txid, vout) INCLUDE (amount) WHERE (op = 'burn'::text)",
        "btree (owner, score, txid, vout) INCLUDE (amount) WHERE ((spent_by IS NULL) AND (op <> 'burn'::text))",
        'btree (spent_by) WHERE (spent_by IS NOT NULL)',
        'btree (txid, vout)',
      ],
    );
    const keys = await fresh.db.query<{ conname: string }>(
      `SELECT conname FROM pg_constraint WHERE conrelid = 'token_outputs'::regclass AND contype = 'f' ORDER BY 1`,
    );
    assert.deepEqual(
      keys.map((k) => k.conname),
      ['token_outputs_txid_fkey'],
    );

    const options = await fresh.db.query<{ relname: string; reloptions: string[] | null }>(
      `SELECT relname, reloptions FROM pg_class
        WHERE relname IN ('transactions', 'transaction_addresses', 'tickets', 'funding_outputs', 'token_outputs')
          AND relnamespace = current_schema()::regnamespace
        ORDER BY relname`,
    );
    assert.deepEqual(
      options.map((o) => [o.relname, o.reloptions]),
      [
        ['funding_outputs', ['fillfactor=50']],
        ['tickets', ['fillfactor=50']],
        ['token_outputs', ['fillfactor=70']],
        ['transaction_addresses', ['fillfactor=50']],
        ['transactions', ['fillfactor=50']],
      ],
    );
  });
});
