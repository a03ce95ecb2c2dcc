// Counts kept a row per connection (migrations 041 and 042, docs/adr/0021): tickets by status
// and callback events by state. For each, on both adapters: after every kind of write (inserts,
// many rows moved in one statement, updates of other columns, deletes, a rollback, a TRUNCATE)
// the kept counts equal a count of the table itself; a count written around the triggers is
// found; a fold moves no count. On PostgreSQL, writers on several connections at once keep a
// row each, and the rows of connections that have ended fold into one, the counts unmoved.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { uuidv7 } from '../../src/crypto/random-id.js';
import { EVENT_COUNTS } from '../../src/store/callbacks/event-counts.js';
import type { Db, Queryable } from '../../src/store/db/db.js';
import {
  foldEndedConnections,
  type KeptCounts,
  keptCountDrift,
  readKeptCounts,
} from '../../src/store/db/kept-counts.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { TICKET_COUNTS } from '../../src/store/tickets/ticket-counts.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTicket } from '../support/seed-store.js';
import { testDatabaseUrl } from '../support/test-databases.js';

/** A counted table: how to add a row with a value, and an update that moves no value. */
interface Counted {
  readonly name: string;
  readonly kept: KeptCounts<string>;
  readonly values: readonly string[];
  /** Adds a row holding `value`; answers its key (`id`). */
  seed(q: Queryable, value: string): Promise<string>;
  /** Sets a column that is not counted. */
  readonly untouched: string;
  /** The table's key type, for `= ANY($1::<type>[])`. */
  readonly key: string;
  readonly insertTrigger: string;
}

const TICKETS: Counted = {
  name: 'tickets by status',
  kept: TICKET_COUNTS,
  values: ['BROADCASTING', 'SUCCESS', 'MINED', 'FAILED'],
  seed: (q, status) => seedTicket(q, { status: status as 'MINED' }),
  untouched: 'next_check_at = now()',
  key: 'uuid',
  insertTrigger: 'tickets_counted_inserted',
};

const EVENTS: Counted = {
  name: 'callback events by state',
  kept: EVENT_COUNTS,
  values: ['pending', 'delivered', 'failed', 'dead'],
  async seed(q, state) {
    const ticket = await seedTicket(q, { status: 'MINED' });
    const [row] = await q.query<{ id: string }>(
      `INSERT INTO events (ticket_id, webhook_id, seq, payload, state) VALUES ($1, $2, 1, '{}', $3) RETURNING id::text`,
      [ticket, `msg_${uuidv7(Date.now())}`, state],
    );
    return row!.id;
  },
  untouched: 'next_attempt_at = now()',
  key: 'bigint',
  insertTrigger: 'events_counted_inserted',
};

