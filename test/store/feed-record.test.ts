// insertFeedRecord writes a record's token outputs in one statement (arrays unnested in SQL, so
// PostgreSQL's parameter limit does not apply): every output lands once, with its own fields,
// however many there are.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertFeedRecord, type NewTokenOutput } from '../../src/store/feed/feed-records.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';

const outputs = (count: number): NewTokenOutput[] =>
  Array.from({ length: count }, (_, vout) => ({
    vout,
    owner: `owner-${vout % 7}`,
    amount: 10n ** 15n + BigInt(vout),
    op: 'transfer',
    script: new Uint8Array([0x76, vout & 0xff, vout >> 8]),
    satoshis: 1n,
  }));

describeOnEachDb('feed records', (fresh) => {
  for (const count of [0, 1, 3, 2_345]) {
    it(`writes all ${count} outputs of a record with their own fields`, async () => {
      const txid = count.toString(16).padStart(64, 'a');
      const written = outputs(count);
      await fresh.db.transaction((tx) =>
        insertFeedRecord(tx, {
          txid,
          rawTx: new Uint8Array([1, 2, 3]),
          senders: ['owner-0'],
          receivers: ['owner-1'],
          outputs: written,
          state: 'mined',
          score: 42n + BigInt(count),
          block: { height: 7, idx: 0, hash: 'ab'.repeat(32), time: 1 },
          now: new Date('2026-01-01T00:00:00Z'),
        }),
      );
      const rows = await fresh.db.query<{
        vout: number;
        owner: string;
        amount: string;
        script: Uint8Array;
        score: string;
      }>(
        'SELECT vout, owner, amount::text AS amount, script, score::text AS score FROM token_outputs WHERE txid = $1 ORDER BY vout',
        [txid],
      );
      assert.equal(rows.length, count);
      for (const [i, row] of rows.entries()) {
        const want = written[i]!;
        assert.equal(row.vout, want.vout);
        assert.equal(row.owner, want.owner);
        assert.equal(BigInt(row.amount), want.amount);
        assert.deepEqual(Buffer.from(row.script), Buffer.from(want.script));
        assert.equal(BigInt(row.score), 42n + BigInt(count));
      }
    });
  }
});
