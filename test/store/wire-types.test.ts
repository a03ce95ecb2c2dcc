// Both adapters return values the same way (db.ts): NUMERIC and INT8 as decimal strings,
// BYTEA as Uint8Array, TIMESTAMPTZ as Date, arrays as arrays, JSONB parsed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { Db, Row, SqlValue } from '../../src/store/db/db.js';
import { type FreshDb, testTargets } from '../support/test-databases.js';

const BIG = 2n ** 64n + 12345n; // past int8 and past 2^53
const MAX_NUMERIC_78 = 10n ** 78n - 1n;

const TABLE = `CREATE TABLE round_trip (
  id int PRIMARY KEY, amount numeric(78,0), sats bigint, raw bytea, names text[], outs int[],
  doc jsonb, at timestamptz, flag boolean, day date, big_list bigint[], amounts numeric[]
)`;

interface Probe {
  readonly name: string;
  readonly sql: string;
  readonly params?: readonly SqlValue[];
  readonly expected: Row[];
}

const probes: Probe[] = [
  {
    name: 'numeric beyond 2^64 and int8 beyond 2^53 come back as decimal strings',
    sql: 'SELECT $1::numeric(78,0) AS big, $2::numeric(78,0) AS max, $3::bigint AS i8, 9007199254740993::int8 AS lit, 0::numeric AS zero',
    params: [BIG, MAX_NUMERIC_78, 9_007_199_254_740_993n],
    expected: [
      {
        big: BIG.toString(),
        max: MAX_NUMERIC_78.toString(),
        i8: '9007199254740993',
        lit: '9007199254740993',
        zero: '0',
      },
    ],
  },
  {
    name: 'small integers are numbers, booleans booleans, text text',
    sql: "SELECT 7::int AS i4, 3::smallint AS i2, true AS yes, 'héllo' AS t, NULL::text AS nothing",
    expected: [{ i4: 7, i2: 3, yes: true, t: 'héllo', nothing: null }],
  },
  {
    name: 'bytea both ways as plain Uint8Array',
    sql: "SELECT $1::bytea AS raw, '\\x00ff10'::bytea AS lit, ''::bytea AS empty",
    params: [new Uint8Array([0, 1, 127, 128, 255])],
    expected: [
      {
        raw: new Uint8Array([0, 1, 127, 128, 255]),
        lit: new Uint8Array([0, 255, 16]),
        empty: new Uint8Array(),
      },
    ],
  },
  {
    name: 'arrays: text[], int[], int8[] and numeric[] (as strings), empty arrays',
    sql: "SELECT $1::text[] AS names, $2::int[] AS outs, ARRAY[1, 18446744073709551616]::numeric[] AS amounts, ARRAY[1, 9007199254740993]::int8[] AS bigs, '{}'::text[] AS none",
    params: [
      ['1Abc', 'with "quote", comma\\', ''],
      [0, 2, 5],
    ],
    expected: [
      {
        names: ['1Abc', 'with "quote", comma\\', ''],
        outs: [0, 2, 5],
        amounts: ['1', '18446744073709551616'],
        bigs: ['1', '9007199254740993'],
        none: [],
      },
    ],
  },
  {
    name: 'jsonb parsed, in and out',
    sql: `SELECT $1::jsonb AS doc, '{"b":[1,"x",null],"a":{"n":1.5}}'::jsonb AS lit`,
    params: [JSON.stringify({ status: 'MINED', n: 3, list: [1, 2] })],
    expected: [{ doc: { status: 'MINED', n: 3, list: [1, 2] }, lit: { a: { n: 1.5 }, b: [1, 'x', null] } }],
  },
  {
    name: 'timestamptz as Date, from a Date and from text with an offset; date as text',
    sql: "SELECT $1::timestamptz AS at, '2024-01-02 03:04:05.123+05:30'::timestamptz AS lit, '2024-02-29'::date AS day",
    params: [new Date('2025-06-30T12:34:56.789Z')],
    expected: [
      {
        at: new Date('2025-06-30T12:34:56.789Z'),
        lit: new Date('2024-01-01T21:34:05.123Z'),
        day: '2024-02-29',
      },
    ],
  },
];

