// Chaos: kill -9 of an api process while it executes an approved mint proposal (issue 32, "No
// single key"; migration 037), a real process on PostgreSQL with the devnet's ARC, a tracker in
// this process. The policy holds every mint for 2 approvals; key A proposes, key B's approval
// (the 2nd) runs the mint, and the process is killed at a point reached from outside, with no
// hook in the service: a lock this test holds on a table the next step writes, or ARC hanging.
//   1. the lease taken and the mint's transaction kept, nothing submitted: tickets locked;
//   2. the mint's ticket committed, its broadcast waiting on ARC: ARC hangs;
//   3. the mint broadcast and on the ledger, the proposal not marked executed: proposals locked.
// After each, the restarted process is asked to complete the proposal (POST .../execute, refused
// while the killed executor's lease runs: proposalExecutionLeaseMs, short here). Then: the
// proposal executed once with the kept transaction, one ticket and one output for it, one
// proposal-execute event; at the end the audit clean and the store and ledger in agreement.
// Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { txidOf } from '../../src/crypto/txid.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import type { Db } from '../../src/store/db/db.js';
import { PROPOSAL_PREPARED_CALLER } from '../../src/usecases/controls/proposals-execute.js';
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

/** The killed executor's lease: the restarted process completes the proposal once it runs out. */
const LEASE_MS = 2_000;

interface ProposalAnswer {
  id: string;
  state: string;
  result: { txid?: string; ticketId?: string } | null;
  answer?: { txid?: string } | null;
  executionError?: string | null;
}

