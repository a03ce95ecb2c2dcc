// The OpenAPI document's security agrees with what the running service asks for: every GET it
// marks public (no security) answers without a key, and GET /metrics, which needs an admin key
// or the metrics token, is marked so (before: public, `security: []`, x-scope public).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { serviceForSuite } from './support.js';

type Operation = { security?: unknown[]; 'x-scope'?: string };

describe('OpenAPI security and the served routes', () => {
  const t = serviceForSuite(['--metrics-token', 'metrics-token-0123456789']);
  let paths: Record<string, Record<string, Operation>>;
  before(async () => {
    paths = ((await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: typeof paths }).paths;
  });

  it('marks /metrics as needing a key (admin) or the metrics token as a bearer', async () => {
    const op = paths['/metrics']?.get;
    assert.ok(op !== undefined);
    assert.equal(op['x-scope'], 'admin');
    assert.deepEqual(op.security, [{ authToken: [] }, { bearerAuth: [] }]);
    assert.equal((await fetch(`${t.url}/metrics`)).status, 401);
  });

  it('every GET it marks public answers without a key', async () => {
    const open = Object.entries(paths).filter(
      ([path, ops]) => ops.get !== undefined && (ops.get.security ?? []).length === 0 && !path.includes('{'),
    );
    assert.ok(open.length > 0);
    for (const [path] of open) {
      const res = await fetch(`${t.url}${path}`);
      assert.notEqual(res.status, 401, `${path} is documented public`);
      assert.notEqual(res.status, 403, `${path} is documented public`);
    }
  });
});