function assertPlainBytes(value: unknown): void {
  assert.ok(value instanceof Uint8Array);
  assert.equal(Object.getPrototypeOf(value), Uint8Array.prototype, 'a plain Uint8Array, not a Buffer');
}

async function runProbes(db: Db): Promise<Row[][]> {
  const out: Row[][] = [];
  for (const probe of probes) out.push(await db.query(probe.sql, probe.params ?? []));
  return out;
}

const opened: { name: string; fresh: FreshDb }[] = [];

before(async () => {
  for (const target of testTargets()) {
    const fresh = await target.fresh({ migrate: false });
    await fresh.db.query(TABLE);
    opened.push({ name: target.name, fresh });
  }
});

after(async () => {
  for (const { fresh } of opened) await fresh.dispose();
});

for (const target of testTargets()) {
  describe(`wire types on ${target.name}`, () => {
    const db = (): Db => {
      const found = opened.find((o) => o.name === target.name);
      assert.ok(found);
      return found.fresh.db;
    };

    for (const probe of probes) {
      test(probe.name, async () => {
        const rows = await db().query(probe.sql, probe.params);
        assert.deepStrictEqual(rows, probe.expected);
      });
    }

    test('bytea values are plain Uint8Array (not Buffer), also in bytea[]', async () => {
      const [row] = await db().query<{ raw: unknown; list: unknown[] }>(
        "SELECT '\\x0102'::bytea AS raw, ARRAY['\\x03'::bytea, NULL] AS list",
      );
      assert.ok(row);
      assertPlainBytes(row.raw);
      assert.equal(row.list.length, 2);
      assertPlainBytes(row.list[0]);
      assert.deepStrictEqual(row.list, [new Uint8Array([3]), null]);
    });

    test('a table row written with parameters reads back identical', async () => {
      const at = new Date('2030-01-01T00:00:00.001Z');
      const raw = new Uint8Array(300).map((_, i) => i % 256);
      await db().query(
        'INSERT INTO round_trip (id, amount, sats, raw, names, outs, doc, at, flag, day, big_list, amounts) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)',
        [
          1,
          BIG,
          2n ** 62n,
          raw,
          ['a', 'b'],
          [1, 2],
          '{"k":"v"}',
          at,
          false,
          '2020-12-31',
          ['9223372036854775807'],
          ['123456789012345678901234567890'],
        ],
      );
      const rows = await db().query('SELECT * FROM round_trip WHERE id = $1', [1]);
      assert.deepStrictEqual(rows, [
        {
          id: 1,
          amount: BIG.toString(),
          sats: (2n ** 62n).toString(),
          raw,
          names: ['a', 'b'],
          outs: [1, 2],
          doc: { k: 'v' },
          at,
          flag: false,
          day: '2020-12-31',
          big_list: ['9223372036854775807'],
          amounts: ['123456789012345678901234567890'],
        },
      ]);
      // NULLs in every column come back as null.
      await db().query('INSERT INTO round_trip (id) VALUES ($1)', [2]);
      const [empty] = await db().query('SELECT * FROM round_trip WHERE id = 2');
      assert.ok(empty);
      for (const [column, value] of Object.entries(empty))
        if (column !== 'id') assert.equal(value, null, column);
    });

    test('a parameterless query may hold several statements and returns the last one’s rows', async () => {
      const rows = await db().query(
        'CREATE TEMP TABLE multi (x int); INSERT INTO multi VALUES (1), (2); SELECT x FROM multi ORDER BY x',
      );
      assert.deepStrictEqual(rows, [{ x: 1 }, { x: 2 }]);
      assert.deepStrictEqual(await db().query('DROP TABLE multi'), []);
    });
  });
}

test('both adapters return the very same values for the same queries', {
  skip: testTargets().length < 2,
}, async () => {
  const [first, second] = opened;
  assert.ok(first && second);
  const a = await runProbes(first.fresh.db);
  const b = await runProbes(second.fresh.db);
  assert.deepStrictEqual(a, b);
  assert.equal(a.length, probes.length);
});
