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

  it('/docs: the wallet operations have a summary and a description, each problem status its own example', async () => {
    type Media = { example?: { status?: number; code?: string; detail?: string }; schema?: unknown };
    type Op = {
      summary?: string;
      description?: string;
      responses?: Record<string, { content?: Record<string, Media> }>;
    };
    const spec = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Op>>;
    };
    for (const [path, method] of [
      ['/v1/config', 'get'],
      ['/v2/balance', 'post'],
      ['/v2/utxos', 'post'],
      ['/v2/transfer', 'post'],
      ['/v2/ticket', 'get'],
      ['/v1/sync', 'get'],
      ['/v1/sync', 'post'],
    ] as const) {
      const op = spec.paths[path]![method]!;
      assert.ok((op.summary ?? '').length > 10, `${method} ${path} summary`);
      assert.ok((op.description ?? '').length > 40, `${method} ${path} description`);
    }
    let examples = 0;
    for (const [path, ops] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, entry] of Object.entries(op.responses ?? {})) {
          const problem = entry.content?.['application/problem+json'];
          // The entries of the problems the document lists by code (a route's own entries aside).
          if (problem === undefined || (problem.schema as { allOf?: unknown }).allOf === undefined) continue;
          const where = `${method} ${path} ${status}`;
          assert.equal(problem.example?.status, Number(status), where);
          const codes = (problem.schema as { allOf: [unknown, { properties: { code: { enum: string[] } } }] })
            .allOf[1].properties.code.enum;
          assert.ok(codes.includes(problem.example!.code!), `${where}: ${problem.example?.code}`);
          examples++;
        }
      }
    }
    assert.ok(examples > 50, `${examples} problem examples`);
    const transfer = spec.paths['/v2/transfer']!.post!.responses!;
    assert.match(
      transfer['401']!.content!['application/problem+json']!.example!.detail!,
      /tokenproxy keys create/,
    );
  });
});
