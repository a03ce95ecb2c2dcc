// The batched write that accepts transfers (store/submissions/submission-writes.ts), on both databases: a
// batch commits its winners in one transaction and settles every loser on its own — an input
// another transaction holds (INPUT_LOCKED) or spent (INPUT_SPENT), the same transaction
// submitted before (its ticket), a funding lease lost — without failing the batch or leaving
// anything of the losers behind.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { freezeAddress } from '../../src/store/controls/freeze-store.js';
import { prepareSeizure } from '../../src/store/controls/seizure-store.js';
import type { Db } from '../../src/store/db/db.js';
import { leaseFundingOutputs } from '../../src/store/funding/funding-leases.js';
import { availableFundingUpTo } from '../../src/store/funding/funding-pool.js';
import { type Submission, writeSubmissions } from '../../src/store/submissions/submission-writes.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid, holdOpen, inside, runWhileHeld } from '../support/held-transaction.js';
import { randomTxid, seedFundingOutputs, seedTicket, seedTransaction } from '../support/seed-store.js';
import { aSubmission } from '../support/submission-fixture.js';

const OWNER = 'lease-test-owner';
const now = new Date('2026-11-23T10:00:00Z');
const until = new Date('2026-11-23T11:00:00Z');

async function fundingOutputs(db: Db, count: number): Promise<{ txid: string; vout: number }[]> {
  await seedFundingOutputs(db, count, () => 1000);
  // Four calls: the lease takes at most a quarter of what is free at a time.
  const leased = [];
  while (leased.length < count) {
    const got = await leaseFundingOutputs(db, { owner: OWNER, now, until }, count);
    if (got.length === 0) break;
    leased.push(...got);
  }
  assert.equal(leased.length, count);
  return leased.map((o) => ({ txid: o.txid, vout: o.vout }));
}

/** A transfer by `sender`: 7 to 'recipient', 3 back to itself. */
function sentBy(sender: string): Pick<Submission, 'outputs' | 'senders' | 'receivers'> {
  return {
    outputs: [
      {
        vout: 0,
        owner: 'recipient',
        amount: 7n,
        op: 'transfer',
        script: new Uint8Array([0x51]),
        satoshis: 1n,
      },
      { vout: 1, owner: sender, amount: 3n, op: 'transfer', script: new Uint8Array([0x52]), satoshis: 1n },
    ],
    senders: [sender],
    receivers: ['recipient', sender],
  };
}

function submission(
  inputs: readonly string[],
  funding: { txid: string; vout: number },
  extra: Partial<Submission> = {},
): Submission {
  return aSubmission({
    rawTx: new Uint8Array([1, 0, 0, 0, inputs.length]),
    inputs: inputs.map((o) => ({ txid: o.slice(0, 64), vout: Number(o.slice(65)) })),
    funding,
    leaseOwner: OWNER,
    ...sentBy('sender'),
    now,
    firstCheckAt: new Date(now.getTime() + 5000),
    ...extra,
  });
}

