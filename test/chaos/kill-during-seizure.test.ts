// Chaos: kill -9 of an api process at each point of a seizure (issue 32, migration 038), a real
// process on PostgreSQL with the devnet's ARC, a tracker in this process. Each point is reached
// deterministically from outside, with no hook in the service: a lock this test holds on a table
// the next step writes (the process waits there), or ARC hanging.
//   1. the order prepared (outpoints seized, reissue kept), nothing submitted: tickets locked;
//      the restarted process completes it on its own (its recovery pass at start);
//   2. the reissue's ticket committed, its broadcast waiting on ARC: ARC hangs;
//   3. the reissue broadcast and on the ledger, its txid not recorded: seizures locked.
// After each: the same order sent again answers 200 with the one reissue; one ticket per order,
// the seized outpoints never cosigned, genesis = treasury + circulating + burned + seized at
// every point observed, and at the end the audit clean and the store and ledger in agreement.
// Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { txidOf } from '../../src/crypto/txid.js';
import { supplyOf } from '../../src/domain/ledger-audit.js';
import { ADMIN_KEY_FILE } from '../../src/service.js';
import { seizedOutpoints } from '../../src/store/controls/seizure-store.js';
import type { Db } from '../../src/store/db/db.js';
import { liveIndexedOutputs } from '../../src/store/operator/audit-reads.js';
import { auditLedger } from '../../src/usecases/supply/audit-ledger.js';
import { eventually } from '../e2e/support.js';
import { sharedWorld } from '../support/ledger-world.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';
import { expectNoTicketLost, expectStoreAndLedgerAgree } from './invariants.js';
import {
  type DatabaseWatcher,
  everyTicketAtItsEnd,
  hangArc,
  holdLock,
  killableApi,
  submittedToLedger,
  watchDatabase,
} from './killable-api.js';

