// bench:verdicts — statements and round trips per transfer on the ledger-verdict path, counted
// through a Db proxy (every query is one round trip; a transaction adds BEGIN and COMMIT), on
// PGlite (the statements are the same on PostgreSQL). A transfer's verdicts after its
// submission: the broadcast's answer (mempool); the tracker's looks while it waits in the
// mempool (`BENCH_MEMPOOL_POLLS`, 20 by default: ten minutes of ARC polls); the push of its
// block (mined); the tracker's looks until it is final (`BENCH_POLLS` while its block is not
// final, 120 by default: on ARC, 6 blocks ten minutes apart, a poll every 30 s; then one). Besides
// statements and ledger looks, the ticket rows written (a trigger counts them). Applied one by
// one (`applyLedgerStatus` per verdict, as before batches) and in batches of `BATCH`
// (applyLedgerStatuses), when this tree has them. With `BENCH_PUSHES=0` nobody pushes the block
// (ARC without callbacks): the tracker's polls find it, and the bench counts how many it took.
// Counting, not timing: the figures are exact and do not depend on the machine.
import type { TxStatus } from '../src/ledger/port.js';
import { openPgliteDb } from '../src/store/db/pglite-db.js';
import { migrate } from '../src/store/migrate.js';
import type { ServiceContext } from '../src/usecases/context.js';
import * as apply from '../src/usecases/track/apply-ledger-status.js';
import { trackDueTickets } from '../src/usecases/track/track-tickets.js';
import { randomTxid, seedTicket, seedTransaction } from '../test/support/seed-store.js';
import { countStatements, roundTrips } from './counting-db.js';

/** The block sweep, where this tree has one (not before docs/adr/0006). */
const blockSweep = await import('../src/usecases/track/watch-blocks.js').catch(() => null);
/** The canaries, where SUCCESS tickets wait for a block (not before docs/adr/0008). */
const waiting = await import('../src/usecases/track/wait-for-blocks.js').catch(() => null);

const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 64);
const POLLS = Number(process.env.BENCH_POLLS ?? 120);
const POLL_MS = 1000;
/** Polls while the transfers wait in the mempool for their block (20: ten minutes of ARC polls). */
const MEMPOOL_POLLS = Number(process.env.BENCH_MEMPOOL_POLLS ?? 20);
const BATCHES = (process.env.BENCH_BATCH ?? '1,16,64').split(',').map(Number);
/**
 * 1: the block's statuses are pushed (the devnet, ARC's callbacks); 0: nobody pushes (ARC
 * without callbacks), and the tracker's polls find the block: the bench then also counts the
 * polls from the block until every ticket is MINED.
 */
const PUSHES = process.env.BENCH_PUSHES !== '0';

const BLOCK = 'ab'.repeat(32);
const START = new Date('2026-11-23T00:00:00Z');
const minedStatus: TxStatus = {
  kind: 'mined',
  blockHash: BLOCK,
  height: 10,
  index: 1,
  blockTime: 1_700_000_000,
  merklePath: '00',
};