describeOnEachDb('submission batches', (fresh) => {
  const coins = async (n: number, owner = 'sender') =>
    (
      await seedTransaction(fresh.db, {
        outputs: Array.from({ length: n }, () => ({ owner, amount: 10n })),
      })
    ).outpoints;
  const count = async (sql: string, params: string[]) =>
    Number((await fresh.db.query<{ n: string }>(sql, params))[0]!.n);

  it('writes every winner with its ticket, reservations, funding, record and outputs under consecutive scores', async () => {
    const inputs = await coins(3);
    const funding = await fundingOutputs(fresh.db, 3);
    const batch = inputs.map((o, i) =>
      submission([o], funding[i]!, i === 1 ? { callbackUrl: 'https://wallet.example/cb' } : {}),
    );
    const verdicts = await fresh.db.transaction((tx) => writeSubmissions(tx, batch, until));
    assert.deepEqual(
      verdicts.map((v) => v.kind),
      ['created', 'created', 'created'],
    );
    const rows = await fresh.db.query<{ txid: string; score: string; senders: string[]; outs: number[] }>(
      'SELECT txid, score::text AS score, senders, outs FROM transactions WHERE txid = ANY($1::text[]) ORDER BY score',
      [batch.map((s) => s.txid)],
    );
    assert.equal(rows.length, 3);
    const scores = rows.map((r) => BigInt(r.score));
    assert.deepEqual(scores, [scores[0]!, scores[0]! + 1n, scores[0]! + 2n], 'one draw for the batch');
    assert.deepEqual(rows[0]!.senders, ['sender']);
    assert.deepEqual(rows[0]!.outs, [0, 1]);
    for (const s of batch) {
      assert.equal(await count('SELECT count(*) AS n FROM tickets WHERE id = $1', [s.ticketId]), 1);
      assert.equal(
        await count('SELECT count(*) AS n FROM token_outputs WHERE reserved_by = $1 AND spent_by = $2', [
          s.ticketId,
          s.txid,
        ]),
        1,
      );
      assert.equal(
        await count(
          `SELECT count(*) AS n FROM funding_outputs WHERE reserved_by = $1 AND state = 'reserved' AND lease_owner IS NULL`,
          [s.ticketId],
        ),
        1,
      );
      assert.equal(await count('SELECT count(*) AS n FROM token_outputs WHERE txid = $1', [s.txid]), 2);
      assert.equal(
        await count('SELECT count(*) AS n FROM transaction_addresses WHERE txid = $1', [s.txid]),
        2,
      );
    }
    const events = await fresh.db.query<{ ticket_id: string; seq: number; payload: { status: string } }>(
      'SELECT ticket_id::text AS ticket_id, seq, payload FROM events WHERE ticket_id = ANY($1::uuid[])',
      [batch.map((s) => s.ticketId)],
    );
    assert.deepEqual(
      events.map((e) => [e.ticket_id, e.seq, e.payload.status]),
      [[batch[1]!.ticketId, 1, 'BROADCASTING']],
    );
  });

  it('settles losers one by one: held input INPUT_LOCKED, spent input INPUT_SPENT, lost lease, earlier submission', async () => {
    const [free, held, spent] = await coins(3);
    const holder = await seedTicket(fresh.db);
    await seedTransaction(fresh.db, { spends: [held!], ticketId: holder });
    await fresh.db.query("UPDATE token_outputs SET spent_by = 'aa' WHERE txid = $1 AND vout = $2", [
      spent!.slice(0, 64),
      Number(spent!.slice(65)),
    ]);
    const [f1, f2, f3, f4, f5] = await fundingOutputs(fresh.db, 5);
    // An earlier submission of the same transaction, already written.
    const [alone] = await coins(1);
    const earlier = submission([alone!], f5!);
    assert.equal(
      (await fresh.db.transaction((tx) => writeSubmissions(tx, [earlier], until)))[0]!.kind,
      'created',
    );
    // f4's lease has moved to another process.
    await fresh.db.query(
      "UPDATE funding_outputs SET lease_owner = 'someone else' WHERE txid = $1 AND vout = $2",
      [f4!.txid, f4!.vout],
    );
    const [lostLeaseInput] = await coins(1);
    const batch = [
      submission([held!], f1!),
      submission([free!], f2!),
      submission([spent!], f3!),
      submission([lostLeaseInput!], f4!),
      { ...submission([alone!], f1!), submittedTxid: earlier.submittedTxid },
    ];
    const verdicts = await fresh.db.transaction((tx) => writeSubmissions(tx, batch, until));
    assert.deepEqual(verdicts[0], {
      kind: 'conflict',
      code: 'INPUT_LOCKED',
      detail: `outpoint ${held} was locked in a previous transaction attempt`,
    });
    assert.deepEqual(verdicts[1], { kind: 'created' });
    assert.deepEqual(verdicts[2], {
      kind: 'conflict',
      code: 'INPUT_SPENT',
      detail: `outpoint ${spent} already spent`,
    });
    assert.deepEqual(verdicts[3], { kind: 'funding-lost' });
    assert.deepEqual(verdicts[4], { kind: 'duplicate', ticketId: earlier.ticketId });

    const losers = [batch[0]!, batch[2]!, batch[3]!, batch[4]!];
    for (const s of losers) {
      assert.equal(await count('SELECT count(*) AS n FROM tickets WHERE id = $1', [s.ticketId]), 0);
      assert.equal(await count('SELECT count(*) AS n FROM transactions WHERE txid = $1', [s.txid]), 0);
      assert.equal(await count('SELECT count(*) AS n FROM token_outputs WHERE spent_by = $1', [s.txid]), 0);
    }
    assert.equal(
      await count('SELECT count(*) AS n FROM token_outputs WHERE reserved_by = $1', [holder]),
      1,
      'the holder keeps its input',
    );
    // Losers' funding outputs are still this process's, available; f4 stays with its new owner.
    for (const f of [f1!, f3!]) {
      assert.equal(
        await count(
          `SELECT count(*) AS n FROM funding_outputs WHERE txid = $1 AND vout = $2::int AND state = 'available' AND lease_owner = '${OWNER}'`,
          [f.txid, String(f.vout)],
        ),
        1,
      );
    }
    assert.equal(
      await count(
        `SELECT count(*) AS n FROM funding_outputs WHERE txid = $1 AND vout = $2::int AND state = 'available' AND lease_owner = 'someone else'`,
        [f4!.txid, String(f4!.vout)],
      ),
      1,
    );
    assert.equal(
      await count(
        'SELECT count(*) AS n FROM token_outputs WHERE txid = $1 AND vout = $2::int AND reserved_by IS NULL AND spent_by IS NULL',
        [lostLeaseInput!.slice(0, 64), lostLeaseInput!.slice(65)],
      ),
      1,
      'the input of the lost-lease submission is free again',
    );
  });

  it("one batch of several lease owners (the writer's): each claims its own lease, and a loser's funding goes back to its owner", async () => {
    const [c1, c2, c3] = await coins(3);
    const [f1, f2, f3] = await fundingOutputs(fresh.db, 3);
    // f2 and f3 are leased to a second api process; f1 stays with OWNER.
    await fresh.db.query(
      "UPDATE funding_outputs SET lease_owner = 'second process' WHERE (txid, vout) IN (($1, $2::int), ($1, $3::int))",
      [f2!.txid, String(f2!.vout), String(f3!.vout)],
    );
    const batch = [
      submission([c1!], f1!),
      submission([c2!], f2!, { leaseOwner: 'second process' }),
      // Its owner is named wrong: the lease is not its to take.
      submission([c3!], f3!),
      // Spends what the first spends, from the second process: it loses its input.
      submission([c1!], f3!, { leaseOwner: 'second process' }),
    ];
    const [first, second, wrongOwner] = await fresh.db.transaction((tx) =>
      writeSubmissions(tx, batch.slice(0, 3), until),
    );
    assert.deepEqual(
      [first, second, wrongOwner],
      [{ kind: 'created' }, { kind: 'created' }, { kind: 'funding-lost' }],
    );
    const [loser] = await fresh.db.transaction((tx) => writeSubmissions(tx, [batch[3]!], until));
    assert.equal(loser!.kind, 'conflict');
    assert.equal(
      await count(
        `SELECT count(*) AS n FROM funding_outputs WHERE txid = $1 AND vout = $2::int AND state = 'available' AND lease_owner = 'second process'`,
        [f3!.txid, String(f3!.vout)],
      ),
      1,
      "the loser's funding output is its owner's again",
    );
  });

  it('leases never hand one output to two owners, and take at most a quarter of the free ones (plus one)', async () => {
    await fresh.db.query("UPDATE funding_outputs SET state = 'spent' WHERE state = 'available'");
    await seedFundingOutputs(fresh.db, 40, () => 500);
    const a = await leaseFundingOutputs(fresh.db, { owner: 'a', now, until }, 100);
    assert.equal(a.length, 11, '40 / 4 + 1');
    const racing = await Promise.all(
      ['b', 'c', 'd'].map((owner) => leaseFundingOutputs(fresh.db, { owner, now, until }, 100)),
    );
    const all = [a, ...racing].flat().map((o) => `${o.txid}_${o.vout}`);
    assert.equal(new Set(all).size, all.length, 'no output leased twice');
    // An expired lease is free for anyone.
    const later = new Date(until.getTime() + 1);
    const after = await leaseFundingOutputs(
      fresh.db,
      { owner: 'e', now: later, until: new Date(later.getTime() + 1000) },
      1000,
    );
    assert.ok(after.length > 0);
    assert.ok(after.some((o) => a.some((x) => x.txid === o.txid && x.vout === o.vout)));
  });

  it('a lease takes min(count, a quarter of the free outputs plus one), and the pool is counted up to a limit', async () => {
    const freshPool = async (size: number) => {
      await fresh.db.query("UPDATE funding_outputs SET state = 'spent' WHERE state = 'available'");
      const txid = randomTxid();
      await fresh.db.query(
        `INSERT INTO funding_outputs (txid, vout, satoshis, script, state)
         SELECT $1, v, 500, '\\x76a9'::bytea, 'available' FROM generate_series(0, $2::int - 1) AS v`,
        [txid, size],
      );
    };
    // The free outputs are counted only up to 4 x count: around that bound the answer must not move.
    for (const count of [1, 3, 9, 10, 11, 12, 100]) {
      await freshPool(40);
      const leased = await leaseFundingOutputs(fresh.db, { owner: `q${count}`, now, until }, count);
      assert.equal(leased.length, Math.min(count, Math.floor(40 / 4) + 1), `lease of ${count} from 40 free`);
    }
    await freshPool(40);
    assert.equal(await availableFundingUpTo(fresh.db, 10), 10);
    assert.equal(await availableFundingUpTo(fresh.db, 40), 40);
    assert.equal(await availableFundingUpTo(fresh.db, 100), 40);
    assert.equal(await availableFundingUpTo(fresh.db, 0), 0);
  });

  /** Freezes the owner of `outpoint` and keeps a seizure of it, in `db` (a transaction's, or not). */
  const seize = async (db: Db, outpoint: string) => {
    await freezeAddress(db, { address: 'sender', reason: 'order', actor: 'test', at: now });
    const kept = await prepareSeizure(
      db,
      {
        id: randomUUID(),
        reference: `order ${outpoint}`,
        reason: 'order',
        reissueTo: 'R',
        actor: 'test',
        at: now,
      },
      [{ txid: outpoint.slice(0, 64), vout: Number(outpoint.slice(65)) }],
      { amount: 10n, reissue: new Uint8Array([1]) },
    );
    assert.equal(kept.kind, 'prepared');
  };
  const reservedBy = async (outpoint: string) =>
    (
      await fresh.db.query<{ reserved_by: string | null }>(
        'SELECT reserved_by::text AS reserved_by FROM token_outputs WHERE txid = $1 AND vout = $2',
        [outpoint.slice(0, 64), Number(outpoint.slice(65))],
      )
    )[0]!.reserved_by;

  it('an output seized after the transfer was screened is not reserved: OUTPUT_SEIZED, nothing kept', async () => {
    const [taken, free] = await coins(2);
    const [f1, f2] = await fundingOutputs(fresh.db, 2);
    // The submissions were screened (nothing seized) before the seizure committed.
    await seize(fresh.db, taken!);
    const batch = [submission([taken!], f1!), submission([free!], f2!)];
    const verdicts = await fresh.db.transaction((tx) => writeSubmissions(tx, batch, until));
    assert.equal(verdicts[0]!.kind, 'conflict');
    assert.equal(verdicts[0]!.kind === 'conflict' && verdicts[0]!.code, 'OUTPUT_SEIZED');
    assert.equal(verdicts[1]!.kind, 'created', 'the rest of the batch is written');
    assert.equal(await reservedBy(taken!), null);
    assert.equal(await count('SELECT count(*) AS n FROM tickets WHERE id = $1', [batch[0]!.ticketId]), 0);
  });

  it('a claim that waited for a seizure holding the output leaves it: OUTPUT_SEIZED', async (t) => {
    if (fresh.db.dialect !== 'postgres') return t.skip('PGlite runs one transaction at a time');
    const [taken] = await coins(1);
    const [f1] = await fundingOutputs(fresh.db, 1);
    const seizure = holdOpen(fresh.db, async (tx) => {
      await seize(inside(fresh.db, tx), taken!);
      return backendPid(tx);
    });
    const batch = [submission([taken!], f1!)];
    const writing = runWhileHeld(
      fresh.db,
      seizure,
      () => fresh.db.transaction((tx) => writeSubmissions(tx, batch, until)),
      'the claim to wait for the seizure',
    );
    const [verdict] = await writing;
    assert.equal(verdict!.kind === 'conflict' && verdict!.code, 'OUTPUT_SEIZED', JSON.stringify(verdict));
    assert.equal(await reservedBy(taken!), null);
  });

  describe('the daily limit, judged at the write', () => {
    const operator = { mintAddress: 'treasury', feeAddress: 'fees', burnAddress: 'burns' };
    const limit = { perAddressPerDay: 10n, since: new Date('2026-11-23T00:00:00Z'), operator };
    const sending = (sender: string, input: string, funding: { txid: string; vout: number }) =>
      submission([input], funding, sentBy(sender));

    it("a batch's transfers of one sender pass together only within the limit; the one over it is taken out", async () => {
      const [a, b] = await coins(2, 'daily a');
      const [c] = await coins(1, 'daily b');
      const [f1, f2, f3] = await fundingOutputs(fresh.db, 3);
      const batch = [sending('daily a', a!, f1!), sending('daily a', b!, f2!), sending('daily b', c!, f3!)];
      const verdicts = await fresh.db.transaction((tx) => writeSubmissions(tx, batch, until, limit));
      assert.deepEqual(
        verdicts.map((v) => (v.kind === 'conflict' ? v.code : v.kind)),
        ['created', 'DAILY_LIMIT_EXCEEDED', 'created'],
      );
      assert.match((verdicts[1] as { detail: string }).detail, /daily a has sent 7 today; 7 more would pass/);
      assert.equal(await reservedBy(b!), null, 'nothing of the one over the limit is kept');
      assert.equal(await count('SELECT count(*) AS n FROM tickets WHERE id = $1', [batch[1]!.ticketId]), 0);
      // A later batch counts what committed: 7 sent, 7 more is over.
      const [d] = await coins(1, 'daily a');
      const [f4] = await fundingOutputs(fresh.db, 1);
      const [later] = await fresh.db.transaction((tx) =>
        writeSubmissions(tx, [sending('daily a', d!, f4!)], until, limit),
      );
      assert.equal(later!.kind === 'conflict' && later!.code, 'DAILY_LIMIT_EXCEEDED');
      // The operator's own moves are not limited.
      const [e] = await coins(1, 'treasury');
      const [f5] = await fundingOutputs(fresh.db, 1);
      const [own] = await fresh.db.transaction((tx) =>
        writeSubmissions(tx, [sending('treasury', e!, f5!)], until, { ...limit, perAddressPerDay: 1n }),
      );
      assert.equal(own!.kind, 'created');
    });

    it('counts what a recipient gains beyond the input it cosigned, in the batch and once committed', async () => {
      const [mine] = await coins(1, 'daily d');
      const [theirs] = await coins(1, 'daily r');
      const [f1, f2] = await fundingOutputs(fresh.db, 2);
      // daily d pays daily r 7; daily r adds an input of 10 and gets it back on top.
      const cosigned = submission([mine!, theirs!], f1!, {
        outputs: [
          {
            vout: 0,
            owner: 'daily r',
            amount: 17n,
            op: 'transfer',
            script: new Uint8Array([0x51]),
            satoshis: 1n,
          },
          {
            vout: 1,
            owner: 'daily d',
            amount: 3n,
            op: 'transfer',
            script: new Uint8Array([0x52]),
            satoshis: 1n,
          },
        ],
        senders: ['daily d', 'daily r'],
        receivers: ['daily r', 'daily d'],
      });
      const [first] = await fresh.db.transaction((tx) => writeSubmissions(tx, [cosigned], until, limit));
      assert.equal(first!.kind, 'created');
      const [next] = await coins(1, 'daily d');
      const [later] = await fresh.db.transaction((tx) =>
        writeSubmissions(tx, [sending('daily d', next!, f2!)], until, limit),
      );
      assert.equal(later!.kind === 'conflict' && later!.code, 'DAILY_LIMIT_EXCEEDED', JSON.stringify(later));
      assert.match((later as { detail: string }).detail, /daily d has sent 7 today/);
    });

    it('a batch waits for another batch of the same sender and counts what it committed', async (t) => {
      if (fresh.db.dialect !== 'postgres') return t.skip('PGlite runs one transaction at a time');
      const [a, b] = await coins(2, 'daily c');
      const [f1, f2] = await fundingOutputs(fresh.db, 2);
      const first = holdOpen(fresh.db, async (tx) => {
        const [v] = await writeSubmissions(tx, [sending('daily c', a!, f1!)], until, limit);
        assert.equal(v!.kind, 'created');
        return backendPid(tx);
      });
      const second = runWhileHeld(
        fresh.db,
        first,
        () => fresh.db.transaction((tx) => writeSubmissions(tx, [sending('daily c', b!, f2!)], until, limit)),
        "the second batch to wait for the first's sender lock",
      );
      const [verdict] = await second;
      assert.equal(
        verdict!.kind === 'conflict' && verdict!.code,
        'DAILY_LIMIT_EXCEEDED',
        JSON.stringify(verdict),
      );
      assert.equal(await reservedBy(b!), null);
    });
  });
});
