// The tracker backs off on a ticket's failures in a row, not on every look it ever had: a
// ticket watched for a long time is looked at again 1 s after a first failure (it waited the
// full minute before), 2 s after a second, and a look that writes a status starts over.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Ledger, LedgerUnavailableError } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db/db.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { trackDueTickets } from '../../src/usecases/track/track-tickets.js';
import { MEMPOOL_BACKSTOP_POLLS, retryDelayMs } from '../../src/usecases/track/tracker-timing.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTicket } from '../support/seed-store.js';

const T0 = new Date('2026-11-22T00:00:00.000Z');
const POLL_MS = 30_000;

function contextOn(db: Db, clock: { now: Date }, ledgerUp: () => boolean): ServiceContext {
  const down = () => Promise.reject(new LedgerUnavailableError('ARC unreachable'));
  const ledger = {
    status: async () => (ledgerUp() ? { kind: 'mempool' as const } : down()),
    tip: async () => (ledgerUp() ? { height: 10, hash: '00'.repeat(32) } : down()),
  } as unknown as Ledger;
  const quiet = { info() {}, warn() {}, error() {} };
  return {
    db,
    ledger,
    now: () => clock.now,
    tracker: { pollIntervalMs: POLL_MS, finalConfirmations: 6, firstLookAfterMs: 5000 },
    log: quiet,
  } as unknown as ServiceContext;
}

describeOnEachDb('tracker backoff', (fresh) => {
  it('follows failures in a row, and a successful look starts over', async () => {
    const { db } = fresh;
    const id = await seedTicket(db, { status: 'SUCCESS', createdAt: T0 });
    // Watched a long time: many looks, none failed.
    await db.query('UPDATE tickets SET attempts = 40, next_check_at = $2 WHERE id = $1', [id, T0]);
    const clock = { now: T0 };
    let up = false;
    const ctx = contextOn(db, clock, () => up);
    const nextCheckIn = async () => {
      const [row] = await db.query<{ next_check_at: Date; failures: number }>(
        'SELECT next_check_at, failures FROM tickets WHERE id = $1',
        [id],
      );
      return { ms: new Date(row!.next_check_at).getTime() - clock.now.getTime(), failures: row!.failures };
    };

    assert.equal(await trackDueTickets(ctx), 1);
    assert.deepEqual(await nextCheckIn(), { ms: 1000, failures: 1 });
    clock.now = new Date(T0.getTime() + 1000);
    assert.equal(await trackDueTickets(ctx), 1);
    assert.deepEqual(await nextCheckIn(), { ms: 2000, failures: 2 });

    up = true;
    clock.now = new Date(T0.getTime() + 3000);
    assert.equal(await trackDueTickets(ctx), 1);
    // Still in the mempool: it waits for a block, or its backstop (docs/adr/0008).
    assert.deepEqual(await nextCheckIn(), { ms: MEMPOOL_BACKSTOP_POLLS * POLL_MS, failures: 0 });

    up = false;
    clock.now = new Date(T0.getTime() + 3000 + MEMPOOL_BACKSTOP_POLLS * POLL_MS);
    assert.equal(await trackDueTickets(ctx), 1);
    assert.deepEqual(await nextCheckIn(), { ms: 1000, failures: 1 });
  });
});

describe('retryDelayMs', () => {
  it('doubles from 1 s and stops at a minute', () => {
    assert.deepEqual(
      [0, 1, 2, 5, 6, 10, 1000].map(retryDelayMs),
      [1000, 2000, 4000, 32_000, 60_000, 60_000, 60_000],
    );
  });
});
