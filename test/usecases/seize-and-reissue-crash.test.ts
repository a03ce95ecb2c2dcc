// Seize and reissue (issue 32) stopped at each of its crash points, in process on PGlite (and on
// PostgreSQL with TEST_DATABASE_URL, where two attempts at once really overlap): the
// step after the point fails as a process killed there would leave it (nothing after it runs),
// then the same order is sent again (or the api's recovery pass runs). Each time: one reissue
// mint for the order (one ticket, the kept bytes), the seized outputs never cosigned, the audit
// clean, and genesis = treasury + circulating + burned + seized at every point in between.
// test/chaos/kill-during-seizure.test.ts does the same with kill -9 of a real process.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { txidOf } from '../../src/crypto/txid.js';
import { supplyOf } from '../../src/domain/ledger-audit.js';
import { spentOutpoints } from '../../src/domain/spent-outpoints.js';
import { blacklistAddress } from '../../src/store/controls/blacklist-store.js';
import { freezeAddress } from '../../src/store/controls/freeze-store.js';
import {
  prepareSeizure,
  replaceStaleReissue,
  seizedOutpoints,
} from '../../src/store/controls/seizure-store.js';
import type { Db, Queryable } from '../../src/store/db/db.js';
import { liveIndexedOutputs } from '../../src/store/operator/audit-reads.js';
import type { ApiContext } from '../../src/usecases/context.js';
import {
  finishPreparedSeizures,
  type SeizureRequest,
  seizeAndReissue,
} from '../../src/usecases/controls/seize-and-reissue.js';
import { auditLedger } from '../../src/usecases/supply/audit-ledger.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { applyLedgerStatus } from '../../src/usecases/track/apply-ledger-status.js';
import { eventually } from '../e2e/support.js';
import { backendPid, someoneWaitsFor } from '../support/held-transaction.js';
import { interruptedDb } from '../support/interrupted-db.js';
import { describeServiceOnEachDb } from '../support/service-on-each-db.js';
import { party } from '../support/token-world.js';

/** What a kill leaves: the step fails, nothing after it runs. */
class Killed extends Error {
  constructor(where: string) {
    super(`killed ${where}`);
  }
}

/** `db` whose statements matching `at` "kill the process": they throw instead of running. */
function dyingDb(db: Db, at: RegExp): Db {
  const guard = (q: Queryable): Queryable => ({
    query: (sql, params) => {
      if (at.test(sql)) return Promise.reject(new Killed(`at ${sql.slice(0, 40)}`));
      return q.query(sql, params);
    },
  });
  return Object.assign(Object.create(db) as Db, {
    ...guard(db),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => fn(guard(tx))),
  });
}

/**
 * A piece of work handed over once and run where this was made: outside the transaction of the
 * code that hands it over (the store refuses a transaction inside another's callback).
 */
function once<T>(): { run(work: () => Promise<T>): Promise<T>; readonly ran: Promise<T> } {
  let hand!: (work: () => Promise<T>) => void;
  const handed = new Promise<() => Promise<T>>((resolve) => {
    hand = resolve;
  });
  const ran = handed.then((work) => work());
  return {
    run: (work) => {
      hand(work);
      return ran;
    },
    ran,
  };
}

