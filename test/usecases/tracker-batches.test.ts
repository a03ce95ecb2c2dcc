// The tracker in batches: a tick's pushes (a mined block's statuses) settle in one database
// transaction; MINED tickets are looked at once per block, settled final together once deep
// enough, and asked about one by one only when their block's look says it left the chain.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Ledger, StatusListener, TxStatus } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { startTracker, trackDueTickets } from '../../src/usecases/track-tickets.js';
import { countingTransactions } from '../support/counting-transactions.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';

const T0 = new Date('2026-11-23T00:00:00.000Z');
const HASH = 'cd'.repeat(32);
const mined = (height: number): TxStatus => ({
  kind: 'mined',
  blockHash: HASH,
  height,
  index: 1,
  blockTime: 1,
  merklePath: '00',
});

function contextOn(db: Db, ledger: Partial<Ledger>, clock: { now: Date }) {
  const counting = countingTransactions(db);
  const ctx = {
    db: counting.db,
    ledger,
    now: () => clock.now,
    tracker: { pollIntervalMs: 1000, finalConfirmations: 6, firstLookAfterMs: 5000 },
    log: { info() {}, warn() {}, error() {} },
  } as unknown as ServiceContext;
  return { ctx, transactions: counting.transactions };
}

async function tickets(db: Db, n: number, status: 'SUCCESS' | 'MINED') {
  const out: { id: string; txid: string }[] = [];
  for (let i = 0; i < n; i++) {
    const txid = randomTxid();
    const id = await seedTicket(db, { txid, status, createdAt: T0 });
    await seedTransaction(db, {
      txid,
      outputs: [{ owner: 'o', amount: 1n }],
      ...(status === 'MINED' && { block: { height: 10, idx: i + 1, hash: HASH, time: 1 } }),
    });
    await db.query('UPDATE tickets SET next_check_at = $2 WHERE id = $1', [id, T0]);
    out.push({ id, txid });
  }
  return out;
}

describeOnEachDb('tracker batches', (fresh) => {
  const statuses = async (ids: string[]) =>
    (
      await fresh.db.query<{ status: string; next_check_at: Date | null }>(
        'SELECT status, next_check_at FROM tickets WHERE id = ANY($1::uuid[]) ORDER BY id',
        [ids],
      )
    ).map((r) => [r.status, r.next_check_at === null ? null : new Date(r.next_check_at).getTime()]);

  it("a tick's pushes are applied in one database transaction", async () => {
    const seeded = await tickets(fresh.db, 8, 'SUCCESS');
    const listeners: StatusListener[] = [];
    const ledger: Partial<Ledger> = {
      subscribe: (l) => {
        listeners.push(l);
        return () => undefined;
      },
      tip: async () => ({ height: 11, hash: HASH, time: 1 }),
      status: async () => ({ kind: 'unknown' }),
    };
    // Not due until later: only the pushes write.
    await fresh.db.query('UPDATE tickets SET next_check_at = $1', [new Date(T0.getTime() + 3600_000)]);
    const { ctx, transactions } = contextOn(fresh.db, ledger, { now: T0 });
    const tracker = startTracker(ctx, 10_000);
    for (const t of seeded) for (const l of listeners) l(t.txid, mined(10));
    await tracker.stop();
    assert.equal(transactions(), 1, 'one transaction for the block');
    for (const [status] of await statuses(seeded.map((t) => t.id))) assert.equal(status, 'MINED');
  });

  it('looks at MINED tickets once per block, and settles them final together', async () => {
    await fresh.db.query('UPDATE tickets SET next_check_at = NULL');
    const seeded = await tickets(fresh.db, 6, 'MINED');
    const asked: string[] = [];
    let tip = 12;
    const ledger: Partial<Ledger> = {
      tip: async () => ({ height: tip, hash: HASH, time: 1 }),
      status: async (txid) => {
        asked.push(txid);
        return mined(10);
      },
    };
    const clock = { now: T0 };
    const { ctx } = contextOn(fresh.db, ledger, clock);
    assert.equal(await trackDueTickets(ctx), 6);
    assert.equal(asked.length, 1, 'one look for the block');
    for (const [status, next] of await statuses(seeded.map((t) => t.id))) {
      assert.equal(status, 'MINED');
      assert.equal(next, T0.getTime() + 1000, '3 deep: watched');
    }
    tip = 15;
    clock.now = new Date(T0.getTime() + 1000);
    assert.equal(await trackDueTickets(ctx), 6);
    assert.equal(asked.length, 2);
    for (const [, next] of await statuses(seeded.map((t) => t.id))) assert.equal(next, null, '6 deep: final');
  });

  it('asks each ticket of a block that left the chain, and applies what it hears', async () => {
    await fresh.db.query('UPDATE tickets SET next_check_at = NULL');
    const seeded = await tickets(fresh.db, 4, 'MINED');
    const asked: string[] = [];
    const ledger: Partial<Ledger> = {
      tip: async () => ({ height: 12, hash: HASH, time: 1 }),
      status: async (txid) => {
        asked.push(txid);
        return { kind: 'mempool' };
      },
    };
    const { ctx, transactions } = contextOn(fresh.db, ledger, { now: T0 });
    assert.equal(await trackDueTickets(ctx), 4);
    assert.deepEqual(new Set(asked), new Set(seeded.map((t) => t.txid)), 'each asked once the block moved');
    assert.equal(asked.length, 4);
    assert.equal(transactions(), 1, 'what it heard applied in one transaction');
    for (const [status] of await statuses(seeded.map((t) => t.id))) assert.equal(status, 'SUCCESS');
    const records = await fresh.db.query<{ state: string }>(
      'SELECT state FROM transactions WHERE txid = ANY($1::text[])',
      [seeded.map((t) => t.txid)],
    );
    assert.deepEqual(
      records.map((r) => r.state),
      ['unconfirmed', 'unconfirmed', 'unconfirmed', 'unconfirmed'],
    );
  });
});
