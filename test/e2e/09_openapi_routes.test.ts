// The OpenAPI document and the routes the service really serves agree: every served
// operation is documented (but the frame's own pages, which are hidden on purpose), and
// every documented operation is served.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceForSuite } from './support.js';

const UNDOCUMENTED = new Set([
  'GET /healthz',
  'GET /readyz',
  'GET /openapi.json',
  'GET /',
  'GET /docs',
  'GET /docs/',
  'GET /docs/json',
  'GET /docs/yaml',
  'GET /docs/static/*',
  'GET /docs/*',
  'GET /docs/static/index.html',
  'GET /docs/static/swagger-initializer.js',
  'OPTIONS /*',
  'OPTIONS *',
  'GET /console',
  'GET /console/app.js',
  'GET /console/app.css',
  'GET /favicon.ico',
]);

/** `METHOD /path/{param}` for every route in Fastify's printed route tree (HEAD left out). */
function servedOperations(tree: string): Set<string> {
  const prefixes: string[] = [];
  const out = new Set<string>();
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (\S+) \(([^)]+)\)/.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = path;
    for (const method of match[3]!.split(', ')) {
      if (method !== 'HEAD') out.add(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return out;
}

describe('OpenAPI and routes in step', () => {
  const t = serviceForSuite();

  it('documents every operation served, and serves every operation documented', async () => {
    const served = servedOperations(t.service.app!.printRoutes({ commonPrefix: false }));
    assert.ok(served.size > 20, `parsed ${served.size} operations from the route tree`);
    const spec = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = new Set(
      Object.entries(spec.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    const missingFromDocs = [...served].filter((op) => !documented.has(op) && !UNDOCUMENTED.has(op));
    const notServed = [...documented].filter((op) => !served.has(op));
    assert.deepEqual(missingFromDocs, [], 'served but not documented');
    assert.deepEqual(notServed, [], 'documented but not served');
    // Every operation declares its success answer with a schema and has an operationId, so a
    // generated client types its result (test/e2e/21_typed_client.test.ts).
    const untyped = Object.entries(spec.paths).flatMap(([path, ops]) =>
      Object.entries(
        ops as Record<
          string,
          {
            operationId?: string;
            responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
          }
        >,
      )
        .filter(
          ([, op]) =>
            op.operationId === undefined ||
            !Object.entries(op.responses ?? {}).some(
              ([status, r]) =>
                /^2/.test(status) && Object.values(r.content ?? {}).some((m) => m.schema !== undefined),
            ),
        )
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    assert.deepEqual(untyped, [], 'operations without an operationId or a 2xx schema');
    for (const op of [
      'GET /v1/config',
      'POST /v2/transfer',
      'GET /v2/ticket',
      'GET /v1/tx/{txid}',
      'POST /v2/balance',
    ]) {
      assert.ok(documented.has(op), `${op} is documented`);
    }
  });
});