for (const counted of [TICKETS, EVENTS]) {
  const { kept } = counted;
  describeOnEachDb(`kept counts: ${counted.name}`, (fresh) => {
    const read = (db: Db = fresh.db) => readKeptCounts(db, kept);
    /** The counts the table itself gives, every value present. */
    async function countedNow(): Promise<Record<string, number>> {
      const counts = Object.fromEntries(counted.values.map((v) => [v, 0]));
      const rows = await fresh.db.query<{ v: string; n: number }>(
        `SELECT ${kept.by} AS v, count(*)::int AS n FROM ${kept.counted} GROUP BY ${kept.by}`,
      );
      for (const r of rows) counts[r.v] = r.n;
      return counts;
    }
    const agree = async (what: string) => assert.deepEqual(await read(), await countedNow(), what);
    const [first, second, third, fourth] = counted.values as [string, string, string, string];

    it('follow inserts, many rows moved at once, other updates, deletes and a rollback', async () => {
      const before = await read();
      const ids: string[] = [];
      for (const value of [first, first, second, third, fourth])
        ids.push(await counted.seed(fresh.db, value));
      assert.deepEqual(await read(), {
        ...before,
        [first]: before[first]! + 2,
        [second]: before[second]! + 1,
        [third]: before[third]! + 1,
        [fourth]: before[fourth]! + 1,
      });
      await agree('after inserts');
      // One statement: the two of the first value to the second, the second's to the third.
      await fresh.db.query(
        `UPDATE ${kept.counted} k SET ${kept.by} = u.v FROM unnest($1::${counted.key}[], $2::text[]) AS u(id, v) WHERE k.id = u.id`,
        [ids.slice(0, 3), [second, second, third]],
      );
      await agree('after a statement moving several');
      await fresh.db.query(
        `UPDATE ${kept.counted} SET ${counted.untouched} WHERE id = ANY($1::${counted.key}[])`,
        [ids],
      );
      await agree('after an update of another column');
      await fresh.db.query(`DELETE FROM ${kept.counted} WHERE id = $1::${counted.key}`, [ids[4]!]);
      await agree('after a delete');
      await assert.rejects(
        fresh.db.transaction(async (tx) => {
          await tx.query(`UPDATE ${kept.counted} SET ${kept.by} = $2 WHERE id = ANY($1::${counted.key}[])`, [
            ids,
            fourth,
          ]);
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      await agree('after a rollback');
    });

    it('a TRUNCATE makes every count zero, and counting starts again', async () => {
      await counted.seed(fresh.db, third);
      await fresh.db.query('TRUNCATE tickets CASCADE');
      assert.deepEqual(await read(), Object.fromEntries(counted.values.map((v) => [v, 0])));
      const id = await counted.seed(fresh.db, second);
      await fresh.db.query(`UPDATE ${kept.counted} SET ${kept.by} = $2 WHERE id = $1::${counted.key}`, [
        id,
        third,
      ]);
      await agree('after a TRUNCATE');
    });

    it('a count written around the triggers is found', async () => {
      await counted.seed(fresh.db, fourth);
      assert.deepEqual(await keptCountDrift(fresh.db, kept), []);
      const n = (await countedNow())[fourth]!;
      await fresh.db.query(`ALTER TABLE ${kept.counted} DISABLE TRIGGER ${counted.insertTrigger}`);
      try {
        await counted.seed(fresh.db, fourth);
      } finally {
        await fresh.db.query(`ALTER TABLE ${kept.counted} ENABLE TRIGGER ${counted.insertTrigger}`);
      }
      const drift = await keptCountDrift(fresh.db, kept);
      assert.deepEqual(drift, [{ value: fourth, kept: n, counted: n + 1 }]);
      const column = (kept.columns as Record<string, string>)[fourth]!;
      await fresh.db.query(`UPDATE ${kept.table} SET ${column} = ${column} + 1 WHERE backend = 0`);
      assert.deepEqual(await keptCountDrift(fresh.db, kept), []);
    });

    it('a fold moves no count', async () => {
      await counted.seed(fresh.db, first);
      const before = await read();
      await foldEndedConnections(fresh.db, kept);
      assert.deepEqual(await read(), before);
      await agree('after a fold');
    });

    it('on PostgreSQL, connections write a row each, and those of ended ones fold into one', async (t) => {
      if (fresh.target !== 'postgres') return t.skip('PGlite has one connection');
      const writers = await Promise.all(
        [0, 1, 2].map(() => openPostgresDb(testDatabaseUrl!, { schema: fresh.schema!, max: 1 })),
      );
      try {
        const ids = await Promise.all(writers.map((db) => counted.seed(db, first)));
        // Three transactions at once, each open until all three have written.
        await Promise.all(
          writers.map((db, i) =>
            db.transaction(async (tx) => {
              await tx.query(`UPDATE ${kept.counted} SET ${kept.by} = $2 WHERE id = $1::${counted.key}`, [
                ids[i]!,
                second,
              ]);
              await new Promise((r) => setTimeout(r, 50));
            }),
          ),
        );
        const pids = await Promise.all(
          writers.map(
            async (db) => (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid,
          ),
        );
        const [own] = await fresh.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${kept.table} WHERE backend = ANY($1::int[])`,
          [pids],
        );
        assert.equal(own!.n, 3, 'each connection wrote a row of its own');
        await agree('after three connections');
      } finally {
        await Promise.all(writers.map((db) => db.close()));
      }
      const before = await read();
      // A connection's end reaches pg_stat_activity a moment after its client closed it.
      let folded = 0;
      for (let i = 0; i < 50 && folded < 3; i++) {
        folded += await foldEndedConnections(fresh.db, kept);
        if (folded < 3) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(folded >= 3, `the ended connections' rows fold (${folded})`);
      assert.deepEqual(await read(), before, 'the counts did not move');
      const left = await fresh.db.query(
        `SELECT backend FROM ${kept.table} WHERE backend <> 0 AND backend NOT IN (SELECT pid FROM pg_stat_activity)`,
      );
      assert.deepEqual(left, [], 'no row of an ended connection is left');
      await agree('after the fold');
    });
  });
}
