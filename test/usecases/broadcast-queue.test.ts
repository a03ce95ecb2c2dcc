// The broadcast queue: while a batch is at the ledger, what arrives gathers and leaves as the
// next batch (one broadcastMany, one database transaction for its answers, at most maxBatch);
// each caller gets its own outcome; ledger trouble is an outcome; close() flushes.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type BroadcastResult, type Ledger, LedgerUnavailableError } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db/db.js';
import type { ServiceContext } from '../../src/usecases/context.js';
import { type BroadcastItem, createBroadcastQueue } from '../../src/usecases/submit/broadcast-queue.js';
import { countingTransactions } from '../support/counting-transactions.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';

type Answer = (raw: Uint8Array, txid: string) => BroadcastResult;

/** A ledger whose broadcastMany waits for `release()` and answers per item with `answer`. */
function gatedLedger(answer: Answer) {
  const calls: string[][] = [];
  let gate: { promise: Promise<void>; open: () => void } = openGate();
  function openGate() {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => {
      open = resolve;
    });
    return { promise, open };
  }
  const txidOfRaw = new Map<string, string>();
  const ledger = {
    async broadcastMany(raws: readonly Uint8Array[]) {
      const txids = raws.map((r) => txidOfRaw.get(Buffer.from(r).toString('hex'))!);
      calls.push(txids);
      const current = gate;
      await current.promise;
      return raws.map((r, i) => answer(r, txids[i]!));
    },
  } as unknown as Ledger;
  return {
    ledger,
    calls,
    known: (item: BroadcastItem) => txidOfRaw.set(Buffer.from(item.rawTx).toString('hex'), item.txid),
    release() {
      gate.open();
      gate = openGate();
    },
    openForever() {
      gate.open();
      const open = gate;
      gate = open;
    },
  };
}

function contextOn(db: Db, ledger: Ledger): ServiceContext & { transactions: () => number } {
  const counting = countingTransactions(db);
  const quiet = { info() {}, warn() {}, error() {} };
  return {
    db: counting.db,
    ledger,
    now: () => new Date(),
    tracker: { pollIntervalMs: 30_000, finalConfirmations: 6, firstLookAfterMs: 5000 },
    log: quiet,
    transactions: counting.transactions,
  } as unknown as ServiceContext & { transactions: () => number };
}

async function broadcastingTicket(db: Db): Promise<BroadcastItem> {
  const txid = randomTxid();
  const rawTx = new Uint8Array(Buffer.from(txid, 'hex'));
  const ticketId = await seedTicket(db, { txid, rawTx, status: 'BROADCASTING' });
  await seedTransaction(db, { txid, rawTx, outputs: [{ owner: 'someone', amount: 1n }] });
  return { ticketId, txid, rawTx };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check(), 'condition reached');
};

describeOnEachDb('broadcast queue', (fresh) => {
  const statusOf = async (ticketId: string) =>
    (await fresh.db.query<{ status: string }>('SELECT status FROM tickets WHERE id = $1', [ticketId]))[0]!
      .status;

  it('gathers what arrives while a batch is out, up to maxBatch, one transaction per batch', async () => {
    const gated = gatedLedger((_, txid) => ({ ok: true, txid, status: { kind: 'mempool' } }));
    const ctx = contextOn(fresh.db, gated.ledger);
    const queue = createBroadcastQueue(ctx, { maxBatch: 4 });
    const items = [];
    for (let i = 0; i < 11; i++) items.push(await broadcastingTicket(fresh.db));
    for (const item of items) gated.known(item);
    const first = queue.enqueue(items[0]!);
    await until(() => gated.calls.length === 1);
    const rest = items.slice(1).map((item) => queue.enqueue(item));
    gated.openForever();
    const outcomes = await Promise.all([first, ...rest]);
    assert.deepEqual(
      gated.calls.map((c) => c.length),
      [1, 4, 4, 2],
    );
    assert.deepEqual(
      gated.calls.flat(),
      items.map((i) => i.txid),
      'in arrival order',
    );
    assert.equal(ctx.transactions(), 4, 'one database transaction per batch');
    for (const outcome of outcomes)
      assert.deepEqual(outcome, { kind: 'accepted', status: { kind: 'mempool' } });
    for (const item of items) assert.equal(await statusOf(item.ticketId), 'SUCCESS');
    await queue.close();
  });

  it("answers each caller its own outcome, after the batch's answers are committed", async () => {
    const [accepted, refused, later] = [
      await broadcastingTicket(fresh.db),
      await broadcastingTicket(fresh.db),
      await broadcastingTicket(fresh.db),
    ] as [BroadcastItem, BroadcastItem, BroadcastItem];
    const gated = gatedLedger((_, txid): BroadcastResult => {
      if (txid === refused.txid)
        return { ok: false, txid, arcCode: 465, reason: 'fee too low', retryable: false };
      if (txid === later.txid)
        return { ok: false, txid, arcCode: 462, reason: 'parent unknown', retryable: true };
      return { ok: true, txid, status: { kind: 'mempool' } };
    });
    for (const item of [accepted, refused, later]) gated.known(item);
    gated.openForever();
    const ctx = contextOn(fresh.db, gated.ledger);
    const queue = createBroadcastQueue(ctx);
    const outcomes = await Promise.all([accepted, refused, later].map((item) => queue.enqueue(item)));
    assert.equal(gated.calls.length, 1, 'one broadcastMany');
    assert.deepEqual(outcomes[0], { kind: 'accepted', status: { kind: 'mempool' } });
    assert.deepEqual(outcomes[1], {
      kind: 'rejected',
      reason: 'ledger refused the transaction (ARC 465): fee too low',
      arcCode: 465,
    });
    assert.deepEqual(outcomes[2], { kind: 'unavailable', reason: 'parent unknown' });
    assert.equal(await statusOf(accepted.ticketId), 'SUCCESS');
    assert.equal(await statusOf(refused.ticketId), 'FAILED');
    assert.equal(await statusOf(later.ticketId), 'BROADCASTING');
    await queue.close();
  });

  it('answers unavailable when the ledger is out of reach, and flushes on close', async () => {
    let down = true;
    const ledger = {
      async broadcastMany(raws: readonly Uint8Array[]) {
        await new Promise((r) => setTimeout(r, 20));
        if (down) throw new LedgerUnavailableError('ARC unreachable');
        return raws.map((r) => ({
          ok: true,
          txid: Buffer.from(r).toString('hex'),
          status: { kind: 'mempool' },
        }));
      },
    } as unknown as Ledger;
    const queue = createBroadcastQueue(contextOn(fresh.db, ledger));
    const item = await broadcastingTicket(fresh.db);
    assert.deepEqual(await queue.enqueue(item), { kind: 'unavailable', reason: 'ARC unreachable' });
    assert.equal(await statusOf(item.ticketId), 'BROADCASTING');

    down = false;
    const items = [await broadcastingTicket(fresh.db), await broadcastingTicket(fresh.db)];
    const pending = items.map((i) => queue.enqueue(i));
    await queue.close();
    for (const i of items)
      assert.equal(await statusOf(i.ticketId), 'SUCCESS', 'flushed before close returned');
    assert.deepEqual(
      (await Promise.all(pending)).map((o) => o.kind),
      ['accepted', 'accepted'],
    );
    const afterClose = await queue.enqueue(await broadcastingTicket(fresh.db));
    assert.equal(afterClose.kind, 'unavailable');
  });
});
