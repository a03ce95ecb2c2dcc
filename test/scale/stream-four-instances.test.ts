// The live change feed with four api instances writing on one PostgreSQL: streams open on
// different instances (the whole token, one address) while all four mint and blocks are mined,
// and a stream cut mid-way resumes on another instance with Last-Event-ID. What each delivers is
// what /v1/sync pages through: scores rising (none twice), each transaction's last version the
// record /v1/sync answers (none skipped). Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { http } from '../e2e/e2e-http.js';
import { eventually } from '../e2e/support.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { SseStream } from '../support/sse-client.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

interface Rec {
  readonly txid: string;
  readonly score: number;
  readonly height: number;
}
const keyOf = (r: Rec) => `${r.score}:${r.txid}:${r.height}`;
const recordsOf = (s: SseStream) => s.events.map((e) => JSON.parse(e.data) as Rec);

function latestOf(records: readonly Rec[]): string[] {
  for (let i = 1; i < records.length; i++)
    assert.ok(records[i]!.score > records[i - 1]!.score, 'scores rise');
  const last = new Map<string, Rec>();
  for (const r of records) {
    last.delete(r.txid);
    last.set(r.txid, r);
  }
  return [...last.values()].map(keyOf);
}

async function syncAll(url: string): Promise<Rec[]> {
  const out: Rec[] = [];
  for (;;) {
    const page = await http(url, 'GET', `/v1/sync?from=${(out.at(-1)?.score ?? -1) + 1}&limit=100`);
    assert.equal(page.status, 200, page.text);
    const list = page.json as Rec[];
    if (list.length === 0) return out;
    out.push(...list);
  }
}

describe('live change feed on four api instances and one PostgreSQL', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('stream scale');
  const instances: Instance[] = [];
  const holders = Array.from({ length: 4 }, (_, i) => party(`stream scale holder ${i}`));

  before(async () => {
    instances.push(await world.start('api'));
    await world.ledger.devnet.mine(1);
    await world.start('tracker');
    for (let i = 0; i < 3; i++) instances.push(await world.start('api'));
  });

  it('every stream matches /v1/sync, across instances and a resume on another one', async () => {
    const url = (i: number) => instances[i]!.url;
    const whole = new SseStream(`${url(0)}/v2/sync/stream?from=0`);
    const ofOne = new SseStream(`${url(2)}/v2/sync/stream?from=0&addresses=${holders[1]!.address}`);
    const cut = new SseStream(`${url(1)}/v2/sync/stream?from=0`);
    let resumed: SseStream | undefined;
    try {
      // All four write at once (a mint that loses the treasury's output to another tries again), with
      // blocks mined meanwhile, so records change state while the streams run.
      let mining = true;
      const miner = (async () => {
        while (mining) {
          await new Promise((r) => setTimeout(r, 300));
          await world.ledger.devnet.mine(1);
        }
      })();
      for (let round = 0; round < 4; round++) {
        await Promise.all(
          instances.map(async (inst, i) => {
            // A mint that lost the treasury's output to another instance's is tried again.
            for (let attempt = 0; attempt < 20; attempt++) {
              try {
                await mintTokens(apiContextOf(inst.service.parts), inst.service.parts.keys.mint, {
                  to: holders[(i + round) % holders.length]!.address,
                  amount: BigInt(1000 + round * 10 + i),
                });
                return;
              } catch {
                await new Promise((r) => setTimeout(r, 50 + 50 * i));
              }
            }
          }),
        );
        if (round === 1) {
          // Cut the third stream and resume it on the fourth instance.
          await cut.until(() => cut.events.length > 0, 20_000, 'a first event');
          cut.close();
          resumed = new SseStream(`${url(3)}/v2/sync/stream`, { 'last-event-id': cut.lastId! });
        }
      }
      mining = false;
      await miner;
      await world.ledger.devnet.mine(1);
      await eventually(
        async () => {
          const rows = await instances[0]!.service.parts.db.query<{ n: string }>(
            "SELECT count(*) AS n FROM tickets WHERE status NOT IN ('MINED', 'FAILED')",
          );
          return rows[0]?.n === '0' ? true : undefined;
        },
        'every ticket settled',
        300,
      );
      const expected = await syncAll(url(0));
      const last = expected.at(-1)!.score;
      await whole.until(() => Number(whole.lastId) >= last, 30_000, 'the whole feed');
      await resumed!.until(() => Number(resumed!.lastId) >= last, 30_000, 'the resumed stream');
      const one = (await http(url(3), 'POST', '/v1/sync', { body: [holders[1]!.address] })).json as Rec[];
      await ofOne.until(() => Number(ofOne.lastId) >= one.at(-1)!.score, 30_000, "one holder's feed");
      await new Promise((r) => setTimeout(r, 500));
      assert.ok(expected.length >= 8, `records: ${expected.length}`);
      assert.deepEqual(latestOf(recordsOf(whole)), expected.map(keyOf));
      assert.deepEqual(latestOf([...recordsOf(cut), ...recordsOf(resumed!)]), expected.map(keyOf));
      assert.deepEqual(latestOf(recordsOf(ofOne)), one.map(keyOf));
    } finally {
      for (const s of [whole, ofOne, cut, resumed]) s?.close();
    }
  });
});