// The devnet's pushes bring MINED; a slow poll keeps the tracker out of the way.
describeServiceOnEachDb(
  'seize and reissue stopped at each crash point',
  ['--tracker-poll-ms', '60000'],
  (suite) => {
    let ctx: ApiContext;
    let mintKey: Uint8Array;
    let n = 0;

    const tickets = async () =>
      Number((await ctx.db.query<{ n: string }>('SELECT count(*) AS n FROM tickets'))[0]!.n);
    const seizureRow = async (reference: string) =>
      (
        await ctx.db.query<{ state: string; reissue_txid: string | null; raw: boolean }>(
          'SELECT state, reissue_txid, reissue_raw IS NOT NULL AS raw FROM seizures WHERE reference = $1',
          [reference],
        )
      )[0];
    /** genesis = treasury + circulating + burned + seized, from the index as an audit reads it. */
    const expectBalanced = async () => {
      const seized = await seizedOutpoints(ctx.db);
      const index = new Map(
        (await liveIndexedOutputs(ctx.db)).map((o) => [
          `${o.txid}_${o.vout}`,
          { owner: o.owner, amount: o.amount, op: o.op, spent: o.spent },
        ]),
      );
      const s = supplyOf(index, ctx.token, seized);
      assert.equal(
        s.treasury + s.circulating + s.burned + s.redeemed + s.seized,
        BigInt(suite.t.service.parts.token.supply),
      );
    };
    const expectAuditClean = async () => {
      await suite.t.service.parts.devnet!.mine(1);
      const report = await auditLedger(ctx.db, ctx.token, ctx.ledger);
      assert.equal(
        report.ok,
        true,
        JSON.stringify(report, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
      );
    };
    /** A frozen address holding `amount`, and the order seizing it for a new owner. */
    const stolen = async (amount: bigint): Promise<SeizureRequest> => {
      n++;
      const thief = party(`seize crash thief ${n}`);
      const minted = await mintTokens(ctx, mintKey, { to: thief.address, amount });
      await freezeAddress(ctx.db, {
        address: thief.address,
        reason: 'stolen',
        actor: 'test',
        at: new Date(),
      });
      return {
        reference: `crash order ${n}`,
        reason: 'stolen',
        outpoints: [`${minted.txid}_0`],
        reissueTo: party(`seize crash owner ${n}`).address,
        actor: 'test',
      };
    };
    /** The order's seized outpoints are neither spent nor reserved by any ticket. */
    const neverCosigned = async (order: SeizureRequest) => {
      for (const o of order.outpoints) {
        const [txid, vout] = o.split('_');
        const [row] = await ctx.db.query<{ spent_by: string | null; reserved_by: string | null }>(
          'SELECT spent_by, reserved_by::text AS reserved_by FROM token_outputs WHERE txid = $1 AND vout = $2',
          [txid!, Number(vout)],
        );
        assert.deepEqual(row, { spent_by: null, reserved_by: null }, `${o} was cosigned`);
      }
    };
    /** Sends the order again with every step working: one more ticket at most, the seizure reissued. */
    const retried = async (order: SeizureRequest, ticketsBefore: number) => {
      const again = await seizeAndReissue(ctx, mintKey, order);
      assert.equal(again.kind, 'done');
      if (again.kind !== 'done') return;
      assert.equal(again.created, false);
      assert.equal(await tickets(), ticketsBefore + 1, 'one reissue mint for the order');
      const row = await seizureRow(order.reference);
      assert.equal(row?.state, 'reissued');
      assert.equal(row?.reissue_txid, again.seizure.reissueTxid);
      const [ticket] = await ctx.db.query<{ to: string }>(
        'SELECT o.owner AS to FROM token_outputs o WHERE o.txid = $1 AND o.vout = 0',
        [again.seizure.reissueTxid],
      );
      assert.equal(ticket?.to, order.reissueTo, 'the reissue pays the address the order names');
      // A third time is answered from the record: nothing submitted.
      const third = await seizeAndReissue(ctx, mintKey, order);
      assert.equal(third.kind === 'done' && third.seizure.reissueTxid, again.seizure.reissueTxid);
      assert.equal(await tickets(), ticketsBefore + 1);
      await neverCosigned(order);
      await expectBalanced();
      await expectAuditClean();
    };

    /** The context as a process killed before submitting leaves it: the look-up never answers. */
    const killedBeforeSubmitting = (): ApiContext => ({
      ...ctx,
      submissions: { ...ctx.submissions, lookUp: () => Promise.reject(new Killed('before submitting')) },
    });
    /** The context as a process killed after a ticket committed, before its broadcast, leaves it. */
    const killedBeforeBroadcasting = (): ApiContext => ({
      ...ctx,
      broadcasts: {
        ...ctx.broadcasts,
        enqueue: () => {
          throw new Killed('before broadcasting');
        },
      },
    });

    before(() => {
      ctx = apiContextOf(suite.t.service.parts);
      mintKey = suite.t.service.parts.keys.mint;
    });

    it('killed with the order prepared, before its reissue was submitted: the retry submits the kept one', async () => {
      const order = await stolen(700n);
      const before = await tickets();
      const dead = killedBeforeSubmitting();
      await assert.rejects(seizeAndReissue(dead, mintKey, order), Killed);
      assert.deepEqual(await seizureRow(order.reference), {
        state: 'prepared',
        reissue_txid: null,
        raw: true,
      });
      assert.equal(await tickets(), before, 'nothing submitted');
      await neverCosigned(order);
      await expectBalanced();
      await retried(order, before);
    });

    it('killed with the order prepared: the recovery pass completes it without a retry', async () => {
      const order = await stolen(701n);
      const before = await tickets();
      const dead = killedBeforeSubmitting();
      await assert.rejects(seizeAndReissue(dead, mintKey, order), Killed);
      assert.equal(await finishPreparedSeizures(ctx, mintKey), 1);
      assert.equal((await seizureRow(order.reference))?.state, 'reissued');
      assert.equal(await finishPreparedSeizures(ctx, mintKey), 0, 'nothing left prepared');
      await retried(order, before);
    });

    it('killed with the reissue ticket committed, before its broadcast: the retry broadcasts that ticket', async () => {
      const order = await stolen(702n);
      const before = await tickets();
      const broadcasts = [...suite.t.service.parts.devnet!.mempoolTxids()].length;
      const dead = killedBeforeBroadcasting();
      await assert.rejects(seizeAndReissue(dead, mintKey, order), Killed);
      assert.equal(await tickets(), before + 1, 'the ticket committed');
      assert.equal(suite.t.service.parts.devnet!.mempoolTxids().length, broadcasts, 'nothing broadcast');
      assert.equal((await seizureRow(order.reference))?.state, 'prepared');
      await expectBalanced();
      await retried(order, before);
    });

    it('killed after the broadcast, before the reissue was recorded: the retry answers that mint', async () => {
      const order = await stolen(703n);
      const before = await tickets();
      const dead = { ...ctx, db: dyingDb(ctx.db, /^UPDATE seizures SET reissue_txid/) };
      await assert.rejects(seizeAndReissue(dead, mintKey, order), Killed);
      assert.equal(await tickets(), before + 1);
      assert.equal((await seizureRow(order.reference))?.state, 'prepared');
      await expectBalanced();
      await retried(order, before);
    });

    it('killed before the order was recorded: nothing kept, the retry seizes as new', async () => {
      const order = await stolen(704n);
      const before = await tickets();
      const dead = { ...ctx, db: dyingDb(ctx.db, /^INSERT INTO seizures/) };
      await assert.rejects(seizeAndReissue(dead, mintKey, order), Killed);
      assert.equal(await seizureRow(order.reference), undefined, 'the order rolled back whole');
      assert.equal((await seizedOutpoints(ctx.db)).has(order.outpoints[0]!), false);
      const first = await seizeAndReissue(ctx, mintKey, order);
      assert.equal(first.kind === 'done' && first.created, true);
      assert.equal(await tickets(), before + 1);
      await expectBalanced();
    });

    it('a kept reissue whose treasury inputs an admin mint took meanwhile is built again, once', async () => {
      const order = await stolen(705n);
      const dead = killedBeforeSubmitting();
      await assert.rejects(seizeAndReissue(dead, mintKey, order), Killed);
      // The treasury's oldest outputs, the ones the kept reissue spends, go to another mint.
      await mintTokens(ctx, mintKey, { to: party('seize crash bystander').address, amount: 3n });
      const before = await tickets();
      await retried(order, before);
    });

    it('a kept reissue whose treasury input a transfer still being broadcast holds is not built again: it commits once that transfer fails', async () => {
      const order = await stolen(706n);
      const dead = killedBeforeSubmitting();
      await assert.rejects(seizeAndReissue(dead, mintKey, order), Killed);
      const keptRaw = async () =>
        (
          await ctx.db.query<{ raw: Uint8Array }>(
            'SELECT reissue_raw AS raw FROM seizures WHERE reference = $1',
            [order.reference],
          )
        )[0]!.raw;
      const kept = new Uint8Array(await keptRaw());
      // Another treasury transfer takes the kept reissue's oldest input: its ticket committed, its
      // broadcast not yet answered (a process killed before broadcasting it).
      const unsent = killedBeforeBroadcasting();
      await assert.rejects(
        mintTokens(unsent, mintKey, { to: party('seize crash holder').address, amount: 3n }),
        Killed,
      );
      const [input] = spentOutpoints(kept)!;
      const [held] = await ctx.db.query<{ spent_by: string | null }>(
        'SELECT spent_by FROM token_outputs WHERE txid = $1 AND vout = $2',
        [input!.txid, input!.vout],
      );
      const rival = held?.spent_by ?? null;
      assert.notEqual(rival, null, "the other transfer holds the kept reissue's input");

      // Neither the recovery pass nor the store replaces the kept bytes while that transfer may fail.
      assert.equal(await finishPreparedSeizures(ctx, mintKey), 0);
      assert.equal((await seizureRow(order.reference))?.state, 'prepared');
      assert.deepEqual(new Uint8Array(await keptRaw()), kept, 'the kept reissue stands');
      const [seizure] = await ctx.db.query<{ id: string }>(
        'SELECT id::text AS id FROM seizures WHERE reference = $1',
        [order.reference],
      );
      const other = new Uint8Array([...kept.subarray(0, kept.length - 1), 1]);
      assert.deepEqual(new Uint8Array((await replaceStaleReissue(ctx.db, seizure!.id, kept, other))!), kept);

      // The network refuses the other transfer: its inputs are free, and the kept reissue commits.
      await applyLedgerStatus(ctx, rival!, { status: { kind: 'rejected', reason: 'refused by the ledger' } });
      const before = await tickets();
      assert.equal(await finishPreparedSeizures(ctx, mintKey), 1);
      const row = await seizureRow(order.reference);
      assert.equal(row?.state, 'reissued');
      const [ticket] = await ctx.db.query<{ txid: string }>(
        'SELECT txid FROM tickets WHERE submitted_txid = $1',
        [txidOf(kept)],
      );
      assert.equal(row?.reissue_txid, ticket?.txid, 'the kept bytes, not a second reissue');
      assert.equal(await tickets(), before + 1);
      await neverCosigned(order);
      await expectBalanced();
      await expectAuditClean();
    });

    it('an order whose reissue could never be cosigned is refused whole: nothing kept', async () => {
      const order = await stolen(707n);
      const before = await tickets();
      await blacklistAddress(ctx.db, {
        address: order.reissueTo,
        reason: 'sanctions',
        actor: 'test',
        at: new Date(),
      });
      await assert.rejects(seizeAndReissue(ctx, mintKey, order), { code: 'ADDRESS_BLACKLISTED' });
      const frozenTo = { ...order, reissueTo: party('seize crash frozen owner').address };
      await freezeAddress(ctx.db, {
        address: frozenTo.reissueTo,
        reason: 'held',
        actor: 'test',
        at: new Date(),
      });
      await assert.rejects(seizeAndReissue(ctx, mintKey, frozenTo), { code: 'ADDRESS_FROZEN' });
      assert.equal(await seizureRow(order.reference), undefined, 'no order kept');
      assert.equal((await seizedOutpoints(ctx.db)).has(order.outpoints[0]!), false);
      assert.equal(await tickets(), before);
    });

    it('the same order sent again while the first commits between its reads: answered with the first', async () => {
      const order = await stolen(708n);
      const before = await tickets();
      let first: Awaited<ReturnType<typeof seizeAndReissue>> | undefined;
      // The second order's first read answers, then the first order runs to its end.
      const late = {
        ...ctx,
        db: interruptedDb(
          ctx.db,
          /./,
          async () => {
            first = await seizeAndReissue(ctx, mintKey, order);
          },
          false,
        ),
      };
      const second = await seizeAndReissue(late, mintKey, order);
      assert.equal(first?.kind === 'done' && first.created, true, 'the first created the seizure');
      assert.equal(second.kind, 'done', second.kind === 'refused' ? second.why : '');
      if (first?.kind !== 'done' || second.kind !== 'done') return;
      assert.equal(second.created, false);
      assert.equal(second.seizure.reissueTxid, first.seizure.reissueTxid);
      assert.equal(await tickets(), before + 1, 'one reissue mint');
      await expectBalanced();
    });

    it('the same order kept twice at once, the second reading while the first commits: one kept, the other answered with it', async (t) => {
      if (ctx.db.dialect !== 'postgres') return t.skip('PGlite runs one transaction at a time');
      const order = await stolen(709n);
      const [txid, vout] = order.outpoints[0]!.split('_');
      const outpoints = [{ txid: txid!, vout: Number(vout) }];
      const kept = (db: Db) =>
        prepareSeizure(
          db,
          {
            id: randomUUID(),
            reference: order.reference,
            reason: 'stolen',
            reissueTo: order.reissueTo,
            actor: 'test',
            at: new Date(),
          },
          outpoints,
          { amount: 709n, reissue: new Uint8Array([1, 2, 3]) },
        );
      // After the second's first statement, the first order is kept in full, or waits for the
      // second where the second holds what it needs. It runs outside the second's transaction.
      const other = once<{ theirs: ReturnType<typeof kept> }>();
      const racing = interruptedDb(
        ctx.db,
        /./,
        async (tx) => {
          const me = await backendPid(tx);
          await other.run(async () => {
            let settled = false;
            const theirs = kept(ctx.db).finally(() => {
              settled = true;
            });
            await eventually(async () => {
              if (settled) return true;
              return (await someoneWaitsFor(ctx.db, me)) ? true : undefined;
            }, 'the other order to be kept or to wait');
            return { theirs };
          });
        },
        true,
      );
      const mine = await kept(racing);
      const theirs = await (await other.ran).theirs;
      const kinds = [mine.kind, theirs.kind].sort();
      assert.deepEqual(
        kinds,
        ['exists', 'prepared'],
        JSON.stringify([mine, theirs], (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
      );
      const prepared = mine.kind === 'prepared' ? mine : theirs;
      const exists = mine.kind === 'exists' ? mine : theirs;
      if (prepared.kind !== 'prepared' || exists.kind !== 'exists') return;
      assert.equal(exists.seizure.id, prepared.seizure.id);
      // The order stays prepared with a reissue no ledger would take: the recovery pass must
      // not try it in the tests after this one.
      await ctx.db.query('DELETE FROM seized_outputs WHERE seizure_id = $1', [prepared.seizure.id]);
      await ctx.db.query('DELETE FROM seizures WHERE id = $1', [prepared.seizure.id]);
    });

    it('the same order twice at once: one mint, both answered with it', async () => {
      const order = await stolen(706n);
      const before = await tickets();
      const [a, b] = await Promise.all([
        seizeAndReissue(ctx, mintKey, order),
        seizeAndReissue(ctx, mintKey, order),
      ]);
      assert.equal(a.kind, 'done');
      assert.equal(b.kind, 'done');
      if (a.kind !== 'done' || b.kind !== 'done') return;
      assert.equal(a.seizure.reissueTxid, b.seizure.reissueTxid);
      assert.equal([a.created, b.created].filter(Boolean).length, 1, 'one of them created it');
      assert.equal(await tickets(), before + 1);
      await expectBalanced();
    });
  },
);
