// Proposals and allowances in the store and their use cases, on both databases (issue 32):
// a gated action becomes a proposal the proposer approves first; the same key cannot approve
// twice; the K-th distinct approval decides once and one rejection closes it; a proposal past
// its expiry is expired (recorded once) and takes no vote; an approved database-only action
// executes once even when two executors on two pools race (PostgreSQL); an allowance is spent
// once per transaction, refused above what is left (MINT_ALLOWANCE_EXCEEDED) and given back;
// and every step is in control_events with the key that took it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { parsePolicy } from '../../src/domain/approval-policy.js';
import { DomainError } from '../../src/domain/domain-error.js';
import { createApiKey, revokeApiKey } from '../../src/store/access/api-keys-store.js';
import {
  allowanceOf,
  markSpendCommitted,
  refundAllowance,
  setAllowance,
  spendAllowance,
} from '../../src/store/controls/allowance-store.js';
import { approvalPolicy, setApprovalPolicy } from '../../src/store/controls/approval-policy-store.js';
import { controlEvents } from '../../src/store/controls/control-events.js';
import type { Db } from '../../src/store/db/db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import type { ApiContext } from '../../src/usecases/context.js';
import { checkAllowance, setMintAllowance } from '../../src/usecases/controls/allowances.js';
import {
  gate,
  type ProposalDeps,
  proposalNow,
  setPolicy,
  vote,
} from '../../src/usecases/controls/proposals.js';
import {
  executeProposal,
  finishStrandedProposals,
  STRANDED_AFTER_MS,
} from '../../src/usecases/controls/proposals-execute.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { backendPid, holdOpen, inside, runWhileHeld } from '../support/held-transaction.js';
import { testDatabaseUrl } from '../support/test-databases.js';

const T0 = new Date('2026-11-27T10:00:00Z');
const HOUR = 3_600_000;

