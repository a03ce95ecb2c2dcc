// A write transaction plans each statement once, for any values (store/db/postgres-db.ts; ADR 0005,
// eleventh pass). A generic plan does not know the run's values, so it could read a large table
// whole where a plan for the values would use an index. This runs a transfer's whole life on a
// real service on PostgreSQL (an operator's mint, the transfer's batch, the broadcast answer, the
// block's pushes, its callbacks' deliveries, then a burn and a split of the funding pool), on
// tables grown and analyzed, explains the generic plan of every
// statement its write transactions run, and finds no sequential scan of a large table in any.
// The claim's plan under stale statistics has its own check (submission-claims-plan.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import type { Db, Queryable, Row, SqlValue } from '../../src/store/db/db.js';
import { refillFundingPool } from '../../src/usecases/funding/pool-refill.js';
import { burnTokens } from '../../src/usecases/supply/burn-tokens.js';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { eventually } from '../e2e/support.js';
import { genericPlanOf, seqScannedTables } from '../support/generic-plan.js';
import { type ServiceInTemp, startServiceIn } from '../support/service-in-temp.js';
import { freshDatabase, testDatabaseUrl } from '../support/test-databases.js';
import { acceptedTransfer } from '../usecases/accepted-transfer.js';

/** The tables that grow with the ledger, each seeded well past a few pages. */
const LARGE_TABLES = [
  'token_outputs',
  'transactions',
  'transaction_addresses',
  'tickets',
  'funding_outputs',
  'address_balance_parts',
  'events',
  'delivery_attempts',
] as const;

/** Routes `db`'s transactions through a Queryable that keeps each statement's generic plan. */
function explainWrites(db: Db, plans: Map<string, string>): () => void {
  const original = db.transaction;
  const explaining = (tx: Queryable): Queryable => ({
    async query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
      if (!plans.has(sql)) plans.set(sql, await genericPlanOf(tx, sql, params ?? []));
      return tx.query<R>(sql, params);
    },
  });
  (db as { transaction: Db['transaction'] }).transaction = <T>(fn: (tx: Queryable) => Promise<T>) =>
    original.call(db, (tx) => fn(explaining(tx))) as Promise<T>;
  return () => {
    (db as { transaction: Db['transaction'] }).transaction = original;
  };
}

/** Rows of history each large table gets before the transfer: enough that an index wins. */
const GROWN = 20_000;
/** Owners the grown outputs are spread over. */
const OWNERS = 3000;

async function growTheLedger(db: Db): Promise<void> {
  await db.query(
    `WITH made AS (
       INSERT INTO transactions (txid, raw_tx, state, height, blk_hash, score)
       SELECT encode(sha256(('grown ' || i)::bytea), 'hex'), '\\x01'::bytea, 'mined', 1, 'grown', nextval('change_score_seq')
         FROM generate_series(1, $1::int) AS i
       RETURNING txid, score)
     INSERT INTO transaction_addresses (address, txid, score)
     SELECT 'grown owner ' || (abs(hashtext(txid)) % $2::int), txid, score FROM made`,
    [GROWN, OWNERS],
  );
  await db.query(
    `INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, score)
     SELECT txid, 0, 'grown owner ' || (abs(hashtext(txid)) % $1::int), 10, 'transfer', '\\x00'::bytea, 1, score
       FROM transactions WHERE blk_hash = 'grown'`,
    [OWNERS],
  );
  await db.query(
    `INSERT INTO tickets (id, txid, raw_tx, status, status_rank, created_at, updated_at)
     SELECT gen_random_uuid(), encode(sha256(('grown ticket ' || i)::bytea), 'hex'), '\\x01'::bytea, 'FAILED', 0, now(), now()
       FROM generate_series(1, $1::int) AS i`,
    [GROWN],
  );
  await db.query(
    `WITH made AS (
       INSERT INTO events (ticket_id, webhook_id, seq, payload, state, delivered_at)
       SELECT id, 'msg_grown_' || id, 1, '{}'::jsonb, 'delivered', now() FROM tickets WHERE status = 'FAILED'
       RETURNING id)
     INSERT INTO delivery_attempts (event_id, status_code, latency_ms) SELECT id, 204, 1 FROM made`,
  );
  await db.query(
    `INSERT INTO funding_outputs (txid, vout, satoshis, script, state)
     SELECT encode(sha256('grown funding'::bytea), 'hex'), v, 1000, '\\x76a9'::bytea, 'spent'
       FROM generate_series(0, $1::int - 1) AS v`,
    [GROWN],
  );
  for (const table of LARGE_TABLES) await db.query(`ANALYZE ${table}`);
  for (const table of LARGE_TABLES) {
    const [row] = await db.query<{ reltuples: number }>('SELECT reltuples FROM pg_class WHERE relname = $1', [
      table,
    ]);
    // Every large table holds thousands of rows (address_balance_parts a row per owner who drew one).
    assert.ok(Number(row?.reltuples) >= OWNERS / 2, `${table} grew to ${row?.reltuples} rows`);
  }
}

