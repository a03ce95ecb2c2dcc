// The requests of the HTTP fuzz suite: every route the service documents (and some it does
// not), with malformed JSON, wrong types, huge arrays and bodies, invalid and mixed addresses,
// random and mutated transactions, hostile callback URLs, query strings, headers and methods.
import fc from 'fast-check';
import { base58CheckEncode } from '../../src/domain/base58.js';

export interface FuzzRequest {
  readonly method: string;
  /** Path and query string, already encoded. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface FuzzWorld {
  /** Route templates from /openapi.json: `/v1/tx/{txid}` with its methods. */
  readonly routes: readonly { readonly path: string; readonly methods: readonly string[] }[];
  readonly validAddresses: readonly string[];
  /** Raw bytes of valid signed transfers of a funded party (mutated, never sent as they are). */
  readonly transfers: readonly Uint8Array[];
  readonly key: string;
  readonly adminKey: string;
  /** Valid ticket IDs and txids the service knows. */
  readonly ticketIds: readonly string[];
  readonly txids: readonly string[];
}

const ADDRESS_ROUTES = ['/v2/balance', '/v2/utxos', '/v1/utxos', '/v1/sync'];
const TX_ROUTES = ['/v2/transfer', '/v1/transfer'];

const text = fc.string({ maxLength: 40, unit: 'binary' });
const smallText = fc.oneof(
  text,
  fc.constantFrom('', ' ', '0', '-1', '1e400', 'NaN', 'null', 'true', '[]', '{}', '\u0000', '%00', '💥'),
);

/** Addresses: valid, mutated, of another network or version, random and hostile strings. */
export function addressArb(world: FuzzWorld): fc.Arbitrary<string> {
  const valid = fc.constantFrom(...world.validAddresses);
  const mutated = fc
    .tuple(
      valid,
      fc.nat(),
      fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl'),
    )
    .map(([a, i, c]) => {
      const at = i % a.length;
      return a.slice(0, at) + c + a.slice(at + 1);
    });
  const otherVersion = fc
    .tuple(fc.constantFrom(0x05, 0x6f, 0xc4, 0x80, 0xff), fc.uint8Array({ minLength: 20, maxLength: 20 }))
    .map(([v, payload]) => base58CheckEncode(v, payload));
  const oddLength = fc.uint8Array({ minLength: 0, maxLength: 40 }).map((p) => base58CheckEncode(0, p));
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 3, arbitrary: mutated },
    { weight: 2, arbitrary: otherVersion },
    { weight: 1, arbitrary: oddLength },
    { weight: 2, arbitrary: smallText },
    { weight: 1, arbitrary: valid.map((a) => ` ${a}`) },
    { weight: 1, arbitrary: valid.map((a) => a.toLowerCase()) },
    { weight: 1, arbitrary: fc.constant('1'.repeat(128)) },
  );
}

/** Transactions: valid transfers with bytes flipped, cut or grown, and random bytes. */
export function rawTxArb(world: FuzzWorld): fc.Arbitrary<Uint8Array> {
  const base = fc.constantFrom(...world.transfers);
  const flipped = fc
    .tuple(
      base,
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
    )
    .map(([tx, flips]) => {
      const out = Uint8Array.from(tx);
      for (const [at, mask] of flips) out[at % out.length]! ^= mask;
      return out;
    });
  const cut = fc.tuple(base, fc.nat()).map(([tx, n]) => tx.slice(0, n % tx.length));
  const grown = fc
    .tuple(base, fc.uint8Array({ minLength: 1, maxLength: 64 }))
    .map(([tx, tail]) => Uint8Array.from([...tx, ...tail]));
  const spliced = fc
    .tuple(base, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 16 }))
    .map(([tx, at, bytes]) => {
      const i = at % tx.length;
      return Uint8Array.from([...tx.slice(0, i), ...bytes, ...tx.slice(i)]);
    });
  return fc.oneof(
    { weight: 6, arbitrary: flipped },
    { weight: 2, arbitrary: cut },
    { weight: 1, arbitrary: grown },
    { weight: 2, arbitrary: spliced },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 400 }) },
  );
}

/** Callback URLs a service must never call, or that are not URLs at all. */
export const hostileCallbackUrl: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'http://127.0.0.1/hook',
    'http://localhost:3000/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0.0.0.0/',
    'http://0x7f.1/',
    'http://2130706433/',
    'http://017700000001/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://192.168.1.1:8080/x',
    'http://[fd00::1]/',
    'http://[fe80::1%25eth0]/',
    'http://user:pass@127.0.0.1/',
    'file:///etc/passwd',
    'gopher://127.0.0.1:70/',
    'javascript:alert(1)',
    'data:text/plain,hi',
    'ftp://example.com/',
    'http://',
    'https://',
    '//example.com/x',
    'not a url',
    'http://localhost./',
    'http://LOCALHOST/',
    'http://127.1/',
    'http://[::]/',
    'https://example.invalid:99999/',
    'http://%31%32%37.0.0.1/',
  ),
  fc.tuple(fc.constantFrom('http://', 'https://', 'ws://', ''), smallText).map(([s, t]) => s + t),
  fc.constant(`http://a.example/${'x'.repeat(3000)}`),
);

