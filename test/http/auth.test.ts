import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { type AppInstance, buildApp } from '../../src/http/app.js';
import { grants, presentedKey, principalOf, type Scope } from '../../src/http/plugins/auth.js';
import { InMemoryApiKeyVerifier } from '../support/in-memory-api-keys.js';
import { KEYS, type TestApp, testApp } from './support.js';

function scopedRoutes(app: AppInstance): void {
  for (const scope of ['read', 'submit', 'admin'] as const) {
    app.get(`/${scope}`, { config: { scope } }, async (request) => ({ principal: principalOf(request) }));
  }
  app.post('/submit', { config: { scope: 'submit' } }, async (request) => ({
    id: request.principal?.id ?? null,
  }));
  app.get('/careless', { config: { scope: 'read' } }, async (request) => {
    request.log.info({ headers: request.headers, query: request.query }, 'logging what should not be');
    return {};
  });
}

type Expect = number;
// rows: key -> expected status on [read, submit, admin] routes
const MATRIX: ReadonlyArray<[string, string | undefined, [Expect, Expect, Expect]]> = [
  ['no key', undefined, [200, 401, 401]],
  ['read key', KEYS.read, [200, 403, 403]],
  ['submit key', KEYS.submit, [200, 200, 403]],
  ['admin key', KEYS.admin, [200, 200, 200]],
  ['unknown key', 'tp_unknown', [401, 401, 401]],
  ['revoked key', KEYS.revoked, [401, 401, 401]],
];

describe('authentication and scopes', () => {
  let t: TestApp;
  before(async () => {
    t = testApp({ routes: [scopedRoutes] });
    await t.app.ready();
  });
  after(() => t.app.close());

  for (const [label, key, expected] of MATRIX) {
    for (const [i, scope] of (['read', 'submit', 'admin'] as const).entries()) {
      it(`${label} on a ${scope} route (auth_token) -> ${expected[i]}`, async () => {
        const url = key === undefined ? `/${scope}` : `/${scope}?auth_token=${encodeURIComponent(key)}`;
        const res = await t.app.inject({ url });
        assert.equal(res.statusCode, expected[i]);
        if (res.statusCode === 401) {
          assert.equal(res.json().code, 'UNAUTHORIZED');
          assert.equal(res.headers['www-authenticate'], 'Bearer realm="tokenproxy"');
        }
        if (res.statusCode === 403) assert.equal(res.json().code, 'FORBIDDEN');
      });
    }
  }

  it('a 401 for a missing key says how to get one', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/submit' });
    assert.equal(res.statusCode, 401);
    assert.match(res.json().detail, /An API key is required .*npx tokenproxy keys create/);
  });

  it('accepts Authorization: Bearer like auth_token', async () => {
    const res = await t.app.inject({ url: '/submit', headers: { authorization: `Bearer ${KEYS.submit}` } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().principal.id, 'k-submit');
    const bad = await t.app.inject({ url: '/read', headers: { authorization: 'Bearer nope' } });
    assert.equal(bad.statusCode, 401);
  });

  it('hands the principal to the handler (null when anonymous)', async () => {
    const keyed = await t.app.inject({ url: `/read?auth_token=${KEYS.admin}` });
    assert.deepEqual(keyed.json().principal, { id: 'k-admin', name: 'operator', scopes: ['admin'] });
    const anonymous = await t.app.inject({ url: '/read' });
    assert.equal(anonymous.json().principal, null);
    // The Go client sends `auth_token=` when it has no key: that is no key, not a bad one.
    const empty = await t.app.inject({ url: '/read?auth_token=' });
    assert.equal(empty.statusCode, 200);
    assert.equal(empty.json().principal, null);
    const emptyWithHeader = await t.app.inject({
      url: '/read?auth_token=',
      headers: { authorization: `Bearer ${KEYS.admin}` },
    });
    assert.equal(emptyWithHeader.json().principal.id, 'k-admin');
  });

  it('refuses a non-Bearer Authorization, conflicting keys and a repeated auth_token', async () => {
    const cases = [
      { url: '/read', headers: { authorization: 'Basic dXNlcjpwYXNz' } },
      { url: `/read?auth_token=${KEYS.read}`, headers: { authorization: `Bearer ${KEYS.admin}` } },
      { url: `/read?auth_token=${KEYS.read}&auth_token=${KEYS.read}` },
    ];
    for (const c of cases) {
      const res = await t.app.inject(c);
      assert.equal(res.statusCode, 401, JSON.stringify(c));
    }
  });

  it('the same key in both places is fine', async () => {
    const res = await t.app.inject({
      url: `/read?auth_token=${KEYS.read}`,
      headers: { authorization: `Bearer ${KEYS.read}` },
    });
    assert.equal(res.statusCode, 200);
  });

  it('a key revoked after start is refused at once', async () => {
    const verifier = new InMemoryApiKeyVerifier([{ key: 'k-live', id: 'live', scopes: ['read'] }]);
    const app = buildApp({
      config: loadConfig({ env: {} }),
      logger: pino({ level: 'silent' }),
      apiKeys: verifier,
      readiness: async () => ({ ready: true }),
      routes: [scopedRoutes],
    });
    assert.equal((await app.inject({ url: '/read?auth_token=k-live' })).statusCode, 200);
    assert.equal(verifier.revoke('live'), 1);
    assert.equal((await app.inject({ url: '/read?auth_token=k-live' })).statusCode, 401);
    await app.close();
  });

  it('never logs the key: auth_token is redacted, headers are not logged', async () => {
    t.logs.length = 0;
    await t.app.inject({ url: `/read?from=1&auth_token=${KEYS.admin}` });
    await t.app.inject({ url: '/read', headers: { authorization: `Bearer ${KEYS.submit}` } });
    await t.app.inject({ url: `/nothing?AUTH_TOKEN=${KEYS.read}` });
    const careless = [
      await t.app.inject({ url: '/careless', headers: { authorization: `Bearer ${KEYS.read}` } }),
      await t.app.inject({ url: `/careless?auth_token=${KEYS.read}` }),
    ];
    assert.deepEqual(
      careless.map((r) => r.statusCode),
      [200, 200],
    );
    const all = t.logs.join('\n');
    assert.ok(t.logs.length > 0);
    assert.ok(!all.includes(KEYS.admin) && !all.includes(KEYS.submit) && !all.includes(KEYS.read), all);
    assert.match(all, /auth_token=\[REDACTED\]/);
  });
});

