// Attack: someone who can read the database and reach the writer's port posts forged writes to it
// (issue 29). The writer runs in a process of its own on PostgreSQL, an api process and the
// tracker in this one. The registry row holds no token (reading `settings` is not enough to call
// the writer); and even with a valid token (derived here from the approver key, as an api
// process does), every forged submission is refused and nothing is written: a made-up one
// (junk raw transaction, no inputs, 10,000 tokens to an address), one signed by the owner but not
// by this service's approver, one the approver did sign but whose first look is a year ahead,
// and a forged ledger verdict changes nothing the ledger does not say. Runs only when
// TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Transaction, UnlockingScript } from '@bsv/sdk';
import { apiContextOf } from '../../src/compose.js';
import { hash160 } from '../../src/crypto/hash.js';
import { uuidv7 } from '../../src/crypto/random-id.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { txidOf } from '../../src/crypto/txid.js';
import { completeTransfer } from '../../src/domain/complete-transfer.js';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import { isRefusal } from '../../src/domain/transfer-refusal.js';
import { validateTransfer } from '../../src/domain/validate-transfer.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import type { Submission } from '../../src/store/submissions/submission-writes.js';
import { writerToken } from '../../src/writer/writer-token.js';
import { encodeSubmission } from '../../src/writer/writer-wire.js';
import { http, transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually } from '../e2e/support.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { freePort, type RoleProcess, startRoleProcess } from '../support/role-process.js';
import { randomTxid } from '../support/seed-store.js';
import { aSubmission } from '../support/submission-fixture.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

const HOLDER = party('forged writer holder');
const THIEF = party('forged writer thief');
const MERCHANT = party('forged writer merchant');

