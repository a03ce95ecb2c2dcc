import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from 'typebox';
import { DomainError } from '../../src/domain/domain-error.js';
import { AppError } from '../../src/http/app-error.js';
import { mapError } from '../../src/http/error-handler.js';
import { ERRORS } from '../../src/http/error-statuses.js';
import { PROBLEM_CONTENT_TYPE, problemOf, problemTypeOf, sendProblem } from '../../src/http/problem.js';
import { problemResponses } from '../../src/http/schemas/common.js';
import { LedgerUnavailableError } from '../../src/ledger/port.js';
import { PROBLEM_KEYS, type TestApp, testApp } from './support.js';

function assertProblem(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  code: string,
) {
  assert.equal(res.statusCode, ERRORS[code as keyof typeof ERRORS].status);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json(;|$)/);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  for (const key of PROBLEM_KEYS) assert.ok(key in body, `missing ${key}`);
  assert.equal(body.code, code);
  assert.equal(body.status, res.statusCode);
  assert.equal(body.type, `https://tokenproxy.dev/errors/${code}`);
  assert.equal(body.title, ERRORS[code as keyof typeof ERRORS].title);
  assert.equal(body.message, body.detail);
  return body;
}

describe('problem details over inject()', () => {
  let t: TestApp;
  before(async () => {
    t = testApp({
      argv: ['--body-limit', '2048'],
      routes: [
        (app) => {
          app.get('/v2/ticket', { config: { scope: 'read' } }, async () => {
            throw new AppError('NOT_FOUND', 'record not found');
          });
          app.post(
            '/v2/balance',
            { config: { scope: 'read' }, schema: { body: Type.Array(Type.String(), { minItems: 1 }) } },
            async (request) => request.body,
          );
          app.post(
            '/v2/transfer',
            { config: { scope: 'public' }, schema: { body: Type.Object({ rawtx: Type.String() }) } },
            async () => 'ok',
          );
          app.get(
            '/v2/utxos',
            {
              config: { scope: 'read' },
              schema: { querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })) }) },
            },
            async (request) => request.query,
          );
          app.get('/v1/tx/:txid', { config: { scope: 'read' } }, async () => {
            throw new AppError('INPUT_LOCKED', 'outpoint aa_0 was locked in a previous transaction attempt', {
              outpoint: 'aa_0',
              code: 'NOT_OVERRIDDEN',
            });
          });
          app.get(
            '/lossy',
            {
              config: { scope: 'public' },
              schema: {
                response: {
                  200: Type.Object({ ok: Type.Boolean() }),
                  400: Type.Object({ message: Type.String() }),
                },
              },
            },
            async () => {
              throw new AppError('INVALID_TXID', 'txid must be 64 hex digits');
            },
          );
          app.get('/boom', { config: { scope: 'public' } }, async () => {
            throw new Error('database password is hunter2');
          });
          app.get('/boom-string', { config: { scope: 'public' } }, async () => {
            throw 'a thrown string';
          });
          app.get(
            '/documented',
            { config: { scope: 'public' }, schema: { response: { ...problemResponses(400) } } },
            async (_request, reply) =>
              sendProblem(reply, 'INVALID_ADDRESS', 'invalid address: 1xyz', { address: '1xyz' }),
          );
        },
      ],
    });
    await t.app.ready();
  });
  after(() => t.app.close());

  it('an AppError answers its status; NOT_FOUND carries exactly "record not found"', async () => {
    const res = await t.app.inject({ url: '/v2/ticket?ticketID=x' });
    const body = assertProblem(res, 'NOT_FOUND');
    assert.equal(body.message, 'record not found');
    assert.equal(body.detail, 'record not found');
  });

  it('AppError extras become extension members and cannot override standard ones', async () => {
    const res = await t.app.inject({ url: `/v1/tx/${'a'.repeat(64)}` });
    const body = assertProblem(res, 'INPUT_LOCKED');
    assert.equal(body.outpoint, 'aa_0');
    assert.match(String(body.detail), /outpoint aa_0 was locked in a previous transaction attempt/);
  });

  it('an unparsable JSON body is INVALID_JSON with the exact detail', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/balance',
      headers: { 'content-type': 'application/json' },
      payload: '["1abc",',
    });
    const body = assertProblem(res, 'INVALID_JSON');
    assert.equal(body.detail, 'Invalid JSON payload');
  });

  it('an empty JSON body and a __proto__ key are INVALID_JSON too', async () => {
    for (const payload of ['', '{"__proto__": {"x": 1}}']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/transfer',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      assert.equal(assertProblem(res, 'INVALID_JSON').detail, 'Invalid JSON payload');
    }
  });

  it('a body failing the schema is INVALID_REQUEST naming the field', async () => {
    let res = await t.app.inject({ method: 'POST', url: '/v2/transfer', payload: { rawtx: 12 } });
    let body = assertProblem(res, 'INVALID_REQUEST');
    assert.equal(body.detail, "body field 'rawtx' must be string");
    res = await t.app.inject({ method: 'POST', url: '/v2/transfer', payload: {} });
    body = assertProblem(res, 'INVALID_REQUEST');
    assert.equal(body.detail, "body field 'rawtx' is required");
    res = await t.app.inject({ method: 'POST', url: '/v2/balance', payload: ['ok', 7] });
    body = assertProblem(res, 'INVALID_REQUEST');
    assert.equal(body.detail, "body field '[1]' must be string");
    assert.deepEqual(body.invalidParams, [{ in: 'body', name: '[1]', reason: 'must be string' }]);
  });

  it('a body is not coerced: a number where a string is expected fails', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v2/balance', payload: [1] });
    assertProblem(res, 'INVALID_REQUEST');
  });

  it('a query parameter out of range is INVALID_PARAMETER naming it, never clamped', async () => {
    for (const page of ['0', '1.5', '', 'abc', '0x10', '1e3', '-1']) {
      const res = await t.app.inject({ url: `/v2/utxos?page=${page}` });
      const body = assertProblem(res, 'INVALID_PARAMETER');
      assert.match(String(body.detail), /^query parameter 'page' /, `page=${page}`);
    }
    const ok = await t.app.inject({ url: '/v2/utxos?page=3' });
    assert.deepEqual(ok.json(), { page: 3 });
  });

  it('a body over the limit is 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/transfer',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ rawtx: 'a'.repeat(4096) }),
    });
    assert.match(String(assertProblem(res, 'PAYLOAD_TOO_LARGE').detail), /2048 bytes/);
  });

  it('a body of another media type is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/transfer',
      headers: { 'content-type': 'application/xml' },
      payload: '<rawtx/>',
    });
    assertProblem(res, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('a JSON body sent as text/plain (fetch with a string body and no header) is 415, not read', async () => {
    for (const url of ['/v2/balance', '/v2/transfer']) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        payload: url === '/v2/balance' ? '["1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH"]' : '{"rawtx":"AAAA"}',
      });
      const body = assertProblem(res, 'UNSUPPORTED_MEDIA_TYPE');
      assert.match(
        String(body.detail),
        /^Content-Type text\/plain is not taken here; send .*application\/json/,
      );
    }
    // The JSON types are taken, and a body without a Content-Type is read as JSON (the Go client).
    for (const headers of [{ 'content-type': 'application/json; charset=utf-8' }, {}]) {
      const res = await t.app.inject({ method: 'POST', url: '/v2/balance', headers, payload: '["a"]' });
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  it('an unknown route is 404 NOT_FOUND', async () => {
    const res = await t.app.inject({ url: '/v9/nothing?auth_token=whatever' });
    const body = assertProblem(res, 'NOT_FOUND');
    assert.equal(body.detail, 'No route for GET /v9/nothing');
  });

  it('a malformed URL is a 400 problem', async () => {
    const res = await t.app.inject({ url: '/v1/tx/%zz' });
    assertProblem(res, 'INVALID_REQUEST');
  });

  it('anything else is a generic 500: no message, no stack; logged with the request ID', async () => {
    const res = await t.app.inject({ url: '/boom', headers: { 'x-request-id': 'req-boom-1' } });
    const body = assertProblem(res, 'INTERNAL');
    assert.doesNotMatch(res.body, /hunter2|at |stack|\.ts/);
    assert.match(String(body.detail), /req-boom-1/);
    const logged = t.records().find((r) => r.requestId === 'req-boom-1' && r.level === 50);
    assert.ok(logged, 'the 500 is logged at error level with the request ID');
    assert.match(JSON.stringify(logged.err), /hunter2/);
    const thrownString = await t.app.inject({ url: '/boom-string' });
    assertProblem(thrownString, 'INTERNAL');
  });

  it('a route response schema for an error status does not strip the problem', async () => {
    const res = await t.app.inject({ url: '/lossy' });
    const body = assertProblem(res, 'INVALID_TXID');
    assert.equal(body.detail, 'txid must be 64 hex digits');
  });

  it('the content type is exactly application/problem+json', async () => {
    const res = await t.app.inject({ url: '/v2/ticket' });
    assert.equal(res.headers['content-type'], 'application/problem+json');
  });

  it('a route can send a problem itself, through a documented response schema', async () => {
    const res = await t.app.inject({ url: '/documented' });
    const body = assertProblem(res, 'INVALID_ADDRESS');
    assert.equal(body.address, '1xyz');
  });
});