const queryValue = fc.oneof(
  smallText,
  fc.integer().map(String),
  fc.constantFrom(String(Number.MAX_SAFE_INTEGER + 2), '9'.repeat(400), '-0', '0x10', '1.5', 'desc', 'asc'),
);
const queryKey = fc.oneof(
  fc.constantFrom('from', 'limit', 'size', 'page', 'order', 'ticketID', 'includeRaw', 'auth_token'),
  fc.constantFrom('__proto__', 'constructor', 'from[]', 'a[b][c]', ''),
  text,
);

/** A query string: known and unknown names, repeated names, odd values, broken escapes. */
export const queryArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constant('') },
  {
    weight: 6,
    arbitrary: fc
      .array(fc.tuple(queryKey, queryValue), { maxLength: 5 })
      .map((pairs) =>
        pairs.length === 0
          ? ''
          : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`,
      ),
  },
  { weight: 1, arbitrary: fc.constantFrom('?%zz', '?from=%', '?&&&=', '?from=1&from=2', '??', '?%00=%00') },
);

const contentType = fc.oneof(
  { weight: 16, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/problem+json',
      'application/octet-stream',
      '',
      '*/*',
      'application/json, text/plain',
    ),
  },
);

/** Bodies of any shape: valid JSON of the wrong type, broken JSON, deep nesting, big bodies. */
function bodyArb(world: FuzzWorld): fc.Arbitrary<string> {
  const json = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v));
  const broken = fc.oneof(
    fc.string({ maxLength: 60, unit: 'binary' }),
    json.chain((j) => fc.nat({ max: Math.max(0, j.length - 1) }).map((n) => j.slice(0, n))),
    json.map((j) => `${j}}`),
    fc.constantFrom('{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '\uFEFF[]', '[1,]'),
  );
  const deep = fc.integer({ min: 100, max: 20_000 }).map((n) => '['.repeat(n) + ']'.repeat(n));
  const addresses = fc
    .array(addressArb(world), { minLength: 0, maxLength: 30 })
    .map((a) => JSON.stringify(a));
  const hugeArray = fc
    .tuple(fc.integer({ min: 1001, max: 3000 }), fc.constantFrom(...world.validAddresses))
    .map(([n, a]) => JSON.stringify(Array.from({ length: n }, () => a)));
  const hugeBody = fc.constantFrom(
    JSON.stringify({ rawtx: 'A'.repeat(1_100_000) }),
    JSON.stringify(['x'.repeat(1_100_000)]),
  );
  return fc.oneof(
    { weight: 4, arbitrary: json },
    { weight: 4, arbitrary: broken },
    { weight: 1, arbitrary: deep },
    { weight: 3, arbitrary: addresses },
    { weight: 1, arbitrary: hugeArray },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constant('').chain(() => hugeBody) },
  );
}

function authArb(world: FuzzWorld, path: string): fc.Arbitrary<Record<string, string>> {
  const good = path.startsWith('/v2/admin') ? world.adminKey : world.key;
  return fc.oneof(
    { weight: 16, arbitrary: fc.constant({ authorization: `Bearer ${good}` }) },
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('Bearer ', 'Bearer tp_nope', 'Basic YTpi', `bearer ${world.key}x`, 'Bearer \u00ff')
        .map((authorization) => ({ authorization })),
    },
  );
}

function withHeaders(
  world: FuzzWorld,
  method: string,
  path: string,
  body?: string,
): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      authArb(world, path),
      contentType,
      fc.option(fc.string({ minLength: 1, maxLength: 40 }).filter((s) => /^[\x21-\x7e]+$/.test(s))),
      fc.constantFrom('application/json', 'text/plain', '*/*', 'application/xml'),
    )
    .map(([auth, type, idempotencyKey, accept]) => ({
      method,
      path,
      headers: {
        ...auth,
        accept,
        ...(body !== undefined && type !== '' && { 'content-type': type }),
        ...(idempotencyKey !== null && { 'idempotency-key': idempotencyKey }),
      },
      ...(body !== undefined && { body }),
    }));
}

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'];

/** Any documented route with a fuzzed path parameter, method, query and body. */
function anyRoute(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const param = fc.oneof(
    smallText,
    fc.constantFrom(...world.ticketIds, ...world.txids, ...world.validAddresses),
    addressArb(world),
  );
  return fc
    .tuple(fc.constantFrom(...world.routes), param, queryArb, fc.boolean(), fc.constantFrom(...METHODS))
    .chain(([route, p, query, ownMethod, anyMethod]) => {
      const method = ownMethod ? route.methods[0]! : anyMethod;
      const path = route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(p)) + query;
      if (method === 'GET' || method === 'OPTIONS') return withHeaders(world, method, path);
      return bodyArb(world).chain((body) => withHeaders(world, method, path, body));
    });
}

function addressRoute(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      fc.constantFrom(...ADDRESS_ROUTES),
      fc.array(addressArb(world), { minLength: 0, maxLength: 40 }),
      queryArb,
    )
    .chain(([route, list, query]) => withHeaders(world, 'POST', route + query, JSON.stringify(list)));
}

function historyRoute(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const item = fc.record(
    { address: addressArb(world), fromScore: fc.jsonValue(), limit: fc.jsonValue(), order: fc.jsonValue() },
    { requiredKeys: ['address'] },
  );
  const multi = fc
    .array(item, { maxLength: 10 })
    .chain((items) => withHeaders(world, 'POST', '/v2/history', JSON.stringify(items)));
  const one = fc
    .tuple(addressArb(world), queryArb)
    .chain(([a, q]) => withHeaders(world, 'GET', `/v2/history/${encodeURIComponent(a)}${q}`));
  return fc.oneof(multi, one);
}

/** The value one time in four, else null. */
function rarely<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
}

function transferRoute(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const rawtx = fc.oneof(
    { weight: 8, arbitrary: rawTxArb(world).map((b) => Buffer.from(b).toString('base64')) },
    { weight: 1, arbitrary: rawTxArb(world).map((b) => Buffer.from(b).toString('hex')) },
    { weight: 1, arbitrary: smallText },
  );
  const body = fc.record(
    { rawtx: fc.oneof({ weight: 9, arbitrary: rawtx }, { weight: 1, arbitrary: fc.jsonValue() }) },
    { requiredKeys: [] },
  );
  const withCallback = fc
    .tuple(body, rarely(hostileCallbackUrl), rarely(fc.oneof(smallText, fc.jsonValue())))
    .map(([b, url, secret]) => ({
      ...b,
      ...(url !== null && { callback_url: url }),
      ...(secret !== null && { callback_secret: secret }),
    }));
  return fc
    .tuple(
      fc.constantFrom(...TX_ROUTES),
      withCallback,
      rarely(queryArb).map((q) => q ?? ''),
    )
    .chain(([route, b, q]) => withHeaders(world, 'POST', route + q, JSON.stringify(b)));
}

function parseRoute(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const post = fc
    .tuple(rawTxArb(world), fc.option(fc.jsonValue()), fc.boolean())
    .map(([raw, includeRaw, hex]) =>
      JSON.stringify({
        rawtx: Buffer.from(raw).toString(hex ? 'hex' : 'base64'),
        ...(includeRaw !== null && { includeRaw }),
      }),
    )
    .chain((b) => withHeaders(world, 'POST', '/v2/parse', b));
  const get = fc
    .tuple(fc.oneof(fc.constantFrom(...world.txids), smallText), queryArb)
    .chain(([txid, q]) => withHeaders(world, 'GET', `/v2/parse/${encodeURIComponent(txid)}${q}`));
  return fc.oneof(post, get);
}

/** API keys made with odd names and scopes, and revoked by IDs that are none. */
function adminKeysRoute(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const create = fc
    .record(
      {
        name: fc.oneof(smallText, text),
        scopes: fc.oneof(fc.array(smallText, { maxLength: 4 }), fc.jsonValue()),
      },
      { requiredKeys: [] },
    )
    .chain((b) => withHeaders(world, 'POST', '/v2/admin/keys', JSON.stringify(b)));
  const revoke = fc
    .oneof(smallText, fc.uuid())
    .chain((id) => withHeaders(world, 'DELETE', `/v2/admin/keys/${encodeURIComponent(id)}`));
  return fc.oneof(create, revoke);
}

/** Every kind of request, weighted towards the routes that take the most input. */
export function requestArb(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 5, arbitrary: anyRoute(world) },
    { weight: 3, arbitrary: addressRoute(world) },
    { weight: 1, arbitrary: historyRoute(world) },
    { weight: 4, arbitrary: transferRoute(world) },
    { weight: 2, arbitrary: parseRoute(world) },
    { weight: 1, arbitrary: adminKeysRoute(world) },
  );
}