describe('chaos: kill -9 of an api process during a seizure', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('seizure kill');
  const api = killableApi(
    'seizure-kill',
    () => world.databaseUrl,
    () => world.ledger.flags,
  );
  let watcher: DatabaseWatcher | null = null;

  after(async () => {
    api.close();
    await watcher?.end();
  });

  it('each crash point: the retry answers the one reissue; seized outputs never cosigned; audit clean', async () => {
    const first = await world.start('tracker');
    const db: Db = first.service.parts.db;
    const token = first.service.parts.token;
    // Reads on a connection of their own: the locks below stall the tracker's pool, not these.
    watcher = await watchDatabase(world.databaseUrl);
    const read = watcher.read;
    await api.start();
    const adminKey = existsSync(join(api.dataDir, ADMIN_KEY_FILE))
      ? readFileSync(join(api.dataDir, ADMIN_KEY_FILE), 'utf8').trim()
      : first.adminKey;
    const admin = (method: string, path: string, body?: unknown) =>
      fetch(`${api.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    const tickets = async () =>
      Number((await read<{ n: string }>('SELECT count(*) AS n FROM tickets'))[0]!.n);
    const seizure = async (reference: string) =>
      (
        await read<{ state: string; reissue_txid: string | null; reissue_raw: Buffer | null }>(
          'SELECT state, reissue_txid, reissue_raw FROM seizures WHERE reference = $1',
          [reference],
        )
      )[0];
    /** genesis = treasury + circulating + burned + seized, as an audit reads the index now. */
    const expectBalanced = async (when: string) => {
      const index = new Map(
        (await liveIndexedOutputs(db)).map((o) => [
          `${o.txid}_${o.vout}`,
          { owner: o.owner, amount: o.amount, op: o.op, spent: o.spent },
        ]),
      );
      const s = supplyOf(index, token, await seizedOutpoints(db));
      assert.equal(
        s.treasury + s.circulating + s.burned + s.redeemed + s.seized,
        BigInt(token.supply),
        `supply balances ${when}`,
      );
    };
    const neverCosigned = async (outpoint: string) => {
      const [txid, vout] = outpoint.split('_');
      const [row] = await read<{ spent_by: string | null; reserved_by: string | null }>(
        'SELECT spent_by, reserved_by::text AS reserved_by FROM token_outputs WHERE txid = $1 AND vout = $2',
        [txid, Number(vout)],
      );
      assert.deepEqual({ ...row }, { spent_by: null, reserved_by: null }, `${outpoint} was cosigned`);
    };

    let n = 0;
    /** A frozen thief holding `amount` (minted while ARC answers), and the order seizing it. */
    const stolen = async (amount: number) => {
      n++;
      const thief = party(`seizure kill thief ${n}`);
      const minted = await admin('POST', '/v2/admin/mint', { to: thief.address, amount: String(amount) });
      assert.equal(minted.status, 200, await minted.clone().text());
      const { txid } = (await minted.json()) as { txid: string };
      const frozen = await admin('POST', '/v2/admin/freezes', { address: thief.address, reason: 'stolen' });
      assert.ok(frozen.ok, await frozen.text());
      return {
        reference: `kill order ${n}`,
        reason: 'stolen funds',
        outpoints: [`${txid}_0`],
        reissueTo: party(`seizure kill owner ${n}`).address,
      };
    };
    const send = (order: object) =>
      admin('POST', '/v2/admin/seizures', order).then(
        (res) => ({ kind: 'answered' as const, status: res.status }),
        (err: unknown) => ({ kind: 'cut' as const, err }),
      );
    /** After a restart: the order again answers its one reissue; one ticket for it. */
    const retried = async (
      order: { reference: string; outpoints: string[]; reissueTo: string },
      tickets0: number,
    ) => {
      const res = await admin('POST', '/v2/admin/seizures', order);
      const body = (await res.json()) as { reissueTxid?: string; state?: string; created?: boolean };
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.state, 'reissued');
      assert.equal(body.created, false);
      assert.equal(await tickets(), tickets0 + 1, 'one reissue mint for the order');
      const row = await seizure(order.reference);
      assert.equal(row?.reissue_txid, body.reissueTxid);
      const [ticket] = await read<{ submitted_txid: string }>(
        'SELECT submitted_txid FROM tickets WHERE txid = $1',
        [body.reissueTxid],
      );
      assert.equal(
        ticket?.submitted_txid,
        txidOf(row!.reissue_raw!),
        'the reissue is the one kept with the order',
      );
      const paid = await read<{ n: string }>('SELECT count(*) AS n FROM token_outputs WHERE owner = $1', [
        order.reissueTo,
      ]);
      assert.equal(Number(paid[0]!.n), 1, 'one output pays the address the order names');
      await neverCosigned(order.outpoints[0]!);
      await expectBalanced(`after ${order.reference} was retried`);
    };

    // A warm-up mint while ARC answers: the api caches its fee rate (asks ARC nothing before a broadcast).
    const orders = [await stolen(1_100), await stolen(1_200), await stolen(1_300)];

    // 1. Prepared, nothing submitted: the process waits on the tickets table (its submission's look-up).
    {
      const order = orders[0]!;
      const tickets0 = await tickets();
      const lock = await holdLock(world.databaseUrl, 'LOCK TABLE tickets IN ACCESS EXCLUSIVE MODE');
      const inFlight = send(order);
      await eventually(
        async () => ((await seizure(order.reference))?.state === 'prepared' ? true : undefined),
        'the order prepared',
        600,
      );
      await api.kill();
      assert.equal((await inFlight).kind, 'cut', 'killed before answering');
      await lock.release();
      assert.equal(await tickets(), tickets0, 'nothing submitted');
      assert.ok((await seizure(order.reference))?.reissue_raw, 'the reissue kept with the order');
      await neverCosigned(order.outpoints[0]!);
      await expectBalanced('with the order prepared');
      // Restarted, the process completes the order on its own: no retry needed.
      await api.start();
      await eventually(
        async () => ((await seizure(order.reference))?.state === 'reissued' ? true : undefined),
        'the restarted process completed the prepared seizure',
        600,
      );
      await retried(order, tickets0);
    }

    // 2. The reissue's ticket committed, its broadcast waiting on ARC.
    {
      const order = orders[1]!;
      const tickets0 = await tickets();
      const hanging = await hangArc(world.ledger);
      const inFlight = send(order);
      await eventually(
        async () => ((await tickets()) === tickets0 + 1 ? true : undefined),
        'the reissue committed',
        600,
      );
      await api.kill();
      assert.equal((await inFlight).kind, 'cut');
      await hanging.restore();
      assert.equal(
        (await seizure(order.reference))?.state,
        'prepared',
        'killed before its txid was recorded',
      );
      await expectBalanced('with the reissue committed, not broadcast');
      await api.start();
      await retried(order, tickets0);
    }

    // 3. Broadcast and on the ledger, its txid not recorded: the process waits on the seizures table.
    {
      const order = orders[2]!;
      const tickets0 = await tickets();
      const held = await holdLock(world.databaseUrl, 'LOCK TABLE tickets IN ACCESS EXCLUSIVE MODE');
      const inFlight = send(order);
      await eventually(
        async () => ((await seizure(order.reference))?.state === 'prepared' ? true : undefined),
        'the order prepared',
        600,
      );
      const raw = (await seizure(order.reference))!.reissue_raw!;
      // Writes to seizures wait from here on (reads do not); then the submission goes ahead.
      const record = await holdLock(world.databaseUrl, 'LOCK TABLE seizures IN EXCLUSIVE MODE');
      await held.release();
      const txid = await submittedToLedger(watcher, world.ledger.devnet, raw, 'the reissue on the ledger');
      await api.kill();
      assert.equal((await inFlight).kind, 'cut');
      // Its recording, if already sent and waiting on the lock, dies with it.
      await record.endWaiters();
      await record.release();
      assert.equal(
        (await seizure(order.reference))?.state,
        'prepared',
        'killed before its txid was recorded',
      );
      await expectBalanced('with the reissue on the ledger, not recorded');
      await api.start();
      await retried(order, tickets0);
      assert.equal((await seizure(order.reference))?.reissue_txid, txid);
    }

    // The end: everything mined; the audit clean; store and ledger agree, no mint the store lacks.
    await everyTicketAtItsEnd(watcher, world.ledger.devnet);
    await expectNoTicketLost(db, { accepted: [] });
    const report = await auditLedger(db, token, first.service.parts.ledger);
    assert.equal(
      report.ok,
      true,
      JSON.stringify(report, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
    );
    const [ordered] = await read<{ total: string }>('SELECT sum(amount)::text AS total FROM seizures');
    assert.equal(
      report.supply.index.seized,
      BigInt(ordered!.total),
      'the seized supply is what the orders took',
    );
    assert.ok(report.supply.index.seized > 0n);
    await expectStoreAndLedgerAgree({
      url: api.url,
      key: adminKey,
      db,
      devnet: world.ledger.devnet,
      tokenId: token.tokenId,
      supply: BigInt(token.supply),
    });
    for (const order of orders) await neverCosigned(order.outpoints[0]!);
    await watcher.end();
    watcher = null;
  });
});
