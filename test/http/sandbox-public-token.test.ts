// The reference client's built-in sandbox token submits in sandbox (a shared principal, counted
// per client address, owning nothing it submits) and is refused in production, as before.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { principalOf, submitterIdOf } from '../../src/http/plugins/auth.js';
import { createMemoryRateLimitStore } from '../../src/http/plugins/rate-limit-store.js';
import { REFERENCE_CLIENT_TOKENS } from '../../src/http/well-known-tokens.js';
import { testApp } from './support.js';

const routes = [
  (app: ReturnType<typeof testApp>['app']) => {
    app.post('/v2/transfer', { config: { scope: 'submit' } }, async (request) => ({
      submitter: submitterIdOf(principalOf(request)),
    }));
    app.post('/v2/admin/mint', { config: { scope: 'admin' } }, async () => ({ ok: true }));
  },
];
const url = (path: string) => `${path}?auth_token=${REFERENCE_CLIENT_TOKENS.sandbox}`;

describe("the reference client's sandbox token", () => {
  it('submits in sandbox, recorded under no key, counted per client address; never admin', async () => {
    const store = createMemoryRateLimitStore();
    const t = testApp({
      routes,
      deps: { rateLimit: { store, algorithm: 'fixed', windowMs: 60_000, perKey: 100, anonymous: 2 } },
    });
    try {
      const submit = (remoteAddress: string) =>
        t.app.inject({ method: 'POST', url: url('/v2/transfer'), remoteAddress });
      const ok = await submit('192.0.2.1');
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json(), { submitter: null });
      // Counted per client address at the anonymous limit (2), not as one key shared by all.
      assert.deepEqual(
        [(await submit('192.0.2.1')).statusCode, (await submit('192.0.2.1')).statusCode],
        [200, 429],
      );
      assert.equal((await submit('192.0.2.2')).statusCode, 200);
      const admin = await t.app.inject({
        method: 'POST',
        url: url('/v2/admin/mint'),
        remoteAddress: '192.0.2.3',
      });
      assert.equal(admin.statusCode, 403);
    } finally {
      await t.app.close();
      await store.close();
    }
  });

  it('is refused in production (401), and when sandboxPublicSubmit is off', async () => {
    const production = testApp({
      routes,
      deps: { config: { ...loadConfig({ argv: [], env: {} }), env: 'production' } },
    });
    const off = testApp({ routes, argv: ['--sandbox-public-submit', 'false'] });
    try {
      for (const t of [production, off]) {
        const refused = await t.app.inject({ method: 'POST', url: url('/v2/transfer') });
        assert.equal(refused.statusCode, 401, refused.body);
      }
    } finally {
      await production.app.close();
      await off.app.close();
    }
  });
});
