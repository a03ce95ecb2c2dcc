// Issue 34: after restoring a dump taken before a mint, the audit said ok with one transaction
// fewer than the ledger. Here the database forgets a mined mint as a restore of an earlier dump
// would (its record, outputs, ticket gone; its treasury input and funding output free again),
// on the in-process service (PGlite and the devnet). reconcileLedger finds it through the
// devnet's history, or through its txid alone on a ledger that lists nothing (as on ARC), and
// its repair writes it back from the ledger's bytes: the audit then counts it, and a second
// run finds nothing. A ticket the tracker no longer follows that the ledger contradicts is
// reported and handed back to the tracker.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { apiContextOf } from '../../src/compose.js';
import { addressesOf } from '../../src/keys/operator-keys.js';
import { auditLedger } from '../../src/usecases/supply/audit-ledger.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import {
  devnetHistory,
  type ReconcileDeps,
  reconcileLedger,
} from '../../src/usecases/supply/reconcile-ledger.js';
import { http } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

describe('reconcile: a mint the restored database lacks', () => {
  let t: TestService;
  let deps: ReconcileDeps;
  let forgotten: string;
  let kept: string;

  const mined = async (txid: string) =>
    eventually(async () => {
      const [row] = await t.service.parts.db.query<{ status: string }>(
        'SELECT status FROM tickets WHERE txid = $1',
        [txid],
      );
      return row?.status === 'MINED' ? true : undefined;
    }, `ticket of ${txid} MINED`);

  before(async () => {
    t = await startTestService(['--block-interval-ms', '0']);
    const { parts } = t.service;
    const ctx = apiContextOf(parts);
    kept = (await mintTokens(ctx, parts.keys.mint, { to: party('reconcile kept').address, amount: 3_000n }))
      .txid;
    forgotten = (
      await mintTokens(ctx, parts.keys.mint, { to: party('reconcile lost').address, amount: 500n })
    ).txid;
    await parts.devnet!.mine(1);
    await mined(kept);
    await mined(forgotten);
    deps = {
      db: parts.db,
      ledger: parts.ctx.ledger,
      token: { tokenId: parts.ctx.token.tokenId, fundingAddress: addressesOf(parts.keys).fundingAddress },
      now: () => new Date(),
    };
  });

  after(() => t?.stop());

  it('finds the forgotten mint on the devnet, repairs it from its bytes, and finds nothing after', async () => {
    const { db, devnet, ctx } = t.service.parts;
    const whole = await auditLedger(db, ctx.token);
    const raw = (await devnet!.rawTransaction(forgotten))!;
    const tx = Transaction.fromBinary(Array.from(raw));
    const funding = tx.inputs.at(-1)!;
    await db.transaction(async (q) => {
      await q.query('UPDATE token_outputs SET spent_by = NULL, reserved_by = NULL WHERE spent_by = $1', [
        forgotten,
      ]);
      await q.query(
        "UPDATE funding_outputs SET state = 'available', reserved_by = NULL WHERE txid = $1 AND vout = $2",
        [funding.sourceTXID!, funding.sourceOutputIndex],
      );
      await q.query('DELETE FROM tickets WHERE txid = $1', [forgotten]);
      await q.query('DELETE FROM transactions WHERE txid = $1', [forgotten]);
    });
    const restored = await auditLedger(db, ctx.token);
    assert.equal(restored.ok, true, 'the restored index agrees with itself');
    assert.equal(restored.transactions, whole.transactions - 1);

    // A ledger that lists nothing (ARC) and a txid nobody names: nothing is found.
    const blind = await reconcileLedger(deps, { repair: false });
    assert.equal(blind.coverage, 'given');
    assert.deepEqual(blind.differences, []);

    // Named by its txid, the ledger's word and bytes are enough.
    const named = await reconcileLedger(deps, { repair: false, txids: [forgotten] });
    assert.deepEqual(
      named.differences.map((d) => d.kind),
      ['missing-transaction', 'funding-spent'],
    );
    assert.equal(named.ok, false);

    // A ledger that serves no raw bytes (ARC): the txid alone is reported, not written; the raw
    // transaction given beside it is enough.
    const arcLike = {
      ...deps,
      ledger: { status: deps.ledger.status.bind(deps.ledger), rawTransaction: async () => null },
    };
    const unread = await reconcileLedger(arcLike, { repair: true, txids: [forgotten] });
    assert.deepEqual(
      unread.differences.map((d) => (d.kind === 'missing-transaction' ? [d.txid, d.refusal] : d.kind)),
      [[forgotten, 'the ledger serves no raw bytes of it: give them (--raw-file)']],
    );
    assert.deepEqual(unread.repaired.ingested, []);
    assert.equal(unread.ok, false);
    const withBytes = await reconcileLedger(arcLike, { repair: false, rawTxs: [raw] });
    assert.deepEqual(
      withBytes.differences.map((d) => d.kind),
      ['missing-transaction', 'funding-spent'],
    );

    // The devnet lists its history; --repair writes it back.
    const listing = { ...deps, history: devnetHistory(devnet!) };
    const repaired = await reconcileLedger(listing, { repair: true });
    assert.equal(repaired.coverage, 'listed');
    assert.deepEqual(repaired.repaired.ingested, [forgotten]);
    assert.deepEqual(repaired.repaired.fundingSpent, [`${funding.sourceTXID}_${funding.sourceOutputIndex}`]);
    assert.deepEqual(repaired.remaining, []);
    assert.equal(repaired.ok, true);

    const after = await auditLedger(db, ctx.token);
    assert.equal(after.ok, true, JSON.stringify(after.outputDifferences));
    assert.equal(after.transactions, whole.transactions);
    assert.deepEqual(after.supply, whole.supply);
    const [record] = await db.query<{ state: string; height: number }>(
      'SELECT state, height FROM transactions WHERE txid = $1',
      [forgotten],
    );
    assert.equal(record?.state, 'mined');
    assert.ok(Number(record?.height) > 0);

    const again = await reconcileLedger(listing, { repair: true });
    assert.deepEqual(again.differences, []);
    assert.deepEqual(again.repaired, { ingested: [], fundingSpent: [], retracked: [] });
  });

  it('reports a ticket the tracker left that the ledger contradicts, and hands it back', async () => {
    const { db, devnet } = t.service.parts;
    const listing = { ...deps, history: devnetHistory(devnet!) };
    await db.query(
      "UPDATE tickets SET status = 'SUCCESS', status_rank = 20, next_check_at = NULL WHERE txid = $1",
      [kept],
    );
    const found = await reconcileLedger(listing, { repair: true });
    assert.deepEqual(
      found.differences.map((d) => (d.kind === 'ticket-status' ? [d.txid, d.database, d.ledger] : d.kind)),
      [[kept, 'SUCCESS', 'mined']],
    );
    assert.equal(found.repaired.retracked.length, 1);
    assert.deepEqual(found.remaining, [], 'a ticket the tracker follows again is its to settle');
    await mined(kept);
  });

  it('answers POST /v2/admin/reconcile with the report', async () => {
    const answer = await http(t.url, 'POST', '/v2/admin/reconcile', {
      key: t.adminKey,
      body: { repair: true },
    });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json as { ok: boolean; coverage: string; differences: unknown[] };
    assert.equal(body.ok, true, answer.text);
    assert.equal(body.coverage, 'listed');
    assert.deepEqual(body.differences, []);
    const refused = await http(t.url, 'POST', '/v2/admin/reconcile', {
      key: t.adminKey,
      body: { txids: ['xyz'] },
    });
    assert.equal(refused.status, 400, refused.text);
  });
});
