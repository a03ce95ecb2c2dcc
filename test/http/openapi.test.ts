import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from 'typebox';
import { escapeHtml } from '../../src/http/docs-page.js';
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

  it('serves a self-contained /docs page listing the operations', async () => {
    const res = await t.app.inject({ url: '/docs' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    assert.doesNotMatch(res.body, /<script|https?:\/\/(?!tokenproxy\.dev)/);
    for (const path of ['/v2/ticket', '/v2/transfer', '/v1/utxos', '/healthz', '/readyz']) {
      assert.ok(res.body.includes(`<code>${path}</code>`), path);
    }
    assert.ok(res.body.includes('Ticket &#60;status&#62;'), 'summaries are escaped');
    assert.match(res.body, /Deprecated<\/strong>: use <code>\/v2\/utxos<\/code>/);
  });

  it('escapeHtml escapes markup', () => {
    assert.equal(
      escapeHtml(`<a href="x">'&'</a>`),
      '&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;',
    );
  });
});
