// POST /v2/parse does bounded work: a transaction with more inputs than a transfer may have is
// refused (400 LIMIT_EXCEEDED) before any lookup, and the inputs' source transactions are looked
// up in one query, not one per input (before: 2,400 invented inputs cost 2,400 queries and
// ~500 ms each request). On the real embedded service, counting the queries the route makes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { parseRoutes } from '../../src/http/routes/parse-routes.js';
import type { Db } from '../../src/store/db/db.js';
import { startTestService, type TestService } from '../e2e/support.js';
import { testApp } from './support.js';

function varint(n: number): Buffer {
  if (n < 0xfd) return Buffer.of(n);
  const b = Buffer.alloc(3);
  b[0] = 0xfd;
  b.writeUInt16LE(n, 1);
  return b;
}

/** A well-formed transaction spending `sources` (display-order txid, vout), one OP_TRUE output. */
function rawTx(sources: readonly (readonly [string, number])[]): string {
  const parts: Buffer[] = [Buffer.from('01000000', 'hex'), varint(sources.length)];
  for (const [txid, vout] of sources) {
    const out = Buffer.alloc(4);
    out.writeUInt32LE(vout);
    parts.push(Buffer.from(txid, 'hex').reverse(), out, varint(0), Buffer.from('ffffffff', 'hex'));
  }
  parts.push(varint(1), Buffer.from('0100000000000000', 'hex'), varint(1), Buffer.of(0x51));
  parts.push(Buffer.alloc(4));
  return Buffer.concat(parts).toString('hex');
}

const invented = () => randomBytes(32).toString('hex');

describe('POST /v2/parse bounds its work', () => {
  let t: TestService;
  const queries: string[] = [];
  let app: ReturnType<typeof testApp>['app'];
  let deployTxid: string;

  before(async () => {
    t = await startTestService();
    const real = t.service.parts.db;
    const counting: Db = {
      ...real,
      dialect: real.dialect,
      query: (sql, params) => {
        queries.push(sql);
        return real.query(sql, params);
      },
      transaction: (fn) => real.transaction(fn),
      close: () => real.close(),
    };
    const parts = t.service.parts;
    app = testApp({
      routes: [
        parseRoutes({
          ctx: { ...apiContextOf(parts), db: counting },
          masterKey: parts.masterKey,
          environment: 'sandbox',
          maxAddresses: 1000,
        }),
      ],
    }).app;
    deployTxid = parts.token.tokenId.split('_')[0]!;
  });
  after(async () => {
    await app?.close();
    await t?.stop();
  });

  const post = (rawtx: string) => app.inject({ method: 'POST', url: '/v2/parse', payload: { rawtx } });

  it('looks up the sources of 100 inputs (the transfer input limit) in one query', async () => {
    const sources: [string, number][] = [[deployTxid, 0]];
    for (let i = 1; i < 100; i++) sources.push([invented(), i % 3]);
    queries.length = 0;
    const res = await post(rawTx(sources));
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { inputs: { address: string }[] };
    assert.equal(body.inputs.length, 1, 'the deploy output is known, the invented ones are not');
    assert.equal(queries.length, 1, queries.join('\n'));
  });

  it('refuses more inputs than a transfer may have (400 LIMIT_EXCEEDED) without a query', async () => {
    queries.length = 0;
    const res = await post(rawTx(Array.from({ length: 101 }, () => [invented(), 0] as const)));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, 'LIMIT_EXCEEDED');
    assert.match(res.json().detail, /101 inputs \(at most 100\)/);
    assert.equal(queries.length, 0);
  });

  it('refuses 2,400 invented inputs on the running service', async () => {
    const res = await fetch(`${t.url}/v2/parse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rawtx: rawTx(Array.from({ length: 2400 }, () => [invented(), 0] as const)) }),
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { code: string }).code, 'LIMIT_EXCEEDED');
  });
});