describe('anonymous reads switched off', () => {
  it('answers 401 to a read route without a key', async () => {
    const t = testApp({ argv: ['--no-anonymous-read'], routes: [scopedRoutes] });
    assert.equal((await t.app.inject({ url: '/read' })).statusCode, 401);
    assert.equal((await t.app.inject({ url: `/read?auth_token=${KEYS.read}` })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/healthz' })).statusCode, 200);
    await t.app.close();
  });
});

describe('every route declares a scope', () => {
  it('refuses to start with a route without config.scope', async () => {
    const t = testApp({
      routes: [
        (app) => {
          app.get('/forgot', async () => 'x');
        },
      ],
    });
    await assert.rejects(async () => {
      await t.app.ready();
    }, /route GET \/forgot must declare config\.scope/);
  });
});

describe('scope rules (pure)', () => {
  it('admin has every scope, submit implies read, read is read only', () => {
    const table: Array<[Scope[], Scope, boolean]> = [
      [['admin'], 'read', true],
      [['admin'], 'submit', true],
      [['admin'], 'admin', true],
      [['submit'], 'read', true],
      [['submit'], 'submit', true],
      [['submit'], 'admin', false],
      [['read'], 'read', true],
      [['read'], 'submit', false],
      [['read'], 'admin', false],
      [[], 'read', false],
    ];
    for (const [scopes, needed, expected] of table) {
      assert.equal(grants(scopes, needed), expected, `${scopes} needs ${needed}`);
    }
  });

  it('reads the key from the query or a Bearer header', () => {
    assert.deepEqual(presentedKey({}, undefined), { kind: 'none' });
    assert.deepEqual(presentedKey({ auth_token: 'a' }, undefined), { kind: 'key', key: 'a' });
    assert.deepEqual(presentedKey({}, 'bearer  b'), { kind: 'key', key: 'b' });
    assert.equal(presentedKey({}, 'Token b').kind, 'malformed');
    assert.equal(presentedKey({ auth_token: ['a', 'b'] }, undefined).kind, 'malformed');
  });
});
