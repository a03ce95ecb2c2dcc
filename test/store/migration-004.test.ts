// Migration 004 keeps existing data: the single `funding_reserve` setting of a database made
// before it becomes a row of the funding_reserve table (and the setting goes); a MINED ticket
// gets its first_mined_at; API keys get no rate limit of their own.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { migrate, migrationsDir } from '../../src/store/migrate.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';

function migrationsBefore(number: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-migrations-'));
  for (const name of readdirSync(migrationsDir()))
    if (name.endsWith('.sql') && name < number) copyFileSync(join(migrationsDir(), name), join(dir, name));
  return dir;
}

describeOnEachDb('migration 004', { migrate: false }, (fresh) => {
  let dir: string;
  before(async () => {
    dir = migrationsBefore('004');
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('the funding_reserve setting moves into the table', async () => {
    const { applied } = await migrate(fresh.db, { dir });
    assert.ok(!applied.some((v) => v.startsWith('004')));
    const txid = 'ab'.repeat(32);
    await fresh.db.query(
      "INSERT INTO settings (key, value) VALUES ('funding_reserve', $1), ('token', '{\"x\": 1}')",
      [JSON.stringify({ txid, vout: 471, satoshis: '123456789' })],
    );
    await fresh.db.query(
      `INSERT INTO tickets (id, txid, submitted_txid, raw_tx, status, status_rank, created_at, updated_at)
       VALUES ('018f0000-0000-7000-8000-000000000001', $1, $1, '\\x00', 'MINED', 30, now(), '2026-01-02T03:04:05Z')`,
      [txid],
    );
    assert.equal((await migrate(fresh.db)).applied[0], '004_operations');
    const rows = await fresh.db.query<{
      txid: string;
      vout: number;
      satoshis: string;
      source: string;
      state: string;
    }>('SELECT txid, vout, satoshis::text AS satoshis, source, state FROM funding_reserve');
    assert.deepEqual(rows, [
      { txid, vout: 471, satoshis: '123456789', source: 'setting', state: 'available' },
    ]);
    const settings = await fresh.db.query<{ key: string }>('SELECT key FROM settings ORDER BY key');
    assert.deepEqual(settings, [{ key: 'token' }]);
    const [ticket] = await fresh.db.query<{ first_mined_at: Date }>('SELECT first_mined_at FROM tickets');
    assert.equal(ticket?.first_mined_at.toISOString(), '2026-01-02T03:04:05.000Z');
  });
});
