import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from 'typebox';
import { DOCS_CSP } from '../../src/http/docs-ui.js';
import { fallbackOperationId, OPERATIONS, TAGS } from '../../src/http/operations.js';
import { authTokenQuery, problemResponses } from '../../src/http/schemas/common.js';
import { type TestApp, testApp } from './support.js';

interface Doc {
  openapi: string;
  info: { version: string };
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
  paths: Record<string, Record<string, Record<string, unknown>>>;
}

describe('OpenAPI document and docs page', () => {
  let t: TestApp;
  let doc: Doc;
  before(async () => {
    t = testApp({
      deps: { version: '1.2.3' },
      routes: [
        (app) => {
          app.get(
            '/v2/ticket',
            {
              config: { scope: 'read' },
              schema: {
                summary: 'Ticket <status>',
                querystring: Type.Object({ ticketID: Type.String(), ...authTokenQuery }),
                response: { 200: Type.Object({ id: Type.String() }), ...problemResponses(404) },
              },
            },
            async () => ({ id: 'x' }),
          );
          app.post(
            '/v2/transfer',
            { config: { scope: 'submit' }, schema: { summary: 'Submit' } },
            async () => 'x',
          );
          app.post(
            '/v1/utxos',
            { config: { scope: 'read', deprecatedBy: '/v2/utxos' }, schema: { summary: 'UTXOs (v1)' } },
            async () => [],
          );
        },
      ],
    });
    const res = await t.app.inject({ url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    doc = res.json() as Doc;
  });
  after(() => t.app.close());

  it('is OpenAPI 3.1 with both key placements as security schemes', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.2.3');
    assert.deepEqual(doc.components.securitySchemes.authToken, {
      type: 'apiKey',
      in: 'query',
      name: 'auth_token',
    });
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer' });
    assert.ok(doc.components.schemas.Problem, 'the problem schema is a named component');
  });

  it('states each operation scope and security; anonymous reads are optional-security', () => {
    const ticket = doc.paths['/v2/ticket']?.get ?? {};
    assert.equal(ticket['x-scope'], 'read');
    assert.deepEqual(ticket.security, [{}, { authToken: [] }, { bearerAuth: [] }]);
    const transfer = doc.paths['/v2/transfer']?.post ?? {};
    assert.equal(transfer['x-scope'], 'submit');
    assert.deepEqual(transfer.security, [{ authToken: [] }, { bearerAuth: [] }]);
    assert.deepEqual(doc.paths['/healthz']?.get?.security, []);
  });

  it('documents problem responses and marks deprecated operations', () => {
    const responses = doc.paths['/v2/ticket']?.get?.responses as Record<
      string,
      { content: Record<string, unknown> }
    >;
    assert.ok(responses['404']?.content['application/problem+json']);
    assert.ok(responses.default?.content['application/problem+json']);
    const v1 = doc.paths['/v1/utxos']?.post ?? {};
    assert.equal(v1.deprecated, true);
    assert.equal(v1['x-successor'], '/v2/utxos');
  });

  it('leaves the auth_token query parameter to the security schemes', () => {
    const params = (doc.paths['/v2/ticket']?.get?.parameters ?? []) as Array<{ name: string }>;
    assert.deepEqual(
      params.map((p) => p.name),
      ['ticketID'],
    );
  });

  it('hides its own routes', () => {
    assert.equal(doc.paths['/openapi.json'], undefined);
    assert.equal(doc.paths['/docs'], undefined);
  });

  it('gives every operation an operationId (unique) and one tag of the reading order', () => {
    const ids = new Set<string>();
    const tags = new Set<string>(TAGS.map((t) => t.name));
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const id = op.operationId as string;
        assert.equal(typeof id, 'string', `${method} ${path}`);
        assert.ok(!ids.has(id), `operationId ${id} twice`);
        ids.add(id);
        assert.ok(tags.has((op.tags as string[])[0]!), `${method} ${path} tag ${op.tags}`);
      }
    }
    assert.equal(doc.paths['/v2/transfer']?.post?.operationId, 'submitTransfer');
    assert.deepEqual(
      (doc as unknown as { tags: Array<{ name: string }> }).tags.map((t) => t.name).slice(0, 6),
      ['config', 'balance', 'utxos', 'transfer', 'ticket', 'sync'],
    );
    const table = Object.values(OPERATIONS).map((o) => o.id);
    assert.equal(new Set(table).size, table.length, 'operationIds in the table are unique');
    assert.equal(fallbackOperationId('post', '/v2/admin/freeze/{id}'), 'postV2AdminFreezeById');
  });

  it('lists the codes each status can answer, the headers and Idempotency-Key', () => {
    const transfer = doc.paths['/v2/transfer']?.post as Record<string, unknown>;
    const responses = transfer.responses as Record<string, Record<string, unknown>>;
    assert.match(String(responses['401']?.description), /UNAUTHORIZED/);
    assert.match(String(responses['429']?.description), /RATE_LIMITED/);
    assert.ok((responses['429']?.headers as Record<string, unknown> | undefined)?.['retry-after']);
    const params = transfer.parameters as Array<{ name: string; in: string }>;
    assert.ok(
      params.some((p) => p.in === 'header' && p.name === 'idempotency-key'),
      JSON.stringify(params),
    );
    const v1 = doc.paths['/v1/utxos']?.post?.responses as Record<string, Record<string, unknown>>;
    const ok = v1['200'] ?? v1['2XX'];
    assert.ok(ok === undefined || (ok.headers as Record<string, unknown>).deprecation !== undefined);
    const ticket = doc.paths['/v2/ticket']?.get?.responses as Record<string, Record<string, unknown>>;
    assert.ok((ticket['200']?.headers as Record<string, unknown> | undefined)?.ratelimit);
  });

  it('serves the interactive reference at /docs from the package, under a strict CSP', async () => {
    const page = await t.app.inject({ url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['content-security-policy'], DOCS_CSP);
    assert.doesNotMatch(page.body, /https?:\/\//, 'nothing from elsewhere');
    const bundle = await t.app.inject({ url: '/docs/static/swagger-ui-bundle.js' });
    assert.equal(bundle.statusCode, 200);
    assert.ok(bundle.body.length > 100_000);
    const json = await t.app.inject({ url: '/docs/json' });
    assert.equal(json.json().openapi, '3.1.0');
  });

  it('GET / leads to the docs, the console and the health checks', async () => {
    const res = await t.app.inject({ url: '/' });
    assert.equal(res.statusCode, 200);
    for (const link of ['docs', 'openapi.json', 'console', 'healthz', 'readyz']) {
      assert.ok(res.body.includes(`href="${link}"`), link);
    }
  });

  it('GET / is where a newcomer starts: first calls with this address, how to get a key, the guides', async () => {
    const res = await t.app.inject({ url: '/', headers: { host: 'wallets.example:8080' } });
    assert.ok(res.body.includes('curl -s http://wallets.example:8080/v1/config'), res.body);
    assert.ok(res.body.includes('npx tokenproxy keys create --url http://wallets.example:8080'));
    for (const guide of ['README.md', 'docs/clients.md', 'docs/errors.md'])
      assert.ok(res.body.includes(guide), guide);
    // The address is the request's: it is escaped, never markup.
    const hostile = await t.app.inject({ url: '/', headers: { host: 'x"><script>' } });
    assert.ok(!hostile.body.includes('<script>'));
  });
});
