// db.transaction on both adapters: commit, rollback, isolation of concurrent transactions,
// misuse caught, and SQL errors carrying their SQLSTATE.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { isUniqueViolation, SqlState, sqlStateOf } from '../../src/store/db/sql-error.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';

describeOnEachDb('transactions', { migrate: false }, (fresh) => {
  before(async () => {
    await fresh.db.query('CREATE TABLE counter (name text PRIMARY KEY, n int NOT NULL)');
  });

  async function counterValue(name: string): Promise<number | undefined> {
    const [row] = await fresh.db.query<{ n: number }>('SELECT n FROM counter WHERE name = $1', [name]);
    return row?.n;
  }

  test('reports its dialect', () => {
    assert.equal(fresh.db.dialect, fresh.target);
  });

  test('commits when the callback resolves, and returns its value', async () => {
    const result = await fresh.db.transaction(async (tx) => {
      await tx.query('INSERT INTO counter VALUES ($1, $2)', ['committed', 1]);
      const rows = await tx.query<{ n: number }>('SELECT n FROM counter WHERE name = $1', ['committed']);
      return rows[0]?.n;
    });
    assert.equal(result, 1);
    assert.equal(await counterValue('committed'), 1);
  });

  test('rolls back when the callback throws, and rethrows its error', async () => {
    const boom = new Error('boom');
    await assert.rejects(
      fresh.db.transaction(async (tx) => {
        await tx.query('INSERT INTO counter VALUES ($1, $2)', ['rolled-back', 1]);
        throw boom;
      }),
      (err) => err === boom,
    );
    assert.equal(await counterValue('rolled-back'), undefined);
  });

  test('rolls back when a statement fails, with the SQLSTATE on the error', async () => {
    await fresh.db.query('INSERT INTO counter VALUES ($1, $2)', ['taken', 1]);
    const err = await fresh.db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO counter VALUES ($1, $2)', ['first-of-failed', 1]);
        await tx.query('INSERT INTO counter VALUES ($1, $2)', ['taken', 2]);
      })
      .then(
        () => assert.fail('expected a unique violation'),
        (e: unknown) => e,
      );
    assert.equal(sqlStateOf(err), SqlState.UNIQUE_VIOLATION);
    assert.ok(isUniqueViolation(err));
    assert.ok(isUniqueViolation(err, 'counter_pkey'));
    assert.ok(!isUniqueViolation(err, 'some_other_constraint'));
    assert.equal(await counterValue('first-of-failed'), undefined);
    assert.equal(await counterValue('taken'), 1);
  });

  test('sqlStateOf ignores errors that are not from the database', () => {
    assert.equal(sqlStateOf(new Error('plain')), undefined);
    assert.equal(sqlStateOf(Object.assign(new Error('fs'), { code: 'EPERM' })), undefined);
    assert.equal(sqlStateOf('23505'), undefined);
    assert.equal(sqlStateOf(null), undefined);
  });

  test('concurrent read-modify-write transactions do not lose updates', async () => {
    await fresh.db.query('INSERT INTO counter VALUES ($1, 0)', ['shared']);
    const writers = 8;
    await Promise.all(
      Array.from({ length: writers }, () =>
        fresh.db.transaction(async (tx) => {
          // FOR UPDATE makes PostgreSQL queue them; PGlite runs transactions one at a time.
          const [row] = await tx.query<{ n: number }>('SELECT n FROM counter WHERE name = $1 FOR UPDATE', [
            'shared',
          ]);
          assert.ok(row);
          await sleep(2); // let the others run if they could
          await tx.query('UPDATE counter SET n = $1 WHERE name = $2', [row.n + 1, 'shared']);
        }),
      ),
    );
    assert.equal(await counterValue('shared'), writers);
  });

  test('a transaction does not see another one’s uncommitted rows', async () => {
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const seenBySecond: (number | undefined)[] = [];
    const first = fresh.db.transaction(async (tx) => {
      await tx.query('INSERT INTO counter VALUES ($1, 1)', ['isolated']);
      await firstMayCommit;
    });
    const second = fresh.db.transaction(async (tx) => {
      const [row] = await tx.query<{ n: number }>('SELECT n FROM counter WHERE name = $1', ['isolated']);
      seenBySecond.push(row?.n);
    });
    // On PostgreSQL the second runs beside the first and sees nothing; on PGlite it
    // waits for the first to commit, then sees its row. Never a half-done state.
    if (fresh.target === 'postgres') await second;
    releaseFirst();
    await Promise.all([first, second]);
    assert.deepStrictEqual(seenBySecond, fresh.target === 'postgres' ? [undefined] : [1]);
  });

  test('db.query or fresh.db.transaction inside a transaction is refused, not deadlocked', async () => {
    await assert.rejects(
      fresh.db.transaction(async () => {
        await fresh.db.query('SELECT 1');
      }),
      /use the tx handed to the callback/,
    );
    await assert.rejects(
      fresh.db.transaction(() => fresh.db.transaction(async () => 1)),
      /use the tx handed to the callback/,
    );
    // The database is still usable afterwards.
    assert.deepStrictEqual(await fresh.db.query('SELECT 1 AS one'), [{ one: 1 }]);
  });

  test('a tx used after its transaction ended is refused', async () => {
    const leaked = await fresh.db.transaction(async (tx) => tx);
    await assert.rejects(leaked.query('SELECT 1'), /transaction is closed/);
  });
});