async function run(batch: number | 'one by one'): Promise<Record<string, number>> {
  const db = await openPgliteDb('memory');
  await migrate(db);
  const txids: string[] = [];
  for (let i = 0; i < TRANSFERS; i++) {
    const parent = await seedTransaction(db, { outputs: [{ owner: `from${i}`, amount: 10n }] });
    const txid = randomTxid();
    // Submitted a second before the bench's clock starts.
    const id = await seedTicket(db, {
      txid,
      status: 'BROADCASTING',
      createdAt: new Date(START.getTime() - 1000),
    });
    await seedTransaction(db, {
      txid,
      spends: [parent.outpoints[0]!],
      ticketId: id,
      outputs: [
        { owner: `to${i}`, amount: 9n },
        { owner: `from${i}`, amount: 1n },
      ],
    });
    await db.query(
      `INSERT INTO funding_outputs (txid, vout, satoshis, script, state, reserved_by) VALUES ($1, 0, 100, '\\x00', 'reserved', $2)`,
      [randomTxid(), id],
    );
    txids.push(txid);
  }
  // Ticket rows written, counted by the database itself (not a round trip of the bench's).
  await db.query(`CREATE TABLE bench_ticket_writes (n int NOT NULL); INSERT INTO bench_ticket_writes VALUES (0);
    CREATE FUNCTION bench_count_ticket_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE bench_ticket_writes SET n = n + 1; RETURN NULL; END $$;
    CREATE TRIGGER bench_ticket_writes AFTER UPDATE ON tickets FOR EACH ROW EXECUTE FUNCTION bench_count_ticket_write();`);
  const { counts, uncounted } = countStatements(db);
  const ticketWrites = async () =>
    (await uncounted<{ n: number }>('SELECT n FROM bench_ticket_writes'))[0]!.n;
  let now = START;
  let tipHeight = 11;
  let looks = 0;
  let ledgerSays: TxStatus = { kind: 'mempool' };
  const ctx = {
    db,
    ledger: {
      status: async () => {
        looks++;
        return ledgerSays;
      },
      tip: async () => ({ height: tipHeight, hash: BLOCK, time: 0 }),
    },
    now: () => now,
    tracker: { pollIntervalMs: POLL_MS, finalConfirmations: 6, firstLookAfterMs: 5000 },
    log: { info() {}, warn() {}, error: (obj: object, msg?: string) => console.error(msg, obj) },
  } as unknown as ServiceContext;
  const applyAll = async (view: (txid: string) => apply.LedgerView) => {
    const many = (apply as { applyLedgerStatuses?: typeof apply.applyLedgerStatuses }).applyLedgerStatuses;
    if (batch === 'one by one' || many === undefined) {
      for (const txid of txids) await apply.applyLedgerStatus(ctx, txid, view(txid));
      return;
    }
    for (let i = 0; i < txids.length; i += batch) {
      await many(
        ctx,
        txids.slice(i, i + batch).map((txid) => ({ txid, view: view(txid) })),
      );
    }
  };
  // One poll of the tracker, in its order: the canaries (where this tree has them), the watched
  // blocks (where it has them), the tickets; each sweep drained until it claims fewer than it may.
  const trackerPoll = async () => {
    now = new Date(now.getTime() + POLL_MS);
    await waiting?.wakeCanariesNow(ctx);
    while (blockSweep !== null && (await blockSweep.watchDueBlocks(ctx, 50)) === 50) {
      // drain
    }
    while ((await trackDueTickets(ctx, 50)) === 50) {
      // drain
    }
  };
  let pollsToMined = 0;
  const minedCount = async () =>
    (await uncounted<{ n: number }>("SELECT count(*)::int AS n FROM tickets WHERE status = 'MINED'"))[0]!.n;
  const phase = async (name: string, work: () => Promise<void>) => {
    const before = { statements: counts.statements, transactions: counts.transactions };
    const looksBefore = looks;
    const writesBefore = await ticketWrites();
    await work();
    return [
      [`${name} ledger status looks`, (looks - looksBefore) / TRANSFERS],
      [`${name} ticket rows written`, ((await ticketWrites()) - writesBefore) / TRANSFERS],
      [`${name} statements`, (roundTrips(counts) - roundTrips(before)) / TRANSFERS],
      [`${name} transactions`, (counts.transactions - before.transactions) / TRANSFERS],
    ] as const;
  };
  const rows = [
    ...(await phase('broadcast answer', () =>
      applyAll(() => ({ status: { kind: 'mempool' }, fromBroadcast: true })),
    )),
    ...(await phase('tracker while in the mempool', async () => {
      for (let poll = 0; poll < MEMPOOL_POLLS; poll++) await trackerPoll();
      ledgerSays = minedStatus;
    })),
    ...(PUSHES
      ? await phase('mined push', () => applyAll(() => ({ status: minedStatus })))
      : await phase('tracker finding the block', async () => {
          while ((await minedCount()) < TRANSFERS) {
            if (++pollsToMined > 100) throw new Error('the tracker did not find the block in 100 polls');
            await trackerPoll();
          }
        })),
    ...(await phase('tracker until final', async () => {
      // POLLS looks while 2 deep, one once 6 deep (then never again).
      for (const height of [...Array.from({ length: POLLS }, () => 11), 15]) {
        tipHeight = height;
        await trackerPoll();
      }
    })),
  ];
  const left = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM tickets WHERE status <> 'MINED' OR next_check_at IS NOT NULL",
  );
  if (left[0]!.n !== 0) throw new Error(`${left[0]!.n} tickets not MINED and final`);
  await db.close();
  return {
    ...Object.fromEntries(rows),
    ...(PUSHES ? {} : { 'polls from the block to MINED': pollsToMined }),
  };
}

const batched = 'applyLedgerStatuses' in apply;
console.log(
  `${TRANSFERS} transfers; ${batched ? 'this tree applies verdicts in batches' : 'one verdict per transaction (before batches)'}`,
);
for (const batch of batched ? BATCHES : (['one by one'] as const)) {
  const r = await run(batch);
  const total = Object.entries(r)
    .filter(([k]) => k.endsWith('statements'))
    .reduce((s, [, v]) => s + v, 0);
  const rowsWritten = Object.entries(r)
    .filter(([k]) => k.endsWith('ticket rows written'))
    .reduce((s, [, v]) => s + v, 0);
  const transactions = Object.entries(r)
    .filter(([k]) => k.endsWith('transactions'))
    .reduce((s, [, v]) => s + v, 0);
  console.log(
    `${batch === 'one by one' ? 'one by one' : `batches of ${batch}`}: ${total.toFixed(2)} statements (= round trips) and ${transactions.toFixed(2)} transactions per transfer, ${rowsWritten.toFixed(2)} ticket rows written; ${Object.entries(
      r,
    )
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}`,
  );
}
