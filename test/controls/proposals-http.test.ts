// Issue 32, no single key, over a real server on each database (PGlite; PostgreSQL with
// TEST_DATABASE_URL): the approval policy set through the API; a mint above the policy's amount
// answers 202 with a proposal that another mint key approves (the same key twice is refused, a
// key without the scope too) and that mints exactly once, an Idempotency-Key retry answering the
// same proposal; unpause held back and approved; per-key allowances (no row: no cap; set: spent
// by each mint, refused above what is left with MINT_ALLOWANCE_EXCEEDED; a raise held back);
// rejection; the CLI; and every step in the control record and /metrics with its key.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { txidOf } from '../../src/crypto/txid.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { preparedFor } from '../../src/usecases/controls/proposals-execute.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { assertProblem, http, utxosOf } from '../e2e/e2e-http.js';
import { eventually } from '../e2e/support.js';
import { cli } from '../support/cli-child.js';
import { describeServiceOnEachDb } from '../support/service-on-each-db.js';
import { party } from '../support/token-world.js';

interface ProposalAnswer {
  id: string;
  action: string;
  state: string;
  required: number;
  approvals: number;
  proposedBy: string;
  result: Record<string, unknown> | null;
  answer?: Record<string, unknown> | null;
  votes: { keyId: string; vote: string }[];
}

