// The funding keeper's stop while a look is in flight and fails (the database gone under it,
// say): the stop ends, so the tracker role goes on to stop its tracker. Before, the stop threw
// the look's error, the tracker role's stop ended there, and its tracker loop kept the process
// running after the service's stop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { Ledger } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db/db.js';
import { startFundingKeeper } from '../../src/usecases/funding/funding-keeper.js';
import { fundingSignalOf } from '../../src/usecases/funding/funding-signal.js';

/** A database whose level reads are answered by the test: the first at once, later ones when told. */
function heldDb() {
  const pending: { resolve: (rows: unknown[]) => void; reject: (err: Error) => void }[] = [];
  let reads = 0;
  const db = {
    async query(sql: string) {
      assert.match(sql, /FROM funding_outputs/, 'the keeper reads only the pool level here');
      reads++;
      if (reads === 1) return [{ n: '1000000' }];
      return new Promise<unknown[]>((resolve, reject) => pending.push({ resolve, reject }));
    },
  } as unknown as Db;
  return { db, pending, reads: () => reads };
}

describe('the funding keeper stopped while a look is in flight', () => {
  it('ends its stop when that look fails, and logs the failure once', async () => {
    const { db, pending, reads } = heldDb();
    const logged: string[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line).msg) });
    const keeper = await startFundingKeeper(
      {
        db,
        ledger: {} as Ledger,
        fundingKey: new Uint8Array(32),
        feeRate: async () => 1n,
        now: () => new Date(),
        log,
        payments: null,
        afterRefill: async () => undefined,
      },
      {
        lowWater: 100,
        lowWaterMax: 5000,
        splitMin: 470,
        splitMax: 5000,
        checkEveryMs: 3_600_000,
        refillEveryMs: 3_600_000,
      },
    );
    assert.equal(reads(), 1, 'the first round read the level');
    fundingSignalOf(db).used();
    assert.equal(reads(), 2, 'a use started a look, now waiting on the database');
    const stopping = keeper.stop();
    pending[0]!.reject(new Error('terminating connection due to administrator command'));
    await assert.doesNotReject(stopping);
    assert.deepEqual(logged, ['funding pool refill failed']);
  });
});
