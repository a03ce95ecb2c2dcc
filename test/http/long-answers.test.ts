// Attack: one anonymous request asking for a whole history (issue 29: the fee address is in
// every transfer, so POST /v1/sync with no limit answered almost the whole feed, built in
// memory). Now: a keyed caller still gets every record (limit 0 = all), streamed in pages of
// PAGE_RECORDS, so no read holds more than a page; an anonymous caller gets at most
// anonymousMaxRecords, the first of its order, and pages on with `from`; and a long answer
// counts against its caller's rate limit by its size.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createMemoryRateLimitStore } from '../../src/http/plugins/rate-limit-store.js';
import { readRoutes } from '../../src/http/routes/read-routes.js';
import { PAGE_RECORDS } from '../../src/http/routes/sync-stream.js';
import type { Db } from '../../src/store/db/db.js';
import { syncForAddresses } from '../../src/store/feed/feed-queries.js';
import type { ApiContext } from '../../src/usecases/context.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';
import { KEYS, testApp } from './support.js';

const FEE = party('long answers fee address').address;
const RECORDS = 2 * PAGE_RECORDS + 37;
const CAP = 300;

describeOnEachDb('long answers: POST /v1/sync without a limit', (fresh) => {
  const reads: number[] = [];
  let app: ReturnType<typeof testApp>['app'];

  before(async () => {
    for (let i = 0; i < RECORDS; i++)
      await seedTransaction(fresh.db, { outputs: [{ owner: FEE, amount: 1n }] });
    const counting: Db = {
      ...fresh.db,
      dialect: fresh.db.dialect,
      query: async (sql, params) => {
        const rows = await fresh.db.query(sql, params);
        if (sql.includes('transaction_addresses')) reads.push(rows.length);
        return rows as never;
      },
      transaction: (fn) => fresh.db.transaction(fn),
      close: () => fresh.db.close(),
    };
    app = testApp({
      routes: [
        readRoutes({
          ctx: { db: counting } as unknown as ApiContext,
          masterKey: new Uint8Array(32),
          environment: 'sandbox',
          maxAddresses: 1000,
          anonymousMaxRecords: CAP,
        }),
      ],
      deps: {
        rateLimit: {
          store: createMemoryRateLimitStore(),
          algorithm: 'fixed',
          windowMs: 60_000,
          perKey: 10_000,
          anonymous: 1_000,
          answerBytes: 1_024,
        },
      },
    }).app;
  });
  after(async () => {
    await app?.close();
  });

  const sync = (query: string, key?: string) =>
    app.inject({
      method: 'POST',
      url: `/v1/sync${query}`,
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
      payload: [FEE],
    });
  const scoresOf = (body: string) => (JSON.parse(body) as { score: number }[]).map((r) => r.score);

  it('a keyed caller gets every record, in both orders, read a page at a time', async () => {
    const all = (
      await syncForAddresses(fresh.db, { addresses: [FEE], from: 0n, limit: 0, order: 'asc' })
    ).map((r) => Number(r.score));
    assert.equal(all.length, RECORDS);
    reads.length = 0;
    const asc = await sync('', KEYS.read);
    assert.equal(asc.statusCode, 200);
    assert.deepEqual(scoresOf(asc.body), all);
    assert.ok(reads.length >= 3, `read in pages (${reads.length} reads)`);
    assert.ok(Math.max(...reads) <= PAGE_RECORDS, `no read holds more than a page (${Math.max(...reads)})`);
    const desc = await sync('?order=desc&limit=0', KEYS.read);
    assert.deepEqual(scoresOf(desc.body), [...all].reverse());
  });

  it('every limit and order answers exactly what one query for the whole answer gives', async () => {
    // Two more addresses, some transactions concerning two of them (a record twice in the pages).
    const [b, c] = [party('long answers b').address, party('long answers c').address];
    for (let i = 0; i < 40; i++)
      await seedTransaction(fresh.db, {
        outputs:
          i % 3 === 0
            ? [
                { owner: b, amount: 1n },
                { owner: c, amount: 1n },
              ]
            : [{ owner: i % 2 ? b : c, amount: 1n }],
      });
    const scoresWanted = async (limit: number, order: 'asc' | 'desc', from: number) =>
      (await syncForAddresses(fresh.db, { addresses: [FEE, b, c], from: BigInt(from), limit, order })).map(
        (r) => Number(r.score),
      );
    const asked = (query: string) =>
      app.inject({
        method: 'POST',
        url: `/v1/sync${query}`,
        headers: { authorization: `Bearer ${KEYS.read}` },
        payload: [FEE, b, c],
      });
    const mid = (await scoresWanted(0, 'asc', 0))[RECORDS - 5]!;
    for (const limit of [0, 1, 7, 30, PAGE_RECORDS, PAGE_RECORDS + 1, 2_000])
      for (const order of ['asc', 'desc'] as const)
        for (const from of [0, mid]) {
          const got = scoresOf((await asked(`?limit=${limit}&order=${order}&from=${from}`)).body);
          assert.deepEqual(
            got,
            await scoresWanted(limit, order, from),
            `limit ${limit} ${order} from ${from}`,
          );
        }
  });

  it('an anonymous caller gets the first anonymousMaxRecords and pages on with from', async () => {
    const all = scoresOf((await sync('', KEYS.read)).body);
    const first = await sync('');
    assert.equal(first.statusCode, 200);
    assert.deepEqual(scoresOf(first.body), all.slice(0, CAP));
    const next = await sync(`?from=${all[CAP - 1]}`);
    assert.deepEqual(scoresOf(next.body), all.slice(CAP, 2 * CAP));
    const asked = await sync('?limit=100000');
    assert.equal(scoresOf(asked.body).length, CAP, 'a per-address limit above the cap is cut to it');
  });

  it('a long answer counts against its caller by its size (over a real socket)', async () => {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const post = (query: string) =>
      fetch(`${url}/v1/sync${query}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEYS.read}`,
          'content-type': 'application/json',
          'accept-encoding': 'identity',
        },
        body: JSON.stringify([FEE]),
      });
    const remaining = (res: Response) => Number(/r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')![1]);
    const first = await post('?limit=1');
    await first.text();
    const long = await post('');
    const bytes = (await long.text()).length;
    const units = Math.floor(bytes / 1_024);
    assert.ok(units > 10, `a long answer (${bytes} bytes)`);
    const last = await post('?limit=1');
    await last.text();
    assert.ok(
      remaining(first) - remaining(last) >= units,
      `counted once per KiB beyond the first (${remaining(first)} -> ${remaining(last)}, ${units} units)`,
    );
  });
});