describe('chaos: kill -9 of an api process executing an approved proposal', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('proposal kill');
  const api = killableApi(
    'proposal-kill',
    () => world.databaseUrl,
    () => ['--proposal-execution-lease-ms', String(LEASE_MS), ...world.ledger.flags],
  );
  let watcher: DatabaseWatcher | null = null;

  after(async () => {
    api.close();
    await watcher?.end();
  });

  it('each crash point: completed after the restart, one mint, one execution; audit clean', async () => {
    const first = await world.start('tracker');
    const db: Db = first.service.parts.db;
    const token = first.service.parts.token;
    const made = async (name: string) =>
      (await createApiKey(db, first.service.parts.masterKey, { name, scopes: ['admin'] })).key;
    const keyA = await made('proposal kill admin A');
    const keyB = await made('proposal kill admin B');
    // Reads on a connection of their own: the locks below stall the tracker's pool, not these.
    watcher = await watchDatabase(world.databaseUrl);
    const read = watcher.read;
    await api.start();
    const call = (key: string, method: string, path: string, body?: unknown) =>
      fetch(`${api.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    const tickets = async () =>
      Number((await read<{ n: string }>('SELECT count(*) AS n FROM tickets'))[0]!.n);
    const stateOf = async (id: string) =>
      (await read<{ state: string }>('SELECT state FROM proposals WHERE id = $1', [id]))[0]?.state;
    const kept = async (id: string) =>
      (
        await read<{ raw_tx: Buffer }>(
          'SELECT raw_tx FROM idempotency_prepared WHERE api_key_id = $1 AND key = $2',
          [PROPOSAL_PREPARED_CALLER, id],
        )
      )[0]?.raw_tx;

    // A mint while nothing is held back: the api caches its fee rate (asks ARC nothing before a broadcast).
    const warm = await call(keyA, 'POST', '/v2/admin/mint', {
      to: party('proposal kill warm').address,
      amount: '1',
    });
    assert.equal(warm.status, 200, await warm.text());
    const policy = await call(keyA, 'PUT', '/v2/admin/approvals/policy', {
      rules: [{ action: 'mint', approvals: 2 }],
      reason: 'every mint needs two keys',
    });
    assert.equal(policy.status, 200, await policy.text());

    let n = 0;
    /** Key A proposes a mint; answers its id, its recipient and the tickets before it. */
    const propose = async () => {
      n++;
      const to = party(`proposal kill owner ${n}`).address;
      const asked = await call(keyA, 'POST', '/v2/admin/mint', { to, amount: String(1_000 + n) });
      const body = (await asked.json()) as ProposalAnswer;
      assert.equal(asked.status, 202, JSON.stringify(body));
      assert.equal(body.state, 'open');
      return { id: body.id, to, tickets0: await tickets() };
    };
    /** Key B's approval, the 2nd: it runs the mint in the same request. */
    const approve = (id: string) =>
      call(keyB, 'POST', `/v2/admin/proposals/${id}/approve`, { reason: 'second key' }).then(
        (res) => ({ kind: 'answered' as const, status: res.status }),
        (err: unknown) => ({ kind: 'cut' as const, err }),
      );
    /** Killed while executing: the approval cut, the proposal left approved. */
    const killed = async (id: string, inFlight: ReturnType<typeof approve>) => {
      await api.kill();
      assert.equal((await inFlight).kind, 'cut', 'killed before answering');
      assert.equal(await stateOf(id), 'approved', 'killed before the execution was recorded');
    };
    /**
     * After a restart: completing the proposal (refused while the dead executor's lease runs)
     * answers it executed with the kept transaction; one ticket, one output, one execution.
     */
    const completed = async (p: { id: string; to: string; tickets0: number }) => {
      const done = await eventually(
        async () => {
          const res = await call(keyB, 'POST', `/v2/admin/proposals/${p.id}/execute`);
          const body = (await res.json()) as ProposalAnswer;
          // Refused while the dead executor's lease runs: a problem answer (PROPOSAL_CLOSED), the
          // proposal still approved in the store.
          if (res.status === 409 && (await stateOf(p.id)) === 'approved') return undefined;
          assert.equal(res.status, 200, JSON.stringify(body));
          if (body.state === 'approved' && body.executionError) return undefined; // a transient failure
          return body;
        },
        'the proposal completed after the restart',
        600,
      );
      assert.equal(done.state, 'executed', JSON.stringify(done));
      const txid = done.result?.txid;
      assert.ok(txid, JSON.stringify(done));
      assert.equal(await tickets(), p.tickets0 + 1, 'one mint for the proposal');
      const [ticket] = await read<{ submitted_txid: string }>(
        'SELECT submitted_txid FROM tickets WHERE txid = $1',
        [txid],
      );
      const raw = await kept(p.id);
      assert.ok(raw, 'the mint kept under the proposal');
      assert.equal(ticket?.submitted_txid, txidOf(raw), 'the mint is the one kept with the proposal');
      const executions = await read<{ n: string }>(
        "SELECT count(*) AS n FROM control_events WHERE action = 'proposal-execute' AND subject = $1",
        [p.id],
      );
      assert.equal(Number(executions[0]!.n), 1, 'one execution recorded');
      // Asked again (and approved again): the same answer, nothing more.
      const again = await call(keyA, 'POST', `/v2/admin/proposals/${p.id}/execute`);
      const second = (await again.json()) as ProposalAnswer;
      assert.equal(again.status, 200, JSON.stringify(second));
      assert.equal(second.result?.txid, txid);
      assert.equal((await call(keyB, 'POST', `/v2/admin/proposals/${p.id}/approve`, {})).status, 409);
      assert.equal(await tickets(), p.tickets0 + 1, 'still one mint for the proposal');
      await world.ledger.devnet.mine(1);
      await eventually(
        async () => {
          const [paid] = await read<{ n: string }>(
            'SELECT count(*) AS n FROM token_outputs WHERE owner = $1',
            [p.to],
          );
          return Number(paid!.n) >= 1 ? Number(paid!.n) : undefined;
        },
        'the mint indexed',
        600,
      );
      const [paid] = await read<{ n: string }>('SELECT count(*) AS n FROM token_outputs WHERE owner = $1', [
        p.to,
      ]);
      assert.equal(Number(paid!.n), 1, 'one output pays the proposal recipient');
      return txid;
    };

    // 1. The lease taken and the transaction kept, nothing submitted: the process waits on tickets.
    {
      const p = await propose();
      const lock = await holdLock(world.databaseUrl, 'LOCK TABLE tickets IN ACCESS EXCLUSIVE MODE');
      const inFlight = approve(p.id);
      await eventually(
        async () => ((await kept(p.id)) !== undefined ? true : undefined),
        'the mint kept',
        600,
      );
      await killed(p.id, inFlight);
      await lock.release();
      assert.equal(await tickets(), p.tickets0, 'nothing submitted');
      await api.start();
      await completed(p);
    }

    // 2. The mint's ticket committed, its broadcast waiting on ARC.
    {
      const p = await propose();
      const hanging = await hangArc(world.ledger);
      const inFlight = approve(p.id);
      await eventually(
        async () => ((await tickets()) === p.tickets0 + 1 ? true : undefined),
        'the mint committed',
        600,
      );
      await killed(p.id, inFlight);
      await hanging.restore();
      await api.start();
      await completed(p);
    }

    // 3. Broadcast and on the ledger, the proposal not marked executed: the process waits on proposals.
    {
      const p = await propose();
      const held = await holdLock(world.databaseUrl, 'LOCK TABLE tickets IN ACCESS EXCLUSIVE MODE');
      const inFlight = approve(p.id);
      await eventually(
        async () => ((await kept(p.id)) !== undefined ? true : undefined),
        'the mint kept',
        600,
      );
      const raw = (await kept(p.id))!;
      // Writes to proposals wait from here on (reads do not); then the submission goes ahead.
      const record = await holdLock(world.databaseUrl, 'LOCK TABLE proposals IN EXCLUSIVE MODE');
      await held.release();
      const txid = await submittedToLedger(watcher, world.ledger.devnet, raw, 'the mint on the ledger');
      await killed(p.id, inFlight);
      await record.release();
      await api.start();
      assert.equal(await completed(p), txid);
    }

    // The end: everything mined; the audit clean; store and ledger agree, no mint the store lacks.
    await everyTicketAtItsEnd(watcher, world.ledger.devnet);
    const [executed] = await read<{ n: string }>(
      "SELECT count(*) AS n FROM proposals WHERE state = 'executed'",
    );
    assert.equal(Number(executed!.n), 3, 'each proposal executed');
    const [events] = await read<{ n: string }>(
      "SELECT count(*) AS n FROM control_events WHERE action = 'proposal-execute'",
    );
    assert.equal(Number(events!.n), 3, 'one execution recorded for each');
    await expectNoTicketLost(db, { accepted: [] });
    const report = await auditLedger(db, token, first.service.parts.ledger);
    assert.equal(
      report.ok,
      true,
      JSON.stringify(report, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
    );
    await expectStoreAndLedgerAgree({
      url: api.url,
      key: keyA,
      db,
      devnet: world.ledger.devnet,
      tokenId: token.tokenId,
      supply: BigInt(token.supply),
    });
    await watcher.end();
    watcher = null;
  });
});