describe('write transactions plan once', {
  skip: testDatabaseUrl === undefined ? 'needs TEST_DATABASE_URL' : false,
}, () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let t: ServiceInTemp;
  let receiver: WebhookReceiver;

  before(async () => {
    database = await freshDatabase(testDatabaseUrl!, 'writeplans');
    t = await startServiceIn('write-plans', [
      '--log-level',
      'error',
      '--database-url',
      database.url,
      '--tracker-poll-ms',
      '200',
      '--callback-allow',
      '127.0.0.1',
    ]);
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await t?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it("reads no large table whole in any write statement of a transfer's life", async () => {
    const { parts } = t.service;
    await growTheLedger(parts.db);
    const plans = new Map<string, string>();
    const restore = explainWrites(parts.db, plans);
    try {
      const { ticket } = await acceptedTransfer(t, 'write plans', { callback_url: receiver.url() });
      await parts.devnet!.mine(1);
      await eventually(async () => {
        const [row] = await parts.db.query<{ status: string }>('SELECT status FROM tickets WHERE id = $1', [
          ticket,
        ]);
        return row?.status === 'MINED' ? true : undefined;
      }, 'the transfer mined');
      await eventually(async () => (receiver.received.length >= 3 ? true : undefined), 'three callbacks');
      // An operator's burn of the fee it earned, and a refill of the funding pool.
      await burnTokens(apiContextOf(parts), parts.keys, { from: 'fee', amount: 50n });
      const split = await refillFundingPool(
        {
          db: parts.db,
          ledger: parts.ctx.ledger,
          fundingKey: parts.keys.funding,
          feeRate: parts.ctx.feeRate,
          now: parts.ctx.now,
          log: parts.ctx.log,
        },
        1_000_000,
      );
      assert.ok(split !== null, 'the funding pool was split');
    } finally {
      restore();
    }

    // The life's write statements were explained: the batch's claim and writes, the verdicts,
    // the callbacks' events, the split's new outputs. (A delivery's record is one statement of
    // its own, planned for its values.)
    const statements = [...plans.keys()].join('\n');
    for (const table of [
      'INSERT INTO tickets',
      'token_outputs',
      'UPDATE tickets',
      'change_score_seq',
      'INSERT INTO events',
      'INSERT INTO funding_outputs',
    ])
      assert.ok(statements.includes(table), `no write statement with ${table} was explained:\n${statements}`);
    const scans = [...plans]
      .map(([sql, plan]) => ({
        sql,
        tables: seqScannedTables(plan).filter((t) => (LARGE_TABLES as readonly string[]).includes(t)),
      }))
      .filter((s) => s.tables.length > 0);
    assert.deepEqual(
      scans.map((s) => `${s.tables.join(', ')}: ${s.sql.replace(/\s+/g, ' ').slice(0, 160)}`),
      [],
    );
  });
});