describeServiceOnEachDb('approvals and mint allowances', [], (suite) => {
  const url = () => suite.t.url;
  const keys: Record<string, { id: string; key: string }> = {};
  const as = (who: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    http(url(), method, path, {
      key: who === 'admin' ? suite.t.adminKey : keys[who]!.key,
      body,
      ...(headers !== undefined && { headers }),
    });

  before(async () => {
    const { parts } = suite.t.service;
    for (const [name, scopes] of [
      ['minterA', ['mint']],
      ['minterB', ['mint']],
      ['policyA', ['policy']],
      ['policyB', ['policy']],
      ['pauserA', ['pause']],
      ['pauserB', ['pause']],
      ['freezer', ['freeze']],
      ['keeper', ['keys']],
      ['seizerA', ['seize']],
      ['seizerB', ['seize']],
      ['wallet', ['read', 'submit']],
    ] as const) {
      const made = await createApiKey(parts.db, parts.masterKey, { name, scopes: [...scopes] });
      keys[name] = { id: made.id, key: made.key };
    }
    const set = await as('admin', 'PUT', '/v2/admin/approvals/policy', {
      rules: [
        { action: 'mint', approvals: 2, above: '100000' },
        { action: 'unpause', approvals: 2 },
        { action: 'raise-allowance', approvals: 2 },
      ],
      reason: 'two keys for large mints',
    });
    assert.equal(set.status, 200, set.text);
  });

  it('a mint above the amount is a proposal; a second mint key approves it; it mints once', async () => {
    const to = party(`approvals mint ${suite.target}`);
    const small = await as('minterA', 'POST', '/v2/admin/mint', { to: to.address, amount: '1' });
    assert.equal(small.status, 200, small.text);

    const idem = { 'idempotency-key': `big-mint-${suite.target}` };
    const asked = await as('minterA', 'POST', '/v2/admin/mint', { to: to.address, amount: '5' }, idem);
    assert.equal(asked.status, 202, asked.text);
    const p = asked.json as ProposalAnswer;
    assert.deepEqual(
      [p.action, p.state, p.required, p.approvals, p.proposedBy],
      ['mint', 'open', 2, 1, keys.minterA!.id],
    );
    const replay = await as('minterA', 'POST', '/v2/admin/mint', { to: to.address, amount: '5' }, idem);
    assert.equal(replay.status, 202);
    assert.equal((replay.json as ProposalAnswer).id, p.id, 'the retry answers the same proposal');

    assertProblem(
      await as('minterA', 'POST', `/v2/admin/proposals/${p.id}/approve`, {}),
      409,
      'ALREADY_VOTED',
    );
    assertProblem(await as('freezer', 'POST', `/v2/admin/proposals/${p.id}/approve`, {}), 403, 'FORBIDDEN');
    const approved = await as('minterB', 'POST', `/v2/admin/proposals/${p.id}/approve`, {
      reason: 'invoice 881',
    });
    assert.equal(approved.status, 200, approved.text);
    const done = approved.json as ProposalAnswer;
    assert.equal(done.state, 'executed', approved.text);
    assert.equal(typeof done.answer?.txid, 'string');
    assertProblem(
      await as('admin', 'POST', `/v2/admin/proposals/${p.id}/approve`, {}),
      409,
      'PROPOSAL_CLOSED',
    );
    const again = await as('minterB', 'POST', `/v2/admin/proposals/${p.id}/execute`);
    assert.equal(again.status, 200, again.text);
    assert.equal((again.json as ProposalAnswer).result?.txid, done.answer?.txid);

    await suite.t.service.parts.devnet!.mine(1);
    const outputs = await eventually(async () => {
      const list = await utxosOf(url(), suite.t.adminKey, to.address);
      return list.length >= 2 ? list : undefined;
    }, 'both mints seen');
    assert.deepEqual(outputs.map((o) => o.amount).sort(), [100_000n, 500_000n].sort());
  });

  it('an approved mint whose kept transaction lost its treasury output is built again', async () => {
    const to = party(`approvals stale mint ${suite.target}`);
    const asked = await as('minterA', 'POST', '/v2/admin/mint', { to: to.address, amount: '3' });
    assert.equal(asked.status, 202, asked.text);
    const p = asked.json as ProposalAnswer;
    // An executor killed once it kept the proposal's transaction, before submitting it.
    const ctx = apiContextOf(suite.t.service.parts);
    let stale: string | null = null;
    await assert.rejects(
      mintTokens(
        ctx,
        suite.t.service.parts.keys.mint,
        { to: to.address, amount: 300_000n },
        {
          earlier: async () => null,
          keep: async (raw) => {
            await preparedFor(ctx, p.id).keep(raw);
            stale = txidOf(raw);
            throw new Error('killed after the keep');
          },
        },
      ),
      /killed after the keep/,
    );
    // A smaller mint takes the treasury output the kept transaction picked.
    const taking = await as('minterB', 'POST', '/v2/admin/mint', { to: to.address, amount: '1' });
    assert.equal(taking.status, 200, taking.text);

    const approved = await as('minterB', 'POST', `/v2/admin/proposals/${p.id}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    const done = approved.json as ProposalAnswer;
    assert.equal(done.state, 'executed', approved.text);
    const [ticket] = await suite.t.service.parts.db.query<{ submitted_txid: string }>(
      'SELECT submitted_txid FROM tickets WHERE txid = $1',
      [String(done.answer?.txid)],
    );
    assert.ok(ticket !== undefined && stale !== null && ticket.submitted_txid !== stale, 'built again');
  });

  it('a mint no issuer means is refused at once, never put to the approvers', async () => {
    const { token } = suite.t.service.parts;
    for (const [to, why] of [
      [token.burnAddress, /burn address/],
      [token.feeAddress, /fee address/],
      [token.mintAddress, /treasury/],
      ['not-an-address', /not a P2PKH address/],
    ] as const) {
      const asked = await as('minterA', 'POST', '/v2/admin/mint', { to, amount: '5' });
      assertProblem(asked, 400, 'INVALID_ADDRESS');
      assert.match(asked.text, why);
    }
  });

  it('unpause is held back until a second pause key approves it', async () => {
    assert.equal(
      (await as('pauserA', 'PUT', '/v2/admin/pause', { paused: true, reason: 'drill' })).status,
      200,
    );
    const asked = await as('pauserA', 'PUT', '/v2/admin/pause', { paused: false, reason: 'drill over' });
    assert.equal(asked.status, 202, asked.text);
    const p = asked.json as ProposalAnswer;
    assert.equal(((await as('admin', 'GET', '/v2/admin/pause')).json as { paused: boolean }).paused, true);
    const ok = await as('pauserB', 'POST', `/v2/admin/proposals/${p.id}/approve`);
    assert.equal((ok.json as ProposalAnswer).state, 'executed', ok.text);
    assert.equal(((await as('admin', 'GET', '/v2/admin/pause')).json as { paused: boolean }).paused, false);
  });

  it('an allowance caps a key: spent by each mint, refused above it; a raise needs two keys', async () => {
    const to = party(`approvals allowance ${suite.target}`);
    const minter = keys.minterA!.id;
    assertProblem(await as('admin', 'GET', `/v2/admin/allowances/${minter}`), 404, 'NOT_FOUND');
    const set = await as('policyA', 'PUT', `/v2/admin/allowances/${minter}`, { amount: '1', reason: 'cap' });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.json, { keyId: minter, before: null, after: '100000' });
    assertProblem(
      await as('minterA', 'POST', '/v2/admin/mint', { to: to.address, amount: '1.5' }),
      403,
      'MINT_ALLOWANCE_EXCEEDED',
    );
    assert.equal(
      (await as('minterA', 'POST', '/v2/admin/mint', { to: to.address, amount: '0.6' })).status,
      200,
    );
    assertProblem(
      await as('minterA', 'POST', '/v2/admin/mint', { to: to.address, amount: '0.6' }),
      403,
      'MINT_ALLOWANCE_EXCEEDED',
    );
    const left = (await as('admin', 'GET', `/v2/admin/allowances/${minter}`)).json as {
      remaining: { atomic: number };
    };
    assert.equal(left.remaining.atomic, 40_000);
    // A key without an allowance still mints without a cap.
    assert.equal(
      (await as('minterB', 'POST', '/v2/admin/mint', { to: to.address, amount: '0.6' })).status,
      200,
    );

    const raise = await as('policyA', 'PUT', `/v2/admin/allowances/${minter}`, {
      amount: '10',
      reason: 'Q4',
    });
    assert.equal(raise.status, 202, raise.text);
    const p = raise.json as ProposalAnswer;
    assert.equal(p.action, 'raise-allowance');
    const lower = await as('policyB', 'PUT', `/v2/admin/allowances/${minter}`, {
      amount: '0.1',
      reason: 'lower',
    });
    assert.equal(lower.status, 200, 'lowering is never held back');
    const ok = await as('policyB', 'POST', `/v2/admin/proposals/${p.id}/approve`);
    assert.equal((ok.json as ProposalAnswer).state, 'executed', ok.text);
    const now = (await as('admin', 'GET', '/v2/admin/allowances')).json as {
      allowances: { keyId: string; remaining: { atomic: number } }[];
    };
    assert.deepEqual(
      now.allowances.filter((a) => a.keyId === minter).map((a) => a.remaining.atomic),
      [1_000_000],
    );
  });

  it('one rejection closes a proposal; the CLI lists, shows and votes', async () => {
    const to = party(`approvals cli ${suite.target}`);
    const asked = await as('minterB', 'POST', '/v2/admin/mint', { to: to.address, amount: '3' });
    const p = asked.json as ProposalAnswer;
    const conn = ['--url', url(), '--admin-key', keys.minterA!.key, '--json'];
    const listed = await cli(['proposals', 'list', '--state', 'open', ...conn]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(
      (JSON.parse(listed.stdout) as { proposals: ProposalAnswer[] }).proposals.some((x) => x.id === p.id),
    );
    const shown = await cli(['proposals', 'show', p.id, ...conn]);
    assert.equal((JSON.parse(shown.stdout) as ProposalAnswer).state, 'open');
    const rejected = await cli(['proposals', 'reject', p.id, '--reason', 'wrong address', ...conn]);
    assert.equal(rejected.code, 0, rejected.stderr);
    assert.equal((JSON.parse(rejected.stdout) as ProposalAnswer).state, 'rejected');
    const late = await cli(['proposals', 'approve', p.id, ...conn]);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /409 PROPOSAL_CLOSED/);
    const allowance = await cli([
      'allowance',
      'show',
      ...conn.slice(0, 2),
      '--admin-key',
      suite.t.adminKey,
      '--json',
    ]);
    assert.equal(allowance.code, 0, allowance.stderr);
  });

  it('unfreeze, unblacklist, key creation and the policy itself are held back and run once approved', async () => {
    const held = party(`approvals held ${suite.target}`).address;
    assert.equal(
      (
        await as('admin', 'PUT', '/v2/admin/approvals/policy', {
          rules: [
            { action: 'mint', approvals: 2, above: '100000' },
            { action: 'unpause', approvals: 2 },
            { action: 'raise-allowance', approvals: 2 },
            { action: 'unfreeze', approvals: 2 },
            { action: 'unblacklist', approvals: 2 },
            { action: 'create-key', approvals: 2 },
            { action: 'set-policy', approvals: 2 },
          ],
          reason: 'all of them',
        })
      ).status,
      200,
    );
    assert.equal(
      (await as('admin', 'POST', '/v2/admin/freezes', { address: held, reason: 'case 7' })).status,
      201,
    );
    assert.equal(
      (await as('admin', 'POST', '/v2/admin/blacklist', { address: held, reason: 'case 7' })).status,
      201,
    );
    const unfreeze = await as('freezer', 'DELETE', `/v2/admin/freezes/${held}`, { reason: 'case closed' });
    const unlist = await as('freezer', 'DELETE', `/v2/admin/blacklist/${held}`, { reason: 'case closed' });
    const key = await as('admin', 'POST', '/v2/admin/keys', { name: 'new treasurer', scopes: ['mint'] });
    const wallet = await as('admin', 'POST', '/v2/admin/keys', {
      name: 'a wallet',
      scopes: ['read', 'submit'],
    });
    assert.equal(wallet.status, 201, 'a wallet key is made at once');
    const policy = await as('policyA', 'PUT', '/v2/admin/approvals/policy', { rules: [], reason: 'drop' });
    for (const a of [unfreeze, unlist, key, policy]) assert.equal(a.status, 202, a.text);
    const [pf, pb, pk, pp] = [unfreeze, unlist, key, policy].map((a) => a.json as ProposalAnswer);
    assert.equal((await as('admin', 'GET', '/v2/admin/freezes')).text.includes(held), true, 'still frozen');

    const approve = (who: string, p: ProposalAnswer) =>
      as(who, 'POST', `/v2/admin/proposals/${p.id}/approve`, {});
    assert.equal(((await approve('admin', pf!)).json as ProposalAnswer).state, 'executed');
    assert.equal(((await approve('admin', pb!)).json as ProposalAnswer).state, 'executed');
    assertProblem(await approve('minterA', pk!), 403, 'FORBIDDEN');
    assertProblem(
      await approve('admin', pk!),
      409,
      'ALREADY_VOTED',
      /needs the approvals of other keys|voted/,
    );
    const created = (await approve('keeper', pk!)).json as ProposalAnswer;
    assert.equal(created.state, 'executed');
    assert.match(String(created.answer?.key), /^tp_/, 'the new key, shown once');
    assert.equal(JSON.stringify(created.result).includes(String(created.answer?.key)), false, 'never stored');
    const works = await http(url(), 'GET', '/v2/admin/whoami', { key: String(created.answer?.key) });
    assert.deepEqual((works.json as { scopes: string[] }).scopes, ['mint']);
    assert.equal(((await approve('policyB', pp!)).json as ProposalAnswer).state, 'executed');
    const now = (await as('admin', 'GET', '/v2/admin/approvals/policy')).json as { rules: unknown[] };
    assert.deepEqual(now.rules, []);
    const freezes = (await as('admin', 'GET', '/v2/admin/freezes')).json as { frozen: { address: string }[] };
    assert.equal(
      freezes.frozen.some((f) => f.address === held),
      false,
    );
    const listed = (await as('admin', 'GET', '/v2/admin/blacklist')).json as {
      listed: { address: string }[];
    };
    assert.equal(
      listed.listed.some((l) => l.address === held),
      false,
    );
  });

  it('a seizure is held back and, approved, seized and reissued once', async () => {
    const thief = party(`approvals thief ${suite.target}`);
    const owner = party(`approvals owner ${suite.target}`);
    const { parts } = suite.t.service;
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: thief.address, amount: 70_000n });
    await parts.devnet!.mine(1);
    const [output] = await eventually(async () => {
      const list = await utxosOf(url(), suite.t.adminKey, thief.address);
      return list.length > 0 ? list : undefined;
    }, 'minted to the thief');
    assert.equal(
      (await as('admin', 'POST', '/v2/admin/freezes', { address: thief.address, reason: 'theft' })).status,
      201,
    );
    assert.equal(
      (
        await as('admin', 'PUT', '/v2/admin/approvals/policy', {
          rules: [{ action: 'seize', approvals: 2 }],
          reason: 'seizures by two',
        })
      ).status,
      200,
    );
    const order = {
      reference: `order ${suite.target} 77`,
      reason: 'stolen funds returned',
      outpoints: [`${output!.txid}_${output!.vout}`],
      reissueTo: owner.address,
    };
    const asked = await as('seizerA', 'POST', '/v2/admin/seizures', order);
    assert.equal(asked.status, 202, asked.text);
    assert.equal(
      ((await as('admin', 'GET', '/v2/admin/seizures')).json as { seizures: unknown[] }).seizures.length,
      0,
    );
    const ok = await as(
      'seizerB',
      'POST',
      `/v2/admin/proposals/${(asked.json as ProposalAnswer).id}/approve`,
      {},
    );
    const done = ok.json as ProposalAnswer;
    assert.equal(done.state, 'executed', ok.text);
    assert.equal(done.result?.reference, order.reference);
    const seizures = (await as('admin', 'GET', '/v2/admin/seizures')).json as {
      seizures: { reference: string; actor: string; amount: { atomic: number } }[];
    };
    assert.deepEqual(
      seizures.seizures.map((z) => [z.reference, z.actor, z.amount.atomic]),
      [[order.reference, keys.seizerA!.id, 70_000]],
    );
    await parts.devnet!.mine(1);
    const reissued = await eventually(async () => {
      const list = await utxosOf(url(), suite.t.adminKey, owner.address);
      return list.length > 0 ? list : undefined;
    }, 'reissued to the owner');
    assert.deepEqual(
      reissued.map((o) => o.amount),
      [70_000n],
    );
  });

  it('records every proposal, vote and execution with its key, and counts them in /metrics', async () => {
    const events = (await as('admin', 'GET', '/v2/admin/controls/events')).json as {
      events: { action: string; actor: string }[];
    };
    const actions = new Set(events.events.map((e) => `${e.action} ${e.actor}`));
    const adminId = ((await as('admin', 'GET', '/v2/admin/whoami')).json as { id: string }).id;
    for (const want of [
      `proposal ${keys.minterA!.id}`,
      `proposal-approve ${keys.minterB!.id}`,
      `proposal-execute ${keys.minterB!.id}`,
      `proposal-reject ${keys.minterA!.id}`,
      `allowance-set ${keys.policyA!.id}`,
      `policy-set ${adminId}`,
    ])
      assert.ok(actions.has(want), `${want} in the control record`);
    const metrics = await http(url(), 'GET', '/metrics', { key: suite.t.adminKey });
    for (const action of ['proposal', 'proposal-approve', 'proposal-reject', 'proposal-execute'])
      assert.match(
        metrics.text,
        new RegExp(`tokenproxy_control_changes_total\\{action="${action}"\\} [1-9]`),
      );
  });
});