describe('problem mapping (pure)', () => {
  it('builds the type URL from the code', () => {
    assert.equal(problemTypeOf('FEE_TOO_LOW'), 'https://tokenproxy.dev/errors/FEE_TOO_LOW');
    assert.equal(PROBLEM_CONTENT_TYPE, 'application/problem+json');
  });

  it('maps every registry code through AppError to its own status and title', () => {
    for (const [code, spec] of Object.entries(ERRORS)) {
      const { problem } = mapError(new AppError(code as keyof typeof ERRORS, 'd'), 'r');
      assert.equal(problem.status, spec.status, code);
      assert.equal(problem.title, spec.title, code);
    }
  });

  it("maps a rule's DomainError (a code, no status) to its code's status and title, never internal", () => {
    for (const [code, status] of [
      ['FEE_TOO_LOW', 400],
      ['ADDRESS_FROZEN', 403],
      ['NO_FUNDING_OUTPUT', 422],
      ['FUNDING_EXHAUSTED', 503],
    ] as const) {
      const mapped = mapError(new DomainError(code, 'the rule says no'), 'r');
      assert.equal(mapped.problem.status, status, code);
      assert.equal(mapped.problem.title, ERRORS[code].title, code);
      assert.equal(mapped.problem.detail, 'the rule says no');
      assert.equal(mapped.internal, false);
    }
  });

  it('marks only 500 AppErrors internal (logged at error with the stack); 503 conditions and 4xx not', () => {
    assert.equal(mapError(new AppError('INTERNAL', 'bug'), 'r').internal, true);
    assert.equal(mapError(new AppError('LEDGER_UNAVAILABLE', 'arc down'), 'r').internal, false);
    assert.equal(mapError(new AppError('FEE_TOO_LOW', 'fee'), 'r').internal, false);
  });

  it('maps a LedgerUnavailableError that reaches it to 503 LEDGER_UNAVAILABLE, not a 500', () => {
    const mapped = mapError(new LedgerUnavailableError('ARC at http://x unavailable'), 'r');
    assert.equal(mapped.problem.code, 'LEDGER_UNAVAILABLE');
    assert.equal(mapped.problem.status, 503);
    assert.equal(mapped.internal, false);
  });

  it('maps a database that cannot be reached to 503 NOT_READY, not a 500', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      severity: 'FATAL',
    });
    for (const err of [refused, shutdown, new Error('Connection terminated unexpectedly')]) {
      const mapped = mapError(err, 'r');
      assert.equal(mapped.problem.code, 'NOT_READY', String(err));
      assert.equal(mapped.problem.status, 503);
      assert.equal(mapped.internal, false);
    }
    const unique = Object.assign(new Error('duplicate key'), { code: '23505', severity: 'ERROR' });
    assert.equal(mapError(unique, 'r').problem.code, 'INTERNAL');
  });

  it('maps a Fastify-style 4xx error it does not know by status', () => {
    const mapped = mapError(Object.assign(new Error('Too many'), { statusCode: 429 }), 'r');
    assert.equal(mapped.problem.code, 'RATE_LIMITED');
  });

  it('problemOf keeps the standard members first and drops undefined extensions', () => {
    const p = problemOf('NOT_FOUND', 'gone', { extra: undefined, hint: 'h' });
    assert.deepEqual(Object.keys(p), ['type', 'title', 'status', 'detail', 'code', 'message', 'hint']);
  });
});

describe('Retry-After of a 503', () => {
  it('is the funding refill interval (fundingRefillMs) in whole seconds', async () => {
    const { app } = testApp({
      argv: ['--funding-refill-ms', '12500'],
      routes: [
        (a) => {
          a.get('/down', { config: { scope: 'public' } }, async () => {
            throw new AppError('LEDGER_UNAVAILABLE', 'arc down');
          });
        },
      ],
    });
    try {
      const res = await app.inject({ url: '/down' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '13');
    } finally {
      await app.close();
    }
  });
});