describe('attack: forged writes posted to the writer with a valid token', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('writer forgery');
  let api: Instance;
  let writer: RoleProcess | null = null;
  const writerDir = mkdtempSync(join(tmpdir(), 'tokenproxy-forged-writer-'));

  before(async () => {
    api = await world.start('api');
    await world.ledger.devnet.mine(1);
    await world.start('tracker');
    writer = await startRoleProcess('writer', world.databaseUrl, world.ledger.flags, {
      port: await freePort(),
      dataDir: writerDir,
    });
    await eventually(
      async () =>
        (await api.service.parts.db.query("SELECT 1 FROM settings WHERE key = 'writer'")).length === 1
          ? true
          : undefined,
      'the writer registered',
      600,
    );
  });
  after(async () => {
    if (writer !== null && writer.child.exitCode === null && writer.child.signalCode === null)
      writer.child.kill('SIGKILL');
    await writer?.exited;
    rmSync(writerDir, { recursive: true, force: true });
  });

  it('refuses every forged write, and nothing forged is written', async () => {
    const parts = api.service.parts;
    const { db } = parts;
    const ctx = apiContextOf(parts);
    const row = (
      await db.query<{ value: Record<string, string> }>("SELECT value FROM settings WHERE key = 'writer'")
    )[0]!.value;
    assert.equal(row.token, undefined, 'the registry row holds no token');
    assert.match(row.tokenHash ?? '', /^[0-9a-f]{64}$/);
    assert.match(row.url!, /^http:\/\/127\.0\.0\.1:\d+$/, 'the writer listens on loopback by default');
    const post = (path: string, body: unknown, bearer: string) =>
      fetch(`${row.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    assert.equal(
      (await post('/submissions', { submissions: [] }, row.tokenHash!)).status,
      401,
      'what the database holds does not open the writer',
    );
    const token = writerToken(parts.keys.approver, row.instance!);
    assert.equal((await post('/submissions', { submissions: [] }, token)).status, 200, 'the token is valid');

    const key = (await createApiKey(db, parts.masterKey, { name: 'w', scopes: ['read', 'submit'] })).key;
    const { mintTokens } = await import('../../src/usecases/supply/mint-tokens.js');
    const minted = await mintTokens(ctx, parts.keys.mint, { to: HOLDER.address, amount: 50_000n });
    await world.ledger.devnet.mine(1);
    const status = async (txid: string) =>
      (await db.query<{ status: string }>('SELECT status FROM tickets WHERE txid = $1', [txid]))[0]?.status;
    await eventually(async () => ((await status(minted.txid)) === 'MINED' ? true : undefined), 'minted', 600);
    const [utxo] = await utxosOf(api.url, key, HOLDER.address);
    assert.ok(utxo !== undefined);
    const tickets = async () =>
      Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM tickets'))[0]!.n);
    const before = await tickets();
    const now = new Date();
    const soon = new Date(now.getTime() + 5_000);
    const refusedWith = async (s: Submission, reason: RegExp) => {
      const res = await post('/submissions', { submissions: [encodeSubmission(s)] }, token);
      const text = await res.text();
      assert.equal(res.status, 400, text);
      assert.match(text, reason);
    };

    // 1. The made-up submission of issue 29: junk raw transaction, no inputs, 10,000 tokens to the
    // thief, funded by an output an api process holds leased (read from the database, as the
    // attacker did). Before the fix the writer answered `created` and the thief held 10,000.
    const leased = (
      await db.query<{ txid: string; vout: number; lease_owner: string }>(
        "SELECT txid, vout, lease_owner FROM funding_outputs WHERE state = 'available' AND lease_owner IS NOT NULL LIMIT 1",
      )
    )[0];
    assert.ok(leased !== undefined, 'an api process holds funding outputs leased');
    const thiefScript = buildP2pkhScript(THIEF.pkh);
    await refusedWith(
      aSubmission({
        rawTx: Uint8Array.of(1, 0, 0, 0, 0),
        funding: { txid: leased.txid, vout: leased.vout },
        leaseOwner: leased.lease_owner,
        inputs: [],
        outputs: [
          {
            vout: 0,
            owner: THIEF.address,
            amount: 10_000n,
            op: 'transfer',
            script: thiefScript,
            satoshis: 1n,
          },
        ],
        receivers: [THIEF.address],
        now,
        firstCheckAt: soon,
      }),
      /rawTx/,
    );

    // 2. The holder's real output spent to the thief, signed by its owner, with a funding input, but
    // never cosigned by this service's approver.
    const clientRaw = new Uint8Array(
      Buffer.from(
        transferOf(ctx.token, { from: HOLDER, inputs: [utxo], to: THIEF, amount: 49_900n, fee: 100n }),
        'base64',
      ),
    );
    const unapproved = Transaction.fromBinary(clientRaw);
    const fakeFunding = { txid: randomTxid(), vout: 0 };
    unapproved.addInput({
      sourceTXID: fakeFunding.txid,
      sourceOutputIndex: 0,
      unlockingScript: new UnlockingScript(),
      sequence: 0xffffffff,
    });
    const unapprovedRaw = unapproved.toUint8Array();
    await refusedWith(
      aSubmission({
        txid: txidOf(unapprovedRaw),
        rawTx: unapprovedRaw,
        inputs: [{ txid: utxo.txid, vout: utxo.vout }],
        funding: fakeFunding,
        now,
        firstCheckAt: soon,
      }),
      /input 0: (no approver signature|approver signature)/,
    );

    // 3. One the approver did sign (made here with the service's keys, funded by an output that is
    // not the pool's), its first look a year ahead: refused; with honest times it passes the checks
    // and still writes nothing, for no funding output of the pool backs it.
    const parsed = parseTransfer(clientRaw, ctx.token);
    assert.ok(!isRefusal(parsed));
    const valid = validateTransfer(
      parsed,
      new Map([[`${utxo.txid}_${utxo.vout}`, { ...utxo, state: 'unspent' as const }]]),
      ctx.token,
    );
    assert.ok(valid.ok, valid.ok ? '' : valid.detail);
    const fundingScript = buildP2pkhScript(hash160(publicKeyOf(parts.keys.funding)));
    const cosigned = completeTransfer(
      valid,
      { txid: fakeFunding.txid, vout: 0, satoshis: 100_000n, lockingScript: fundingScript },
      { approver: parts.keys.approver, funding: parts.keys.funding },
      1n,
    );
    const approved = aSubmission({
      ticketId: uuidv7(),
      txid: cosigned.txid,
      submittedTxid: parsed.txid,
      rawTx: cosigned.raw,
      inputs: [{ txid: utxo.txid, vout: utxo.vout }],
      funding: fakeFunding,
      now,
      firstCheckAt: new Date(now.getTime() + 365 * 24 * 3600_000),
    });
    await refusedWith(approved, /firstCheckAt/);
    const honest = await post(
      '/submissions',
      { submissions: [encodeSubmission({ ...approved, firstCheckAt: soon })] },
      token,
    );
    assert.equal(honest.status, 200);
    assert.deepEqual(await honest.json(), { verdicts: [{ kind: 'funding-lost' }] });

    // 4. A forged verdict: the mint's transaction rejected. The writer asks the ledger, which says mined.
    const verdict = await post(
      '/ledger-updates',
      { updates: [{ txid: minted.txid, view: { status: { kind: 'rejected', reason: 'forged' } } }] },
      token,
    );
    assert.equal(verdict.status, 200);
    assert.equal(await status(minted.txid), 'MINED', 'the mint stays MINED');

    // Nothing forged was written: no ticket, nothing for the thief, the holder's output unspent,
    // and the thief cannot spend what it was never given.
    assert.equal(await tickets(), before);
    const owned = await db.query('SELECT 1 FROM token_outputs WHERE owner = $1', [THIEF.address]);
    assert.deepEqual(owned, []);
    assert.deepEqual(
      (await utxosOf(api.url, key, HOLDER.address)).map((o) => `${o.txid}_${o.vout}`),
      [`${utxo.txid}_${utxo.vout}`],
    );
    const spend = await http(api.url, 'POST', '/v2/transfer', {
      key,
      body: {
        rawtx: transferOf(ctx.token, {
          from: THIEF,
          inputs: [{ ...utxo, txid: cosigned.txid, vout: 0, owner: THIEF.address }],
          to: MERCHANT,
          amount: 9_900n,
          fee: 100n,
        }),
      },
    });
    assert.equal(spend.status >= 400 && spend.status < 500, true, spend.text);
    // Supply still balances (before the fix: 500 "supply does not balance").
    const supply = await http(api.url, 'GET', '/v2/admin/status', { key: api.adminKey });
    assert.equal(supply.status, 200, supply.text);
  });
});