describeOnEachDb('proposals and allowances', (fresh) => {
  let clock = T0;
  const counted: string[] = [];
  const deps = (db: Db = fresh.db): ProposalDeps => ({
    db,
    now: () => clock,
    newId: randomUUID,
    proposalTtlMs: 24 * HOUR,
    controls: {
      limits: { perTransfer: null, perAddressPerDay: null },
      screening: null,
      counted: { change: (a) => counted.push(a), refused: () => {}, screened: () => {} },
    },
  });
  const quiet = { warn: () => {}, error: () => {}, info: () => {} };
  const executor = (db: Db = fresh.db) => ({
    ctx: { ...deps(db), log: quiet } as unknown as ApiContext,
    mintKey: new Uint8Array(32),
    masterKey: new Uint8Array(32).fill(7),
  });
  const events = async (subject: string) =>
    (await controlEvents(fresh.db, 1000))
      .filter((e) => e.subject === subject)
      // by number: controlEvents orders by the id's text (10 before 9)
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map((e) => [e.action, e.actor]);

  before(async () => {
    await fresh.db.transaction((tx) =>
      setApprovalPolicy(tx, {
        rules: [
          { action: 'raise-allowance', approvals: 2 },
          { action: 'set-policy', approvals: 3 },
          { action: 'mint', approvals: 2, above: '1000' },
        ],
        reason: 'two keys',
        actor: 'k-policy',
        at: T0,
      }),
    );
  });

  it('gates only what the policy names; the proposer approves first; a key approves once', async () => {
    assert.equal(
      await gate(deps(), { action: 'mint', body: {}, summary: 's', amount: 1000n, actor: 'k1' }),
      null,
    );
    assert.equal(await gate(deps(), { action: 'unpause', body: {}, summary: 's', actor: 'k1' }), null);
    const p = await gate(deps(), {
      action: 'raise-allowance',
      body: { keyId: 'minter-1', amount: '500', reason: 'quarter' },
      summary: 'raise minter-1 to 500',
      actor: 'k1',
    });
    assert.ok(p !== null);
    assert.deepEqual([p.state, p.required, p.votes.map((v) => v.keyId)], ['open', 2, ['k1']]);
    assert.equal(p.expiresAt.getTime(), T0.getTime() + 24 * HOUR);
    const again = await vote(deps(), { id: p.id, keyId: 'k1', vote: 'approve', reason: 'me again' });
    assert.equal(again.kind, 'voted-already');
    const second = await vote(deps(), { id: p.id, keyId: 'k2', vote: 'approve', reason: 'checked' });
    assert.equal(second.kind, 'voted');
    assert.equal(second.kind === 'voted' && second.decided, 'approved');
    const late = await vote(deps(), { id: p.id, keyId: 'k3', vote: 'approve', reason: 'late' });
    assert.equal(late.kind, 'closed');

    const done = await executeProposal(executor(), p.id, 'k2');
    assert.equal(done.kind, 'executed');
    assert.equal((await allowanceOf(fresh.db, 'minter-1'))?.remaining, 500n);
    const twice = await executeProposal(executor(), p.id, 'k2');
    assert.equal(twice.kind, 'not-run');
    assert.deepEqual(await events(p.id), [
      ['proposal', 'k1'],
      ['proposal-approve', 'k2'],
      ['proposal-execute', 'k2'],
    ]);
    assert.deepEqual(await events('minter-1'), [['allowance-set', 'k1']]);
    assert.ok(['proposal', 'proposal-approve', 'proposal-execute'].every((a) => counted.includes(a)));
  });

  it('a proposal needing K other keys takes no approval from its proposer', async () => {
    await fresh.db.transaction((tx) =>
      setApprovalPolicy(tx, {
        rules: [
          { action: 'raise-allowance', approvals: 2 },
          { action: 'set-policy', approvals: 3 },
          { action: 'mint', approvals: 2, above: '1000' },
          { action: 'unfreeze', approvals: 1, proposerApproves: false },
        ],
        reason: 'unfreeze by another key',
        actor: 'k-policy',
        at: T0,
      }),
    );
    const p = (await gate(deps(), {
      action: 'unfreeze',
      body: { address: 'x', reason: 'r' },
      summary: 'unfreeze x',
      actor: 'k1',
    }))!;
    assert.deepEqual([p.required, p.votes.length], [1, 0]);
    assert.equal(
      (await vote(deps(), { id: p.id, keyId: 'k1', vote: 'approve', reason: 'me' })).kind,
      'voted-already',
    );
    const other = await vote(deps(), { id: p.id, keyId: 'k2', vote: 'reject', reason: 'not now' });
    assert.equal(other.kind === 'voted' && other.decided, 'rejected');
  });

  /** A proposal by k1 to drop the policy (set-policy needs three keys). */
  const dropPolicyProposal = async () =>
    (await gate(deps(), {
      action: 'set-policy',
      body: { rules: [], reason: 'drop all' },
      summary: 'drop the policy',
      actor: 'k1',
    }))!;

  it('one rejection closes a proposal; nothing runs', async () => {
    const p = await dropPolicyProposal();
    assert.equal(
      (await vote(deps(), { id: p.id, keyId: 'k2', vote: 'approve', reason: 'ok' })).kind,
      'voted',
    );
    const no = await vote(deps(), { id: p.id, keyId: 'k3', vote: 'reject', reason: 'not without the board' });
    assert.equal(no.kind === 'voted' && no.decided, 'rejected');
    assert.equal((await executeProposal(executor(), p.id, 'k3')).kind, 'not-run');
    assert.equal(parsePolicy((await approvalPolicy(fresh.db)).rules).rules.length, 4);
  });

  it("a revoked key's vote is refused, also when the revocation commits while the vote waits", async (t) => {
    const p = await dropPolicyProposal();
    const key = async (name: string) =>
      (await createApiKey(fresh.db, new Uint8Array(32).fill(7), { name, scopes: ['policy'] })).id;
    const approve = (keyId: string) =>
      vote(deps(), { id: p.id, keyId, vote: 'approve', reason: 'ok', keyMustBeLive: true });
    const revoked = await key('revoked voter');
    await revokeApiKey(fresh.db, revoked);
    assert.equal((await approve(revoked)).kind, 'key-revoked');
    assert.equal((await approve('not-a-key')).kind, 'key-revoked');
    assert.deepEqual(
      (await proposalNow(deps(), p.id))?.votes.map((v) => v.keyId),
      ['k1'],
      'nothing counted',
    );
    if (fresh.db.dialect !== 'postgres') return t.skip('the wait: PGlite runs one transaction at a time');
    const late = await key('revoked while voting');
    const revocation = holdOpen(fresh.db, async (tx) => {
      await revokeApiKey(tx, late);
      return backendPid(tx);
    });
    const voting = runWhileHeld(
      fresh.db,
      revocation,
      () => approve(late),
      'the vote to wait for the revocation',
    );
    assert.equal((await voting).kind, 'key-revoked');
    const live = await key('live voter');
    assert.equal((await approve(live)).kind, 'voted', 'a live key votes');
  });

  it('expires after the set time: recorded once, no vote taken', async () => {
    const p = (await gate(deps(), {
      action: 'raise-allowance',
      body: { keyId: 'minter-2', amount: null, reason: 'no cap' },
      summary: 'uncap minter-2',
      actor: 'k1',
    }))!;
    clock = new Date(T0.getTime() + 24 * HOUR);
    const late = await vote(deps(), { id: p.id, keyId: 'k2', vote: 'approve', reason: 'late' });
    assert.equal(late.kind, 'closed');
    assert.equal((await proposalNow(deps(), p.id))?.state, 'expired');
    assert.deepEqual(await events(p.id), [
      ['proposal', 'k1'],
      ['proposal-expire', 'expiry'],
    ]);
    clock = T0;
  });

  it('completes an approved proposal a killed process left unexecuted, once, but no key creation', async () => {
    await fresh.db.transaction((tx) =>
      setApprovalPolicy(tx, {
        rules: [
          { action: 'raise-allowance', approvals: 2 },
          { action: 'create-key', approvals: 2 },
        ],
        reason: 'for this test',
        actor: 'k-policy',
        at: T0,
      }),
    );
    const stranded = (await gate(deps(), {
      action: 'raise-allowance',
      body: { keyId: 'minter-4', amount: '9', reason: 'stranded' },
      summary: 'stranded',
      actor: 'k1',
    }))!;
    const key = (await gate(deps(), {
      action: 'create-key',
      body: { name: 'ops', scopes: ['mint'], rateLimit: null },
      summary: 'a key',
      actor: 'k1',
    }))!;
    // The approvals commit; the process dies before executing them.
    for (const p of [stranded, key])
      assert.equal(
        (await vote(deps(), { id: p.id, keyId: 'k2', vote: 'approve', reason: 'ok' })).kind,
        'voted',
      );
    assert.equal(await finishStrandedProposals(executor()), 0, 'not before the grace time');
    clock = new Date(T0.getTime() + STRANDED_AFTER_MS);
    assert.equal(await finishStrandedProposals(executor()), 1);
    assert.equal(await finishStrandedProposals(executor()), 0);
    assert.equal((await allowanceOf(fresh.db, 'minter-4'))?.remaining, 9n);
    assert.deepEqual((await events(stranded.id)).at(-1), ['proposal-execute', 'recovery']);
    assert.equal(
      (await proposalNow(deps(), key.id))?.state,
      'approved',
      'a created key is shown to a person',
    );
    clock = T0;
  });

  it('spends an allowance once per transaction, refuses above it, gives it back', async () => {
    await fresh.db.transaction((tx) =>
      setAllowance(tx, { keyId: 'minter-3', remaining: 100n, reason: 'set', actor: 'k1', at: T0 }),
    );
    const spend = (txid: string, amount: bigint) =>
      spendAllowance(fresh.db, { txid, keyId: 'minter-3', amount, at: T0 });
    assert.deepEqual(await spend('aa', 60n), { kind: 'spent', remaining: 40n });
    assert.deepEqual(await spend('aa', 60n), { kind: 'spent-before' });
    assert.deepEqual(await spend('bb', 41n), { kind: 'exceeded', remaining: 40n });
    await assert.rejects(
      checkAllowance(deps(), 'minter-3', 41n),
      (err: unknown) => err instanceof DomainError && err.code === 'MINT_ALLOWANCE_EXCEEDED',
    );
    await checkAllowance(deps(), 'no-row', 10n ** 20n);
    assert.deepEqual(await spend('bb', 40n), { kind: 'spent', remaining: 0n });
    assert.equal(await refundAllowance(fresh.db, 'bb'), true);
    assert.equal(await refundAllowance(fresh.db, 'bb'), false);
    assert.equal((await allowanceOf(fresh.db, 'minter-3'))?.remaining, 40n);
    assert.deepEqual(await spendAllowance(fresh.db, { txid: 'cc', keyId: 'no-row', amount: 5n, at: T0 }), {
      kind: 'spent',
      remaining: null,
    });
    await assert.rejects(fresh.db.query("UPDATE control_events SET actor = 'me'"), /append-only/);
  });

  it('a lowering set while a mint spends is judged against what is left: a raise is not set', async (t) => {
    await fresh.db.transaction((tx) =>
      setAllowance(tx, { keyId: 'minter-4', remaining: 1000n, reason: 'set', actor: 'k1', at: T0 }),
    );
    const lower = (to: bigint) =>
      setMintAllowance(deps(), {
        keyId: 'minter-4',
        remaining: to,
        reason: 'lower',
        actor: 'k1',
        unlessRaise: true,
      });
    assert.deepEqual(await lower(950n), { before: 1000n, after: 950n }, 'a lowering is set');
    assert.equal(await lower(990n), null, 'a raise is not set: nothing written');
    assert.equal((await allowanceOf(fresh.db, 'minter-4'))?.remaining, 950n);
    if (fresh.db.dialect !== 'postgres') return t.skip('the wait: PGlite runs one transaction at a time');
    // A mint holds the allowance, spending 800, while 900 is asked as a lowering of 950.
    const mint = holdOpen(fresh.db, async (tx) => {
      await spendAllowance(inside(fresh.db, tx), { txid: 'dd', keyId: 'minter-4', amount: 800n, at: T0 });
      return backendPid(tx);
    });
    const setting = runWhileHeld(fresh.db, mint, () => lower(900n), 'the setting to wait for the mint');
    assert.equal(await setting, null, '900 after the spend left 150 is a raise');
    assert.equal((await allowanceOf(fresh.db, 'minter-4'))?.remaining, 150n);
  });

  it("a refund never takes back a committed mint's spend, nor one a later setting replaced", async (t) => {
    const at = new Date(T0.getTime() + 1000);
    await fresh.db.transaction((tx) =>
      setAllowance(tx, { keyId: 'minter-5', remaining: 100n, reason: 'set', actor: 'k1', at: T0 }),
    );
    const left = async () => (await allowanceOf(fresh.db, 'minter-5'))?.remaining;
    const spend = (txid: string, amount: bigint) =>
      spendAllowance(fresh.db, { txid, keyId: 'minter-5', amount, at });
    const mark = (txid: string, amount: bigint) =>
      markSpendCommitted(fresh.db, { txid, keyId: 'minter-5', amount, at });
    // Committed, then refunded by an attempt that failed: nothing given back.
    await spend('m1', 10n);
    assert.equal(await mark('m1', 10n), false);
    assert.equal(await refundAllowance(fresh.db, 'm1'), false);
    assert.equal(await left(), 90n);
    // Refunded, then committed by the other attempt: charged again.
    await spend('m2', 20n);
    assert.equal(await refundAllowance(fresh.db, 'm2'), true);
    assert.equal(await left(), 90n);
    assert.equal(await mark('m2', 20n), true, 'charged again');
    assert.equal(await left(), 70n);
    // Set after the spend: the refund leaves the setting as it is.
    await spend('m3', 30n);
    await fresh.db.transaction((tx) =>
      setAllowance(tx, {
        keyId: 'minter-5',
        remaining: 0n,
        reason: 'stop',
        actor: 'k1',
        at: new Date(at.getTime() + 1),
      }),
    );
    assert.equal(await refundAllowance(fresh.db, 'm3'), true);
    assert.equal(await left(), 0n, 'the stop holds');
    if (fresh.db.dialect !== 'postgres') return t.skip('the wait: PGlite runs one transaction at a time');
    // A refund holds the spend while the other attempt's mint commits and marks it.
    await fresh.db.transaction((tx) =>
      setAllowance(tx, { keyId: 'minter-5', remaining: 100n, reason: 'set', actor: 'k1', at: T0 }),
    );
    await spend('m4', 40n);
    const refund = holdOpen(fresh.db, async (tx) => {
      await tx.query('DELETE FROM mint_allowance_spends WHERE txid = $1 AND NOT committed', ['m4']);
      await tx.query("UPDATE mint_allowances SET remaining = remaining + 40 WHERE key_id = 'minter-5'");
      return backendPid(tx);
    });
    const marking = runWhileHeld(fresh.db, refund, () => mark('m4', 40n), 'the mark to wait for the refund');
    assert.equal(await marking, true, 'the spend the refund gave back is charged again');
    assert.equal(await left(), 60n);
  });

  it('a policy change judged against a version another change replaced meanwhile is not written', async (t) => {
    const stored = await approvalPolicy(fresh.db);
    const change = (rules: unknown[], seen: string) =>
      setPolicy(deps(), { rules, reason: 'change', actor: 'k-a' }, seen);
    const other = [{ action: 'mint', approvals: 2 }];
    try {
      assert.notEqual(await change(other, stored.version), null, 'against the version in force: written');
      assert.equal(await change([], stored.version), null, 'against a replaced version: not written');
      const now = await approvalPolicy(fresh.db);
      assert.deepEqual(now.rules, other);
      assert.notEqual(now.version, stored.version);
      if (fresh.db.dialect !== 'postgres') return t.skip('the wait: PGlite runs one transaction at a time');
      // Another change holds the policy while one judged against the version before it is asked.
      const held = holdOpen(fresh.db, async (tx) => {
        await setApprovalPolicy(tx, { rules: [], reason: 'other', actor: 'k-b', at: T0 });
        return backendPid(tx);
      });
      const asked = runWhileHeld(fresh.db, held, () => change(other, now.version), 'the change to wait');
      assert.equal(await asked, null, 'the change committed meanwhile is seen');
      assert.deepEqual((await approvalPolicy(fresh.db)).rules, []);
    } finally {
      await fresh.db.transaction((tx) =>
        setApprovalPolicy(tx, { rules: stored.rules, reason: 'restore', actor: 'k-policy', at: T0 }),
      );
    }
  });

  it('two approvals and two executors racing on two pools decide and execute once', {
    skip: fresh.target === 'pglite' || testDatabaseUrl === undefined,
  }, async () => {
    const other = await openPostgresDb(testDatabaseUrl!, { schema: fresh.schema!, max: 4 });
    after(() => other.close());
    for (let round = 0; round < 5; round++) {
      const p = (await gate(deps(), {
        action: 'raise-allowance',
        body: { keyId: `race-${round}`, amount: '7', reason: 'race' },
        summary: 'race',
        actor: 'k1',
      }))!;
      const votes = await Promise.all([
        vote(deps(), { id: p.id, keyId: 'kA', vote: 'approve', reason: 'a' }),
        vote(deps(other), { id: p.id, keyId: 'kB', vote: 'approve', reason: 'b' }),
      ]);
      assert.deepEqual(votes.map((v) => v.kind).sort(), ['closed', 'voted']);
      const runs = await Promise.all([
        executeProposal(executor(), p.id, 'kA'),
        executeProposal(executor(other), p.id, 'kB'),
      ]);
      assert.deepEqual(runs.map((r) => r.kind).sort(), ['executed', 'not-run']);
      const recorded = (await events(p.id)).map(([a]) => a);
      assert.deepEqual(recorded, ['proposal', 'proposal-approve', 'proposal-execute']);
      assert.equal((await events(`race-${round}`)).length, 1, 'the allowance was set once');
    }
  });
});
