// History and parse (contract.md "Beyond the spec") against the published client
// (@mnee/ts-sdk 1.1.2) on a real tokenproxy on a real port: after mints, client transfers (send,
// receive, fee, change, several senders and recipients), mined and unconfirmed, every address
// involved gets from /v2/history what the client computes with recentTxHistory(ies), and every
// transaction gets from /v2/parse what the client computes with parseTx / parseTxFromRawTx
// (environment aside, which is the service's own). Plus the 400 and 404 answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Mnee from '@mnee/ts-sdk';
import { apiContextOf } from '../../src/compose.js';
import { concatBytes } from '../../src/domain/script-chunks.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { buildTx, envelope, p2pkhLock, tokenJson, tokenScript } from '../support/client-fixtures.js';
import { party } from '../support/token-world.js';
import { eventually, redirectClientTo, startTestService, type TestService } from './support.js';

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: unknown;
}

type Json = Record<string, unknown>;

/** A value as JSON carries it (undefined keys dropped), for comparing with what the wire sent. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('history and parse against the reference client', () => {
  let t: TestService;
  let restore: () => void;
  let mnee: Mnee;
  const muted = { error: console.error, warn: console.warn };
  const alice = party('e2e-02 alice');
  const bob = party('e2e-02 bob');
  const carol = party('e2e-02 carol');
  const dave = party('e2e-02 dave');
  const tickets: string[] = [];
  let unconfirmedTicket = '';

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${t.adminKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.json() };
  }

  async function ok(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const answer = await call(method, path, body);
    assert.equal(answer.status, 200, `${method} ${path}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  async function problem(method: 'GET' | 'POST', path: string, body: unknown, status: number, code: string) {
    const answer = await call(method, path, body);
    assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)}`);
    assert.match(answer.type, /^application\/problem\+json/);
    const p = answer.body as Json;
    assert.equal(p.code, code, `${method} ${path}: ${JSON.stringify(p)}`);
    assert.equal(p.status, status);
    assert.equal(p.message, p.detail);
    assert.equal(typeof p.detail, 'string');
    return p;
  }

  async function accepted(ticketId: string | undefined): Promise<string> {
    assert.ok(ticketId);
    await eventually(async () => {
      const s = await mnee.getTxStatus(ticketId);
      return s.status === 'SUCCESS' || s.status === 'MINED' ? s : undefined;
    }, `ticket ${ticketId} accepted`);
    tickets.push(ticketId);
    return ticketId;
  }

  /** Mines a block and waits until every ticket so far is MINED (no state changes afterwards). */
  async function mineAll(): Promise<void> {
    await t.service.parts.devnet!.mine(1);
    for (const id of tickets) {
      await eventually(async () => {
        const s = await mnee.getTxStatus(id);
        return s.status === 'MINED' ? s : undefined;
      }, `ticket ${id} mined`);
    }
  }

  const addresses = () => [
    alice.address,
    bob.address,
    carol.address,
    dave.address,
    t.service.parts.token.feeAddress,
    t.service.parts.token.mintAddress,
  ];

  before(async () => {
    t = await startTestService();
    restore = redirectClientTo(t.url);
    // the client logs its own failed look-ups (e.g. a funding input's source it is not served)
    console.error = () => {};
    console.warn = () => {};
    mnee = new Mnee({ environment: 'sandbox', apiKey: t.adminKey });
    const { parts } = t.service;
    for (const [to, amount] of [
      [alice.address, 5_000_000n],
      [alice.address, 2_500_000n],
      [carol.address, 1_000_000n],
    ] as const) {
      tickets.push((await mintTokens(apiContextOf(parts), parts.keys.mint, { to, amount })).ticketId);
    }
    await mineAll();

    await accepted((await mnee.transfer([{ address: bob.address, amount: 12.5 }], alice.wif)).ticketId);
    await accepted((await mnee.transfer([{ address: alice.address, amount: 2 }], bob.wif)).ticketId);
    await mineAll();

    // two senders (alice first), two recipients, the change to the second sender. Alice puts in
    // only the 2 tokens bob sent her, less than the recipients get, so the change to carol is
    // less than carol put in: only the recipients gain, and the client's fee (its tier for the
    // amount sent) is the fee due (docs/operations.md, "The token fee tier": change that moved
    // one sender's surplus to another would be tokens changing hands).
    const fromBob = (await mnee.getUtxos(alice.address)).filter((u) => u.data.bsv21.amt === 200_000);
    assert.equal(fromBob.length, 1);
    const inputs = [
      ...fromBob.map((u) => ({ txid: u.txid, vout: u.vout, wif: alice.wif })),
      ...(await mnee.getUtxos(carol.address)).map((u) => ({ txid: u.txid, vout: u.vout, wif: carol.wif })),
    ];
    const multi = await mnee.transferMulti(
      {
        inputs,
        recipients: [
          { address: bob.address, amount: 3 },
          { address: dave.address, amount: 1.5 },
        ],
        changeAddress: carol.address,
      },
      { broadcast: true },
    );
    await accepted(multi.ticketId);
    await mineAll();

    // left unconfirmed
    unconfirmedTicket = await accepted(
      (await mnee.transfer([{ address: alice.address, amount: 0.25 }], dave.wif)).ticketId,
    );
  });

  after(async () => {
    console.error = muted.error;
    console.warn = muted.warn;
    restore?.();
    await t?.stop();
  });

  it('GET /v2/history/{address} equals recentTxHistory, with and without from, limit and order', async () => {
    let entries = 0;
    const seen = {
      fee: false,
      several: false,
      confirmed: false,
      unconfirmed: false,
      send: false,
      receive: false,
    };
    for (const address of addresses()) {
      const full = (await ok('GET', `/v2/history/${address}`)) as { history: Json[] };
      const scores = full.history.map((e) => e.score as number);
      const mid = scores[Math.floor(scores.length / 2)] ?? 1;
      const queries: { from?: number; limit?: number; order?: 'asc' | 'desc' }[] = [
        {},
        { limit: 1 },
        { limit: 2, order: 'desc' },
        { order: 'asc' },
        { order: 'desc' },
        { from: 0 },
        { from: mid },
        { from: mid, limit: 1 },
        { from: mid, order: 'desc' },
        { from: mid, limit: 2, order: 'desc' },
        { from: 1_000_000 },
      ];
      for (const q of queries) {
        const search = new URLSearchParams();
        for (const [k, v] of Object.entries(q)) search.set(k, String(v));
        const ours = await ok('GET', `/v2/history/${address}?${search}`);
        const theirs = await mnee.recentTxHistory(address, q.from, q.limit, q.order);
        assert.deepEqual(ours, asJson(theirs), `${address} ${JSON.stringify(q)}`);
      }
      entries += full.history.length;
      for (const e of full.history) {
        const counterparties = e.counterparties as unknown[];
        seen.fee ||= (e.fee as number) > 0;
        seen.several ||= counterparties.length > 1;
        seen.confirmed ||= e.status === 'confirmed' && (e.height as number) > 0;
        seen.unconfirmed ||= e.status === 'unconfirmed' && e.height === 0;
        seen.send ||= e.type === 'send';
        seen.receive ||= e.type === 'receive';
      }
    }
    assert.ok(entries >= 12, `history entries: ${entries}`);
    assert.deepEqual(seen, {
      fee: true,
      several: true,
      confirmed: true,
      unconfirmed: true,
      send: true,
      receive: true,
    });
    const bobs = (await ok('GET', `/v2/history/${bob.address}`)) as { history: Json[] };
    assert.deepEqual(
      bobs.history.map((e) => [e.type, e.amount]),
      [
        ['receive', 1_250_000],
        ['send', 200_000],
        ['receive', 300_000],
      ],
    );
  });

  it('POST /v2/history equals recentTxHistories (grouped as the client groups)', async () => {
    const all = addresses();
    const aliceFull = (await ok('GET', `/v2/history/${alice.address}`)) as { history: Json[] };
    const second = aliceFull.history[1]?.score as number;
    const batches: { address: string; fromScore?: number; limit?: number; order?: 'asc' | 'desc' }[][] = [
      all.map((address) => ({ address })),
      [
        { address: alice.address },
        { address: bob.address, limit: 2 },
        { address: carol.address, order: 'desc' },
        { address: alice.address, fromScore: second, limit: 1 },
        { address: dave.address, fromScore: 0, order: 'asc' },
        { address: bob.address, order: 'desc', limit: 1 },
        { address: alice.address },
      ],
      [{ address: dave.address, fromScore: second, limit: 3, order: 'desc' }],
    ];
    for (const params of batches) {
      const ours = (await ok('POST', '/v2/history', params)) as Json[];
      const theirs = await mnee.recentTxHistories(params);
      assert.deepEqual(ours, asJson(theirs), JSON.stringify(params));
      assert.equal(ours.length, params.length);
    }
  });

  it('GET /v2/parse/{txid} equals parseTx, POST /v2/parse equals parseTxFromRawTx', async () => {
    const txids = new Set<string>();
    for (const address of addresses()) {
      const h = (await ok('GET', `/v2/history/${address}`)) as { history: Json[] };
      for (const e of h.history) txids.add(e.txid as string);
    }
    const environment = t.service.parts.config.env;
    const types = new Set<string>();
    let valid = 0;
    for (const txid of txids) {
      const ours = (await ok('GET', `/v2/parse/${txid}?includeRaw=true`)) as Json;
      assert.equal(ours.environment, environment);
      const theirs = await mnee.parseTx(txid, { includeRaw: true });
      assert.deepEqual(
        clientComparable(ours),
        asJson({ ...theirs, environment: undefined }),
        `parseTx ${txid}`,
      );

      const brief = (await ok('GET', `/v2/parse/${txid.toUpperCase()}`)) as Json;
      const { raw: _raw, ...withoutRaw } = ours;
      assert.deepEqual(brief, withoutRaw, `GET /v2/parse/${txid} without includeRaw`);

      const hex = (ours.raw as Json).txHex as string;
      for (const includeRaw of [true, false]) {
        const posted = (await ok('POST', '/v2/parse', { rawtx: hex, includeRaw })) as Json;
        const fromRaw = await mnee.parseTxFromRawTx(hex, { includeRaw });
        assert.deepEqual(
          clientComparable(posted),
          asJson({ ...fromRaw, environment: undefined }),
          `parseTxFromRawTx ${txid} includeRaw ${includeRaw}`,
        );
      }
      types.add(ours.type as string);
      if (ours.isValid === true) valid++;
    }
    assert.ok(txids.size >= 7, `transactions: ${txids.size}`);
    // the first mint spends the genesis output, which /v1/tx does not serve: "deploy" to the client
    assert.ok(types.has('transfer') && types.has('deploy'), [...types].join());
    assert.ok(valid >= 5, `valid: ${valid}`);
  });

  it('parses a transaction the service has not stored from its raw form', async () => {
    const { rawtx } = await mnee.transfer([{ address: bob.address, amount: 0.1 }], carol.wif, {
      broadcast: false,
    });
    assert.ok(rawtx);
    const hex = rawtx; // the client's raw transactions are hex
    const ours = (await ok('POST', '/v2/parse', { rawtx: hex, includeRaw: true })) as Json;
    const theirs = await mnee.parseTxFromRawTx(hex, { includeRaw: true });
    assert.deepEqual(clientComparable(ours), asJson({ ...theirs, environment: undefined }));
    assert.equal(ours.type, 'transfer');
    await problem('GET', `/v2/parse/${ours.txid}`, undefined, 404, 'NOT_FOUND');
  });

  it('parses odd inscriptions as the client does: NaN amounts are null, a throwing amt is INVALID_TX', async () => {
    const { tokenId } = t.service.parts.token;
    const approver = (await mnee.config()).approver;
    const [spent] = await mnee.getUtxos(bob.address);
    assert.ok(spent);
    const odd = buildTx(
      [{ txid: spent.txid, vout: spent.vout }],
      [
        { satoshis: 1n, script: tokenScript(tokenId, '', bob.pkh, approver) },
        { satoshis: 1n, script: tokenScript(tokenId, '7', carol.pkh, approver) },
        { satoshis: 1n, script: concatBytes([envelope(tokenJson(tokenId, '5')), p2pkhLock(dave.pkh)]) },
      ],
    );
    const hex = Buffer.from(odd).toString('hex');
    for (const includeRaw of [true, false]) {
      const ours = (await ok('POST', '/v2/parse', { rawtx: hex, includeRaw })) as Json;
      const theirs = await mnee.parseTxFromRawTx(hex, { includeRaw });
      assert.deepEqual(clientComparable(ours), asJson({ ...theirs, environment: undefined }));
      assert.equal((ours.outputs as Json[])[0]?.amount, null);
      assert.equal(ours.isValid, false);
    }
    const throwing = buildTx(
      [{ txid: spent.txid, vout: spent.vout }],
      [{ satoshis: 1n, script: tokenScript(tokenId, '12abc', bob.pkh, approver) }],
    );
    const rawtx = Buffer.from(throwing).toString('hex');
    await assert.rejects(mnee.parseTxFromRawTx(rawtx));
    await problem('POST', '/v2/parse', { rawtx }, 400, 'INVALID_TX');
  });

  it('answers 400 and 404 problems for bad history parameters', async () => {
    const a = alice.address;
    await problem('GET', '/v2/history/1BoatSLRHtKNngkdXEeobR76b53LETtpyY', undefined, 400, 'INVALID_ADDRESS');
    await problem('GET', '/v2/history/not-an-address', undefined, 400, 'INVALID_ADDRESS');
    for (const query of [
      'limit=0',
      'limit=-1',
      'limit=1.5',
      'limit=100001',
      'limit=',
      'order=up',
      'from=-1',
      'from=abc',
      'from=9007199254740992',
    ]) {
      const p = await problem('GET', `/v2/history/${a}?${query}`, undefined, 400, 'INVALID_PARAMETER');
      assert.match(p.detail as string, new RegExp(query.split('=')[0]!));
    }
    await problem('POST', '/v2/history', [], 400, 'INVALID_REQUEST');
    await problem('POST', '/v2/history', { address: a }, 400, 'INVALID_REQUEST');
    await problem('POST', '/v2/history', [{ fromScore: 1 }], 400, 'INVALID_REQUEST');
    await problem('POST', '/v2/history', [{ address: a, from: 1 }], 400, 'INVALID_REQUEST');
    await problem('POST', '/v2/history', '[{"address":', 400, 'INVALID_JSON');
    const bad = await problem(
      'POST',
      '/v2/history',
      [{ address: a }, { address: `${a.slice(0, -1)}x` }],
      400,
      'INVALID_ADDRESS',
    );
    assert.match(bad.detail as string, new RegExp(`${a.slice(0, -1)}x`));
    for (const item of [
      { limit: 0 },
      { limit: -1 },
      { limit: 2.5 },
      { limit: '2' },
      { order: 'up' },
      { fromScore: -1 },
      { fromScore: 1.5 },
    ]) {
      const p = await problem(
        'POST',
        '/v2/history',
        [{ address: a }, { address: a, ...item }],
        400,
        'INVALID_PARAMETER',
      );
      assert.match(p.detail as string, new RegExp(`\\[1\\]\\.${Object.keys(item)[0]}`));
    }
    const tooMany = Array.from({ length: t.service.parts.config.maxAddresses + 1 }, () => ({ address: a }));
    await problem('POST', '/v2/history', tooMany, 400, 'INVALID_REQUEST');
  });

  it('answers 400 and 404 problems for bad parse requests', async () => {
    await problem('GET', '/v2/parse/xyz', undefined, 400, 'INVALID_TXID');
    await problem('GET', `/v2/parse/${'g'.repeat(64)}`, undefined, 400, 'INVALID_TXID');
    await problem('GET', `/v2/parse/${'ab'.repeat(33)}`, undefined, 400, 'INVALID_TXID');
    await problem('GET', `/v2/parse/${'00'.repeat(32)}`, undefined, 404, 'NOT_FOUND');
    const status = await mnee.getTxStatus(unconfirmedTicket);
    await problem('GET', `/v2/parse/${status.tx_id}?includeRaw=yes`, undefined, 400, 'INVALID_PARAMETER');
    for (const rawtx of ['zz', 'abc', '00', '0100000000', 'ab'.repeat(200)]) {
      await problem('POST', '/v2/parse', { rawtx }, 400, 'INVALID_TX');
    }
    const oversize = '00'.repeat(t.service.parts.ctx.token.limits.maxTxBytes + 1);
    await problem('POST', '/v2/parse', { rawtx: oversize }, 400, 'LIMIT_EXCEEDED');
    await problem('POST', '/v2/parse', {}, 400, 'INVALID_REQUEST');
    await problem('POST', '/v2/parse', { rawtx: '' }, 400, 'INVALID_REQUEST');
    await problem('POST', '/v2/parse', { rawtx: status.tx_hex, includeRaw: 'yes' }, 400, 'INVALID_REQUEST');
    await problem('POST', '/v2/parse', { rawtx: status.tx_hex, extra: 1 }, 400, 'INVALID_REQUEST');
  });
});

/**
 * Our Parse answer as the client computes it: `environment` set aside (it is the service's own),
 * and the extended form's fields the client does not produce (version, lockTime, size, hash)
 * checked against the raw transaction and removed.
 */
function clientComparable(ours: Json): unknown {
  const { environment: _e, raw, ...rest } = ours;
  if (raw === undefined) return rest;
  const { version, lockTime, size, hash, ...clientRaw } = raw as Json;
  const hex = clientRaw.txHex as string;
  const le = (h: string) => Number.parseInt(h.match(/../g)!.reverse().join(''), 16);
  assert.equal(hash, ours.txid);
  assert.equal(size, hex.length / 2);
  assert.equal(version, le(hex.slice(0, 8)));
  assert.equal(lockTime, le(hex.slice(-8)));
  return { ...rest, raw: clientRaw };
}
