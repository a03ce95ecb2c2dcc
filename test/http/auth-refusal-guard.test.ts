// A refusal installAuth holds back (for the rate limit to count it) is answered even by an app
// built without installAuthFailures: the handler never runs for a key that lacks the route's
// scope, though the request carries that key's principal, nor for an unknown key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { type ApiKeyPrincipal, installAuth } from '../../src/http/plugins/auth.js';

const reader: ApiKeyPrincipal = { id: 'reader', name: 'reader', scopes: ['read'] };

describe('a held-back auth refusal without installAuthFailures', () => {
  it('still never reaches the handler', async () => {
    const app = Fastify();
    installAuth(app, {
      verifier: { verify: async (key) => (key === 'tp_reader' ? reader : null) },
      anonymousRead: false,
    });
    let ran = 0;
    app.get('/admin-only', { config: { scope: 'admin' } }, async () => {
      ran++;
      return { ok: true };
    });
    try {
      const forbidden = await app.inject({
        url: '/admin-only',
        headers: { authorization: 'Bearer tp_reader' },
      });
      assert.equal(forbidden.statusCode, 403, forbidden.body);
      const unknown = await app.inject({
        url: '/admin-only',
        headers: { authorization: 'Bearer tp_nobody' },
      });
      assert.equal(unknown.statusCode, 401, unknown.body);
      assert.equal(ran, 0);
    } finally {
      await app.close();
    }
  });
});
