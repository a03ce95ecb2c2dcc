// Every answer the end-to-end suites receive is checked against the service's own OpenAPI
// document (GET /openapi.json): the schema of its operation and status, closed so that a field
// the document does not describe fails (objects without `additionalProperties` are read as
// `additionalProperties: false`). The HTTP helpers (e2e-http.ts, the reference client's fetch
// in support.ts, the Go client's requests in test/support/go-client-shapes.ts) call it.
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;

interface Operation {
  readonly pattern: RegExp;
  readonly method: string;
  readonly path: string;
  readonly responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

interface Checker {
  readonly ajv: Ajv2020;
  readonly operations: readonly Operation[];
}

const checkers = new Map<string, Promise<Checker>>();

/** A copy of a schema in which every object lacking `additionalProperties` is closed. */
export function closeSchemas(node: unknown, insideAllOf = false): unknown {
  if (Array.isArray(node)) return node.map((n) => closeSchemas(n, insideAllOf));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === 'allOf' && Array.isArray(value)) out[key] = value.map((n) => closeSchemas(n, true));
    else if (key === 'examples' || key === 'example') out[key] = value;
    else out[key] = closeSchemas(value);
  }
  if (!insideAllOf && out.properties !== undefined && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

async function checkerFor(baseUrl: string): Promise<Checker> {
  let checker = checkers.get(baseUrl);
  if (checker === undefined) {
    checker = (async () => {
      const res = await fetch(`${baseUrl}/openapi.json`);
      assert.equal(res.status, 200, 'GET /openapi.json');
      const doc = closeSchemas(await res.json()) as Json & { paths: Record<string, Record<string, Json>> };
      const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
      ajv.addSchema({ ...doc, $id: 'openapi' }, 'openapi', undefined, false);
      const operations: Operation[] = [];
      for (const [path, item] of Object.entries(doc.paths)) {
        const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        for (const [method, op] of Object.entries(item)) {
          operations.push({
            pattern,
            method: method.toUpperCase(),
            path,
            responses: (op as { responses: Operation['responses'] }).responses,
          });
        }
      }
      return { ajv, operations };
    })();
    checkers.set(baseUrl, checker);
    // A failed fetch (a process killed or still starting, as the chaos drills make) is not
    // kept: the next answer from that URL asks again.
    checker.catch(() => checkers.delete(baseUrl));
  }
  return checker;
}

const pointer = (...parts: string[]) =>
  `openapi#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/**
 * Checks one answer against the document; an undocumented path (the docs UI, the console's
 * pages) is not checked. `pathAndQuery` as sent; `text` the (decoded) body.
 */
export async function checkAnswer(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  status: number,
  contentType: string | null,
  text: string,
): Promise<void> {
  if (method === 'HEAD' || method === 'OPTIONS') return;
  const path = pathAndQuery.split('?')[0] ?? '';
  const { ajv, operations } = await checkerFor(baseUrl);
  const op = operations.find((o) => o.method === method && o.pattern.test(path));
  if (op === undefined) return;
  const where = `${method} ${pathAndQuery} -> ${status}`;
  const statusKey = op.responses[String(status)] !== undefined ? String(status) : 'default';
  const response = op.responses[statusKey];
  assert.ok(response !== undefined, `${where}: status not in the document`);
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (response.content === undefined) {
    assert.equal(text, '', `${where}: the document describes no body`);
    return;
  }
  const entry = response.content[media];
  assert.ok(
    entry !== undefined,
    `${where}: content type ${media} not in the document (${Object.keys(response.content)})`,
  );
  if (entry.schema === undefined) return;
  const body = media.endsWith('json') ? JSON.parse(text) : text;
  const validate = ajv.getSchema(
    pointer('paths', op.path, op.method.toLowerCase(), 'responses', statusKey, 'content', media, 'schema'),
  );
  assert.ok(validate !== undefined, `${where}: no schema compiled`);
  if (!validate(body)) {
    assert.fail(
      `${where}: the answer does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`,
    );
  }
}
