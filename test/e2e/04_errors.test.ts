// Every error status of the spec's table (section 7) and of contract.md, produced over a real
// socket against a real tokenproxy, each with its problem body. The service runs the api and
// devnet roles only (no tracker): nothing broadcasts or refills behind the test's back, so a
// ticket stays BROADCASTING until the test broadcasts it and the funding pool only changes
// when the test changes it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { uuidv7 } from '../../src/crypto/random-id.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import { LedgerUnavailableError } from '../../src/ledger/port.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { ticketById } from '../../src/store/tickets/ticket-queries.js';
import { refillFundingPool } from '../../src/usecases/funding/pool-refill.js';
import { createBroadcastQueue } from '../../src/usecases/submit/broadcast-queue.js';
import { broadcastTicket } from '../../src/usecases/submit/broadcast-ticket.js';
import { submitTransfer } from '../../src/usecases/submit/submit-transfer.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { tokenOutput } from '../support/build-transfer.js';
import { party } from '../support/token-world.js';
import { assertProblem, http, type TokenFacts, ticketIdOf, transferOf, utxosOf } from './e2e-http.js';
import { startTestService, type TestService } from './support.js';

const alice = party('errors alice');
const bob = party('errors bob');
/** An address with a valid alphabet and length but a wrong checksum (alice's, last character changed). */
const badChecksum = `${alice.address.slice(0, -1)}${alice.address.endsWith('a') ? 'b' : 'a'}`;

