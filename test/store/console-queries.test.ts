// The console's queries on both adapters: supply history from the outputs' moves, tickets per
// time bucket, delivery statistics with percentiles, and the search reads.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { deliveryStats } from '../../src/store/callbacks/delivery-stats.js';
import {
  knownFundingOutput,
  knownOutput,
  knownTransaction,
  ticketIdOfTransaction,
  transactionsOfAddress,
  unspentOfAddress,
} from '../../src/store/operator/console-search.js';
import { supplyHistory } from '../../src/store/operator/supply-history.js';
import { failedTickets, ticketTimeline } from '../../src/store/tickets/ticket-timeline.js';
import { supply } from '../../src/store/wallets/wallet-queries.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTicket, seedTransaction } from '../support/seed-store.js';

const token = { mintAddress: 'mint', burnAddress: 'burn' };
const T0 = Date.parse('2026-01-01T00:00:00Z') / 1000;
const at = (seconds: number) => new Date((T0 + seconds) * 1000);

describeOnEachDb('console queries', (fresh) => {
  let transfer: string;

  const seedAt = async (seconds: number, t: Parameters<typeof seedTransaction>[1]) => {
    const seeded = await seedTransaction(fresh.db, t);
    await fresh.db.query('UPDATE transactions SET created_at = $2 WHERE txid = $1', [
      seeded.txid,
      at(seconds),
    ]);
    return seeded;
  };

  before(async () => {
    // t=0 deploy 1000 to the treasury; t=100 mint 300 to alice; t=200 alice burns 100;
    // t=300 alice redeems 50 (a transfer to the burn address)
    const deploy = await seedAt(0, { outputs: [{ owner: 'mint', amount: 1000n, op: 'deploy+mint' }] });
    const mint = await seedAt(100, {
      spends: deploy.outpoints,
      outputs: [
        { owner: 'alice', amount: 300n },
        { owner: 'mint', amount: 700n },
      ],
    });
    transfer = mint.txid;
    const burn = await seedAt(200, {
      spends: [mint.outpoints[0]!],
      outputs: [
        { owner: 'burn', amount: 100n, op: 'burn' },
        { owner: 'alice', amount: 200n },
      ],
    });
    await seedAt(300, {
      spends: [burn.outpoints[1]!],
      outputs: [
        { owner: 'burn', amount: 50n },
        { owner: 'alice', amount: 150n },
      ],
    });
  });

  test('supply history: the split at the end of each bucket, ending at today', async () => {
    const history = await supplyHistory(fresh.db, token, at(399), 3600, 4);
    assert.deepEqual(history.buckets, { start: T0, width: 100, count: 4 });
    const split = (p: { circulating: bigint; treasury: bigint; burned: bigint }) => [
      p.circulating,
      p.treasury,
      p.burned,
    ];
    assert.deepEqual(history.points.map(split), [
      [0n, 1000n, 0n],
      [300n, 700n, 0n],
      [200n, 700n, 100n],
      [150n, 700n, 150n],
    ]);
    assert.deepEqual(
      history.points.map((p) => p.at),
      [T0 + 100, T0 + 200, T0 + 300, T0 + 400],
    );
    const now = await supply(fresh.db, token);
    assert.deepEqual(split(history.points.at(-1)!), split(now));
    // a window that starts after the burn carries the split at its start
    const recent = await supplyHistory(fresh.db, token, at(399), 150, 10);
    assert.equal(recent.buckets.start, T0 + 249);
    assert.deepEqual(split(recent.points[0]!), [200n, 700n, 100n]);
    assert.deepEqual(split(recent.points.at(-1)!), split(now));
  });

  test('tickets per bucket by status, and the failed ones newest first', async () => {
    const now = new Date();
    const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
    await seedTicket(fresh.db, { status: 'MINED', createdAt: minutesAgo(50) });
    await seedTicket(fresh.db, { status: 'MINED', createdAt: new Date(minutesAgo(50).getTime() + 10_000) });
    const older = await seedTicket(fresh.db, {
      status: 'FAILED',
      errors: 'first',
      createdAt: minutesAgo(30),
    });
    const newer = await seedTicket(fresh.db, {
      status: 'FAILED',
      errors: 'second',
      createdAt: new Date(now.getTime() - 15_000),
    });
    await seedTicket(fresh.db, { status: 'MINED', createdAt: minutesAgo(600) }); // outside the window
    const timeline = await ticketTimeline(fresh.db, now, 3600, 60);
    const total = (s: 'MINED' | 'FAILED') => timeline.points.reduce((n, p) => n + p.counts[s], 0);
    assert.equal(total('MINED'), 2);
    assert.equal(total('FAILED'), 2);
    assert.equal(timeline.points[0]!.counts.MINED, 2, 'the first bucket holds the two first tickets');
    assert.equal(timeline.points.at(-1)!.counts.FAILED, 1);
    assert.deepEqual(
      (await failedTickets(fresh.db, 10)).map((f) => [f.id, f.errors]),
      [
        [newer, 'second'],
        [older, 'first'],
      ],
    );
  });

  test('delivery statistics: rate, percentiles, failing receivers by origin', async () => {
    const now = new Date();
    const ticketA = await seedTicket(fresh.db, { callbackUrl: 'https://a.example/x' });
    const ticketB = await seedTicket(fresh.db, { callbackUrl: 'https://a.example/y' });
    const ticketC = await seedTicket(fresh.db, { callbackUrl: 'http://c.example:81/' });
    const event = async (ticket: string, seq: number, state: string) =>
      (
        await fresh.db.query<{ id: string }>(
          `INSERT INTO events (ticket_id, webhook_id, seq, payload, state) VALUES ($1, $2, $3, '{}', $4) RETURNING id::text AS id`,
          [ticket, `msg_${ticket}_${seq}`, seq, state],
        )
      )[0]!.id;
    const attempt = (e: string, code: number | null, ms: number, error: string | null, ago: number) =>
      fresh.db.query(
        'INSERT INTO delivery_attempts (event_id, attempted_at, status_code, latency_ms, error) VALUES ($1, $2, $3, $4, $5)',
        [e, new Date(now.getTime() - ago), code, ms, error],
      );
    const a = await event(ticketA, 1, 'dead');
    const b = await event(ticketB, 1, 'pending');
    const c = await event(ticketC, 1, 'delivered');
    await attempt(a, 500, 100, null, 5000);
    await attempt(b, null, 200, 'timeout', 1000);
    await attempt(c, 200, 300, null, 3000);
    await attempt(c, 410, 400, null, 2000);
    await attempt(c, 200, 10, null, 2 * 86_400_000); // too old
    const stats = await deliveryStats(fresh.db, new Date(now.getTime() - 86_400_000));
    assert.equal(stats.attempts, 4);
    assert.equal(stats.succeeded, 1);
    assert.deepEqual(stats.latency, { p50: 250, p90: 370, p99: 397 });
    assert.deepEqual(stats.events, { pending: 1, delivered: 1, failed: 0, dead: 1 });
    assert.deepEqual(
      stats.failingReceivers.map((r) => [r.origin, r.failures, r.attempts, r.lastError]),
      [
        ['https://a.example', 2, 2, 'timeout'],
        ['http://c.example:81', 1, 2, 'HTTP 410'],
      ],
    );
  });

  test('search reads: transaction, outputs, address, funding output, ticket of a txid', async () => {
    const tx = await knownTransaction(fresh.db, transfer);
    assert.deepEqual(tx?.receivers, ['alice', 'mint']);
    assert.equal(await knownTransaction(fresh.db, 'ff'.repeat(32)), null);
    const spent = await knownOutput(fresh.db, transfer, 0);
    assert.equal(spent?.state, 'spent');
    assert.equal(spent?.amount, 300n);
    assert.equal((await knownOutput(fresh.db, transfer, 1))?.state, 'unspent');
    const alice = await unspentOfAddress(fresh.db, 'alice', 10);
    assert.equal(alice.count, 1);
    assert.equal(alice.outputs[0]?.amount, 150n);
    assert.equal((await transactionsOfAddress(fresh.db, 'alice', 10)).length, 3);
    await fresh.db.query(
      "INSERT INTO funding_outputs (txid, vout, satoshis, script, state) VALUES ($1, 3, 500, '\\x00', 'available')",
      [transfer],
    );
    assert.deepEqual(await knownFundingOutput(fresh.db, transfer, 3), {
      txid: transfer,
      vout: 3,
      satoshis: 500n,
      state: 'available',
      reservedBy: null,
    });
    const ticket = await seedTicket(fresh.db, { txid: transfer, status: 'MINED' });
    assert.equal(await ticketIdOfTransaction(fresh.db, transfer), ticket);
  });
});
