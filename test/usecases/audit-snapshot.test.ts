// `tokenproxy audit` on a live service, on each database: a tracker batch that commits while the
// audit reads (here, an accepted transfer failing: its outputs deleted, its input released) is
// seen whole or not at all. Before, the audit read the raw transactions and the index in
// statements of their own, and reported differences no committed state had (ok false on a
// consistent index).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { Db, Queryable } from '../../src/store/db/db.js';
import { auditLedger } from '../../src/usecases/supply/audit-ledger.js';
import { applyLedgerStatus } from '../../src/usecases/track/apply-ledger-status.js';
import { describeServiceOnEachDb } from '../support/service-on-each-db.js';
import { acceptedTransfer } from './accepted-transfer.js';

describeServiceOnEachDb(
  'the audit while a tracker batch commits',
  ['--tracker-poll-ms', '60000'],
  (suite) => {
    it('reports the index as one committed state had it', async () => {
      const { txid } = await acceptedTransfer(suite.t, `audit snapshot ${suite.target}`);
      const { db, ctx } = suite.t.service.parts;
      assert.equal((await auditLedger(db, ctx.token)).ok, true, 'clean before');

      // The batch starts right after the audit's first read, and is given a moment to commit (on
      // PGlite, which runs one transaction at a time, it waits for the audit's to end). Made here,
      // it runs outside the audit's transaction, as another request's would.
      let start = () => {};
      const batch = new Promise<void>((resolve) => {
        start = resolve;
      }).then(() =>
        applyLedgerStatus(ctx, txid, { status: { kind: 'rejected', reason: 'dropped in a reorg' } }),
      );
      let started = false;
      const racing = (q: Queryable): Queryable => ({
        async query(sql, params) {
          const rows = await q.query(sql, params);
          if (!started && !sql.startsWith('SET ')) {
            started = true;
            start();
            await Promise.race([batch, delay(1_000)]);
          }
          return rows as never;
        },
      });
      const audited: Db = {
        ...db,
        ...racing(db),
        transaction: (fn) => db.transaction((tx) => fn(racing(tx))),
      };
      const report = await auditLedger(audited, ctx.token);
      await batch;
      assert.ok(batch !== null, 'the batch ran during the audit');
      assert.deepEqual(report.outputDifferences, []);
      assert.equal(report.ok, true);
      assert.equal((await auditLedger(db, ctx.token)).ok, true, 'clean after');
    });
  },
);