describe('error statuses over a real socket', () => {
  let t: TestService;
  let url: string;
  let admin: string;
  let readOnly: string;
  let submitter: string;
  let token: TokenFacts;

  const get = (path: string, key?: string) => http(url, 'GET', path, key === undefined ? {} : { key });
  const post = (path: string, body: unknown, key?: string, headers?: Record<string, string>) =>
    http(url, 'POST', path, { body, ...(key !== undefined && { key }), ...(headers && { headers }) });

  before(async () => {
    t = await startTestService(['--roles', 'api,devnet']);
    url = t.url;
    admin = t.adminKey;
    const { parts } = t.service;
    const ctx = apiContextOf(parts);
    token = ctx.token;
    await refillFundingPool(
      {
        db: parts.db,
        ledger: parts.ledger,
        fundingKey: parts.keys.funding,
        feeRate: ctx.feeRate,
        now: ctx.now,
        log: ctx.log,
      },
      100,
    );
    readOnly = (await createApiKey(parts.db, parts.masterKey, { name: 'reader', scopes: ['read'] })).key;
    submitter = (await createApiKey(parts.db, parts.masterKey, { name: 'wallet', scopes: ['submit'] })).key;
    for (const amount of [1_000_000n, 2_000_000n, 3_000_000n, 4_000_000n])
      await mintTokens(ctx, parts.keys.mint, { to: alice.address, amount });
  });

  after(async () => {
    await t?.stop();
  });

  describe('400 on every operation', () => {
    it('GET /v1/config: a malformed URL (it takes no parameters)', async () => {
      assertProblem(await get('/v1/config%', admin), 400, 'INVALID_REQUEST', 'Malformed request URL');
    });

    it('GET /v1/sync: from and limit out of range or not integers', async () => {
      for (const query of [
        'from=-1',
        'from=1.5',
        'from=abc',
        'limit=0',
        'limit=5001',
        'limit=-1',
        'limit=2.5',
      ]) {
        assertProblem(await get(`/v1/sync?${query}`, admin), 400, 'INVALID_PARAMETER', /.+/);
      }
    });

    it('POST /v1/sync: limit -1, order up, a bad address, an empty list', async () => {
      assertProblem(await post('/v1/sync?limit=-1', [alice.address], admin), 400, 'INVALID_PARAMETER');
      assertProblem(await post('/v1/sync?order=up', [alice.address], admin), 400, 'INVALID_PARAMETER');
      assertProblem(await post('/v1/sync?from=x', [alice.address], admin), 400, 'INVALID_PARAMETER');
      assertProblem(
        await post('/v1/sync', [alice.address, badChecksum], admin),
        400,
        'INVALID_ADDRESS',
        new RegExp(badChecksum),
      );
      assertProblem(await post('/v1/sync', [], admin), 400, 'INVALID_REQUEST');
    });

    it('POST /v2/utxos: page 0, size 1001, order up, non-integers, past 100,000 outputs, a bad address', async () => {
      const deep = ['page=101&size=1000', 'page=10001', 'page=1000000&size=1000'];
      for (const query of [
        'page=0',
        'size=0',
        'size=1001',
        'order=up',
        'page=1.5',
        'size=ten',
        'page=-1',
        ...deep,
      ]) {
        assertProblem(await post(`/v2/utxos?${query}`, [alice.address], admin), 400, 'INVALID_PARAMETER');
      }
      assertProblem(
        await post('/v2/utxos', ['1notAnAddress'], admin),
        400,
        'INVALID_ADDRESS',
        'invalid address: 1notAnAddress',
      );
    });

    it('POST /v1/utxos: a bad address, a body that is not an array', async () => {
      assertProblem(
        await post('/v1/utxos', [badChecksum], admin),
        400,
        'INVALID_ADDRESS',
        new RegExp(badChecksum),
      );
      assertProblem(await post('/v1/utxos', { address: alice.address }, admin), 400, 'INVALID_REQUEST');
    });

    it('POST /v2/balance: an unparsable body is exactly "Invalid JSON payload"', async () => {
      assertProblem(
        await post('/v2/balance', '["1abc",', admin),
        400,
        'INVALID_JSON',
        'Invalid JSON payload',
      );
      assertProblem(await post('/v2/balance', '', admin), 400, 'INVALID_JSON', 'Invalid JSON payload');
      assertProblem(
        await post('/v2/balance', [alice.address, 'bc1notanaddress'], admin),
        400,
        'INVALID_ADDRESS',
        /bc1notanaddress/,
      );
      assertProblem(await post('/v2/balance', [42], admin), 400, 'INVALID_REQUEST');
    });

    it('GET /v1/tx/{txid}: not 64 hex digits', async () => {
      assertProblem(await get('/v1/tx/xyz', admin), 400, 'INVALID_TXID', /xyz/);
      assertProblem(await get(`/v1/tx/${'g'.repeat(64)}`, admin), 400, 'INVALID_TXID');
    });

    it('GET /v2/ticket: missing or malformed ticketID', async () => {
      assertProblem(await get('/v2/ticket', admin), 400, 'INVALID_PARAMETER');
      assertProblem(await get('/v2/ticket?ticketID=not-a-ticket', admin), 400, 'INVALID_PARAMETER');
    });

    it('POST /v2/transfer and /v1/transfer: unparsable requests and transactions', async () => {
      for (const path of ['/v2/transfer', '/v1/transfer']) {
        assertProblem(await post(path, '{"rawtx":', submitter), 400, 'INVALID_JSON', 'Invalid JSON payload');
        assertProblem(await post(path, {}, submitter), 400, 'INVALID_REQUEST', /rawtx/);
        assertProblem(await post(path, { rawtx: 'not base64!' }, submitter), 400, 'INVALID_TX');
        assertProblem(await post(path, { rawtx: 'AQID' }, submitter), 400, 'INVALID_TX');
      }
    });
  });

  describe('400: each transfer rule', () => {
    const plan = async () => {
      const inputs = await utxosOf(url, admin, alice.address);
      return { from: alice, inputs: inputs.slice(0, 1), to: bob, amount: 100_000n, fee: 100n };
    };
    const submit = (rawtx: string, path = '/v2/transfer') => post(path, { rawtx }, submitter);

    it('BAD_OWNER_SIGNATURE: signed by someone else', async () => {
      const rawtx = transferOf(token, { ...(await plan()), signer: bob });
      assertProblem(await submit(rawtx), 400, 'BAD_OWNER_SIGNATURE');
      assertProblem(await submit(rawtx, '/v1/transfer'), 400, 'BAD_OWNER_SIGNATURE');
    });

    it('TOKEN_NOT_CONSERVED: one atomic unit more out than in', async () => {
      const rawtx = transferOf(token, { ...(await plan()), changeSkew: 1n });
      assertProblem(await submit(rawtx), 400, 'TOKEN_NOT_CONSERVED');
    });

    it('FEE_TOO_LOW: one atomic unit under the tier', async () => {
      const rawtx = transferOf(token, { ...(await plan()), fee: 99n });
      assertProblem(await submit(rawtx), 400, 'FEE_TOO_LOW', /99/);
    });

    it('UNKNOWN_INPUT, DUPLICATE_INPUT, NON_FINAL_TX', async () => {
      const p = await plan();
      const input = p.inputs[0]!;
      const unknown = { ...input, txid: 'ab'.repeat(32) };
      assertProblem(
        await submit(transferOf(token, { ...p, inputs: [unknown] })),
        400,
        'UNKNOWN_INPUT',
        new RegExp(`${'ab'.repeat(32)}_${input.vout}`),
      );
      assertProblem(
        await submit(transferOf(token, { ...p, inputs: [input, input], changeSkew: -input.amount })),
        400,
        'DUPLICATE_INPUT',
      );
      assertProblem(await submit(transferOf(token, { ...p, lockTime: 1 })), 400, 'NON_FINAL_TX');
    });

    it('FOREIGN_OUTPUT, WRONG_TOKEN, WRONG_APPROVER, LIMIT_EXCEEDED', async () => {
      const p = await plan();
      const p2pkh = { script: buildP2pkhScript(bob.pkh), satoshis: 1n };
      assertProblem(await submit(transferOf(token, { ...p, extraOutputs: [p2pkh] })), 400, 'FOREIGN_OUTPUT');
      const otherToken = tokenOutput(bob, 1n, `${'cd'.repeat(32)}_0`, token.approver);
      assertProblem(
        await submit(transferOf(token, { ...p, extraOutputs: [otherToken] })),
        400,
        'WRONG_TOKEN',
      );
      const otherApprover = tokenOutput(bob, 1n, token.tokenId, bob.publicKey);
      assertProblem(
        await submit(transferOf(token, { ...p, extraOutputs: [otherApprover] })),
        400,
        'WRONG_APPROVER',
      );
      const many = Array.from({ length: 100 }, () => tokenOutput(bob, 1n, token.tokenId, token.approver));
      assertProblem(await submit(transferOf(token, { ...p, extraOutputs: many })), 400, 'LIMIT_EXCEEDED');
    });

    it('INVALID_CALLBACK_URL: not http(s)', async () => {
      const rawtx = transferOf(token, await plan());
      assertProblem(
        await post('/v2/transfer', { rawtx, callback_url: 'ftp://example.com/hook' }, submitter),
        400,
        'INVALID_CALLBACK_URL',
      );
    });

    it('INVALID_CALLBACK_URL: within 2,048 characters as sent, longer once normalised', async () => {
      const rawtx = transferOf(token, await plan());
      const url = `https://wallet.example/${'é'.repeat(1000)}`;
      assert.ok(url.length <= 2048);
      assertProblem(
        await post('/v2/transfer', { rawtx, callback_url: url }, submitter),
        400,
        'INVALID_CALLBACK_URL',
        /once normalised/,
      );
    });

    it('INPUT_LOCKED while another ticket holds the output, INPUT_SPENT once it is broadcast', async () => {
      const ctx = apiContextOf(t.service.parts);
      const p = await plan();
      const outpoint = `${p.inputs[0]!.txid}_${p.inputs[0]!.vout}`;
      const first = transferOf(token, p);
      // The ledger does not answer this ticket's broadcast: it stays BROADCASTING, its input held.
      const unanswered = new Proxy(ctx.ledger, {
        get: (target, name) =>
          name === 'broadcast' || name === 'broadcastMany'
            ? () => Promise.reject(new LedgerUnavailableError('held by the test'))
            : Reflect.get(target, name),
      });
      // Its broadcast queue sends through that ledger too.
      const unansweredCtx = { ...ctx, ledger: unanswered };
      const held = await submitTransfer(
        { ...unansweredCtx, broadcasts: createBroadcastQueue(unansweredCtx) },
        {
          raw: new Uint8Array(Buffer.from(first, 'base64')),
          callbackUrl: null,
          callbackSecretEnc: null,
          apiKeyId: null,
        },
      );
      const other = transferOf(token, { ...p, amount: 200_000n });
      for (const path of ['/v2/transfer', '/v1/transfer']) {
        assertProblem(
          await submit(other, path),
          400,
          'INPUT_LOCKED',
          new RegExp(`outpoint ${outpoint} was locked in a previous transaction attempt`),
        );
      }
      assert.equal((await held.broadcast).kind, 'unavailable');
      const ticket = await ticketById(ctx.db, held.ticketId);
      assert.equal(ticket?.status, 'BROADCASTING');
      const outcome = await broadcastTicket(ctx, ticket.txid, ticket.rawTx);
      assert.equal(outcome.kind, 'accepted');
      for (const path of ['/v2/transfer', '/v1/transfer'])
        assertProblem(await submit(other, path), 400, 'INPUT_SPENT', /already spent/);
    });

    it('two different transfers of one output at once: exactly one ticket', async () => {
      const p = await plan();
      const answers = await Promise.all([
        submit(transferOf(token, { ...p, amount: 300_000n })),
        submit(transferOf(token, { ...p, amount: 400_000n })),
      ]);
      const accepted = answers.filter((a) => a.status === 200);
      assert.equal(accepted.length, 1, answers.map((a) => a.text).join(' | '));
      const refused = answers.find((a) => a.status !== 200)!;
      const code = (refused.json as { code?: string }).code;
      assert.ok(code === 'INPUT_LOCKED' || code === 'INPUT_SPENT', refused.text);
      assertProblem(refused, 400, code, /locked in a previous transaction attempt|already spent/);
    });
    it('the same transfer sent three times at once: one ticket, answered three times', async () => {
      const rawtx = transferOf(token, { ...(await plan()), amount: 500_000n });
      const answers = await Promise.all([submit(rawtx), submit(rawtx), submit(rawtx, '/v1/transfer')]);
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
      assert.equal(answers[0]!.text, answers[1]!.text);
      const ticket = await ticketById(t.service.parts.ctx.db, ticketIdOf(answers[0]!));
      assert.ok(ticket, 'the ticket exists');
      assert.equal(
        (answers[2]!.json as { rawtx: string }).rawtx,
        Buffer.from(ticket.rawTx).toString('base64'),
        'v1 answers the cosigned transaction of that ticket',
      );
    });
  });

  describe('401 and 403', () => {
    it('401 without a key on the submitting routes', async () => {
      for (const path of ['/v2/transfer', '/v1/transfer']) {
        const answer = await post(path, { rawtx: 'AQID' });
        assertProblem(answer, 401, 'UNAUTHORIZED');
        assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer/);
      }
    });

    it('401 with an unknown key on every route', async () => {
      const bogus = 'tp_unknown_key_0000000000000000';
      const routes: [string, string, unknown][] = [
        ['GET', '/v1/config', undefined],
        ['GET', '/v1/sync', undefined],
        ['POST', '/v1/sync', [alice.address]],
        ['POST', '/v1/utxos', [alice.address]],
        ['POST', '/v2/utxos', [alice.address]],
        ['POST', '/v2/balance', [alice.address]],
        ['GET', `/v1/tx/${'ab'.repeat(32)}`, undefined],
        ['GET', `/v2/ticket?ticketID=${uuidv7()}`, undefined],
        ['POST', '/v2/transfer', { rawtx: 'AQID' }],
        ['POST', '/v1/transfer', { rawtx: 'AQID' }],
      ];
      for (const [method, path, body] of routes) {
        assertProblem(
          await http(url, method, path, { key: bogus, body }),
          401,
          'UNAUTHORIZED',
          'Invalid API key',
        );
        const sep = path.includes('?') ? '&' : '?';
        const inQuery = await http(url, method, `${path}${sep}auth_token=${bogus}`, { body });
        assertProblem(inQuery, 401, 'UNAUTHORIZED');
      }
    });

    it('403 with a read-only key on the submitting routes; the key still reads', async () => {
      for (const path of ['/v2/transfer', '/v1/transfer'])
        assertProblem(await post(path, { rawtx: 'AQID' }, readOnly), 403, 'FORBIDDEN', /submit/);
      assert.equal((await post('/v2/balance', [alice.address], readOnly)).status, 200);
    });
  });

  describe('404, 405, 413', () => {
    it('404 record not found for an unknown ticket, and for an unknown transaction', async () => {
      const answer = await get(`/v2/ticket?ticketID=${uuidv7()}`, admin);
      assertProblem(answer, 404, 'NOT_FOUND', 'record not found');
      assertProblem(await get(`/v1/tx/${'ab'.repeat(32)}`, admin), 404, 'NOT_FOUND');
      assertProblem(await get('/v3/nothing', admin), 404, 'NOT_FOUND');
    });

    it('405 with Allow on GET /v2/balance', async () => {
      const answer = await get('/v2/balance', admin);
      assertProblem(answer, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(answer.headers.get('allow'), 'POST');
      const put = await http(url, 'PUT', '/v2/transfer', { key: admin, body: {} });
      assertProblem(put, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(put.headers.get('allow'), 'POST');
    });

    it('413 for a body over the limit', async () => {
      const big = JSON.stringify(Array.from({ length: 40_000 }, () => alice.address));
      assert.ok(big.length > 1024 * 1024);
      assertProblem(await post('/v2/balance', big, admin), 413, 'PAYLOAD_TOO_LARGE');
      assertProblem(
        await post('/v2/transfer', { rawtx: 'A'.repeat(1_100_000) }, submitter),
        413,
        'PAYLOAD_TOO_LARGE',
      );
    });
  });

  describe('Idempotency-Key on the submitting routes', () => {
    it('a retry gets the first answer; the same key with another body is 422', async () => {
      const inputs = await utxosOf(url, admin, alice.address);
      const p = { from: alice, inputs: inputs.slice(0, 1), to: bob, amount: 50_000n, fee: 100n };
      const rawtx = transferOf(token, p);
      const headers = { 'idempotency-key': 'retry-1' };
      const first = await post('/v2/transfer', { rawtx }, submitter, headers);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const again = await post('/v2/transfer', { rawtx }, submitter, {
        ...headers,
        accept: 'application/json',
      });
      assert.equal(again.status, 200);
      assert.equal(again.text, first.text, 'the first answer, body for body');
      assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
      assert.equal(again.headers.get('idempotent-replayed'), 'true');

      const other = transferOf(token, { ...p, amount: 60_000n });
      assertProblem(
        await post('/v2/transfer', { rawtx: other }, submitter, headers),
        422,
        'IDEMPOTENCY_CONFLICT',
      );
      assertProblem(await post('/v1/transfer', { rawtx }, submitter, headers), 422, 'IDEMPOTENCY_CONFLICT');
      // Keys belong to one API key: another key may use the same name.
      const byAdmin = await post('/v2/transfer', { rawtx }, admin, headers);
      assert.equal(byAdmin.status, 200);
      assert.equal(byAdmin.headers.get('idempotent-replayed'), null);
    });

    it('a refusal is not kept (a retry is refused afresh, not replayed), and a malformed key is a 400', async () => {
      const inputs = await utxosOf(url, admin, alice.address);
      const rawtx = transferOf(token, {
        from: alice,
        inputs: inputs.slice(0, 1),
        to: bob,
        amount: 1n,
        fee: 1n,
      });
      const headers = { 'idempotency-key': '"refused-1"' };
      const first = await post('/v1/transfer', { rawtx }, submitter, headers);
      assertProblem(first, 400, 'FEE_TOO_LOW');
      const again = await post('/v1/transfer', { rawtx }, submitter, headers);
      assertProblem(again, 400, 'FEE_TOO_LOW');
      assert.equal(again.headers.get('idempotent-replayed'), null, 'issue 29: refusals are not stored');
      const kept = await t.service.parts.db.query("SELECT 1 FROM idempotency_keys WHERE key = 'refused-1'");
      assert.deepEqual(kept, []);
      assertProblem(
        await post('/v2/transfer', { rawtx }, submitter, { 'idempotency-key': 'x'.repeat(256) }),
        400,
        'INVALID_REQUEST',
        /Idempotency-Key/,
      );
    });

    it('v1 replays the cosigned transaction it answered', async () => {
      const inputs = await utxosOf(url, admin, alice.address);
      const rawtx = transferOf(token, {
        from: alice,
        inputs: inputs.slice(0, 1),
        to: bob,
        amount: 70_000n,
        fee: 100n,
      });
      const headers = { 'idempotency-key': 'v1-retry' };
      const first = await post('/v1/transfer', { rawtx }, submitter, headers);
      assert.equal(first.status, 200, first.text);
      assert.notEqual(
        (first.json as { rawtx: string }).rawtx,
        rawtx,
        'the answer is the cosigned transaction',
      );
      const again = await post('/v1/transfer', { rawtx }, submitter, headers);
      assert.equal(again.text, first.text);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.headers.get('deprecation'), 'true');
    });

    it('requests with one key at once: a retry waits for the first answer, another body is 422', async () => {
      const { db } = t.service.parts;
      const count = async () =>
        Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM tickets'))[0]?.n);
      const inputs = await utxosOf(url, admin, alice.address);
      assert.ok(inputs.length >= 3, `alice holds ${inputs.length} outputs`);
      const send = (input: (typeof inputs)[number], key: string) => {
        const rawtx = transferOf(token, {
          from: alice,
          inputs: [input],
          to: bob,
          amount: 90_000n,
          fee: 100n,
        });
        return post('/v1/transfer', { rawtx }, submitter, { 'idempotency-key': key });
      };
      const before = await count();
      const same = await Promise.all([send(inputs[0]!, 'together-1'), send(inputs[0]!, 'together-1')]);
      for (const answer of same) assert.equal(answer.status, 200, answer.text);
      assert.equal(same[0]!.text, same[1]!.text);
      assert.deepEqual(
        same.map((a) => a.headers.get('idempotent-replayed')),
        same[0]!.headers.get('idempotent-replayed') === null ? [null, 'true'] : ['true', null],
      );

      const other = await Promise.all([send(inputs[1]!, 'together-2'), send(inputs[2]!, 'together-2')]);
      assert.deepEqual(other.map((a) => a.status).sort(), [200, 422]);
      assertProblem(other.find((a) => a.status === 422)!, 422, 'IDEMPOTENCY_CONFLICT');
      assert.equal(await count(), before + 2, 'one ticket for each key');
    });
  });

  describe('503 when the funding pool is empty', () => {
    it('FUNDING_EXHAUSTED with Retry-After on both transfer routes; no ticket is made', async () => {
      const { db } = t.service.parts;
      await db.query("UPDATE funding_outputs SET state = 'spent' WHERE state = 'available'");
      const before = await db.query<{ n: string }>('SELECT count(*) AS n FROM tickets');
      const inputs = await utxosOf(url, admin, alice.address);
      const rawtx = transferOf(token, {
        from: alice,
        inputs: inputs.slice(0, 1),
        to: bob,
        amount: 80_000n,
        fee: 100n,
      });
      for (const path of ['/v2/transfer', '/v1/transfer']) {
        const answer = await post(path, { rawtx }, submitter, { 'idempotency-key': `pool-${path}` });
        assertProblem(answer, 503, 'FUNDING_EXHAUSTED');
        const retryAfter = Number(answer.headers.get('retry-after'));
        assert.ok(
          Number.isInteger(retryAfter) && retryAfter > 0,
          `Retry-After: ${answer.headers.get('retry-after')}`,
        );
      }
      const afterCount = await db.query<{ n: string }>('SELECT count(*) AS n FROM tickets');
      assert.equal(afterCount[0]?.n, before[0]?.n);
      // A 503 is not kept under its Idempotency-Key: the retry runs again.
      const retried = await post('/v2/transfer', { rawtx }, submitter, {
        'idempotency-key': 'pool-/v2/transfer',
      });
      assertProblem(retried, 503, 'FUNDING_EXHAUSTED');
      assert.equal(retried.headers.get('idempotent-replayed'), null);
    });
  });

  describe('500 (the spec lists it for transfer, ticket and utxos): a problem that leaks nothing', () => {
    it('answers INTERNAL with the request ID, no stack trace and no SQL, while storage is broken', async () => {
      const { db } = t.service.parts;
      const inputs = await utxosOf(url, admin, alice.address);
      const rawtx = transferOf(token, {
        from: alice,
        inputs: inputs.slice(0, 1),
        to: bob,
        amount: 1000n,
        fee: 100n,
      });
      await db.query('ALTER TABLE token_outputs RENAME TO token_outputs_away');
      await db.query('ALTER TABLE tickets RENAME TO tickets_away');
      try {
        const requests: [string, string, unknown][] = [
          ['POST', '/v2/transfer', { rawtx }],
          ['GET', `/v2/ticket?ticketID=${uuidv7()}`, undefined],
          ['POST', '/v2/utxos', [alice.address]],
        ];
        for (const [method, path, body] of requests) {
          const res = await fetch(`${url}${path}`, {
            method,
            headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
            ...(body !== undefined && { body: JSON.stringify(body) }),
          });
          const text = await res.text();
          const answer = {
            status: res.status,
            headers: res.headers,
            text,
            json: JSON.parse(text) as unknown,
          };
          const requestId = res.headers.get('x-request-id');
          assert.ok(requestId, 'the answer names its request');
          assertProblem(answer, 500, 'INTERNAL', new RegExp(`request ID ${requestId}`));
          assert.doesNotMatch(
            text,
            /token_outputs|tickets|relation|\bat \S+:\d+|\.ts\b/,
            `${path} leaks: ${text}`,
          );
        }
      } finally {
        await db.query('ALTER TABLE tickets_away RENAME TO tickets');
        await db.query('ALTER TABLE token_outputs_away RENAME TO token_outputs');
      }
      assert.equal((await post('/v2/utxos', [alice.address], admin)).status, 200);
    });
  });
});
