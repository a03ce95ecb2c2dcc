// A role-only process's server and its readiness: a tracker (or deliverer) that finishes no
// round within the bound is not ready, with the reason; a writer that lost its registration
// likewise; /metrics says so per role; nothing but the three routes is served.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildRoleServer } from '../../src/http/role-server.js';
import { registerRoleGauges } from '../../src/metrics/role-gauges.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';
import { createRoleLiveness } from '../../src/roles/role-liveness.js';

const TOKEN = 'a-metrics-token-for-tests';
const noKeys = { verify: async () => null };

function world() {
  let now = 1_000_000;
  const liveness = createRoleLiveness({ boundMs: 60_000, now: () => now });
  const metrics = createServiceMetrics({ defaultMetrics: false });
  registerRoleGauges(metrics, liveness);
  const app = buildRoleServer({
    config: { host: '127.0.0.1', port: 0, bodyLimit: 1024, fundingRefillMs: 1000, metricsToken: TOKEN },
    readiness: () => liveness.readiness(),
    metrics,
    apiKeys: noKeys,
  });
  return { liveness, app, advance: (ms: number) => (now += ms) };
}

describe('role liveness and the role-only server', () => {
  it('a tracker that finishes no round within the bound is not ready; a round makes it ready again', async () => {
    const { liveness, app, advance } = world();
    liveness.watchLoop('tracker');
    advance(30_000);
    assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200, 'within the bound from its start');
    advance(31_000);
    const hung = await app.inject({ url: '/readyz' });
    assert.equal(hung.statusCode, 503);
    assert.equal(hung.json().code, 'NOT_READY');
    assert.match(hung.json().detail, /the tracker has finished no round for 61 s \(bound 60 s\)/);
    const metrics = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(metrics.statusCode, 200);
    assert.match(metrics.body, /^tokenproxy_role_ready\{role="tracker"\} 0$/m);
    liveness.round('tracker');
    assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
    const after = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.match(after.body, /^tokenproxy_role_ready\{role="tracker"\} 1$/m);
    assert.match(after.body, /^tokenproxy_role_last_round_timestamp_seconds\{role="tracker"\} 1061$/m);
    await app.close();
  });

  it('a writer without its registration is not ready, and says so', async () => {
    const { liveness, app } = world();
    let registered = true;
    liveness.watchCheck('writer', async () =>
      registered ? { ready: true } : { ready: false, reason: 'the writer does not hold its registration' },
    );
    assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
    registered = false;
    const res = await app.inject({ url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().detail, 'the writer does not hold its registration');
    await app.close();
  });

  it('serves only /healthz, /readyz and /metrics; /metrics needs the token', async () => {
    const { app } = world();
    assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
    for (const url of ['/', '/openapi.json', '/v2/admin/status', '/console'])
      assert.equal((await app.inject({ url })).statusCode, 404, url);
    assert.equal((await app.inject({ url: '/metrics' })).statusCode, 401);
    assert.equal(
      (await app.inject({ url: '/metrics', headers: { authorization: 'Bearer wrong-token-of-16' } }))
        .statusCode,
      401,
    );
    await app.close();
  });
});
