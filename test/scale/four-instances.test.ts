// Scale-out: four `api` instances on distinct ports and one `tracker`, all on one PostgreSQL
// database and one ARC (the devnet's ARC API in this process); once as they write themselves,
// once with the tracker's process running the deployment's writer (ADR 0007), through which
// every submission and broadcast answer then goes. A mixed load of reads and
// conflicting submissions (two transfers spending the same output, each sent to two
// instances at once): every conflict ends with exactly one ticket. A change-feed consumer
// polling GET /v1/sync?from= round-robin across the instances sees every change once, in
// score order. Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import type { SqlValue } from '../../src/store/db/db.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { http, ticketIdOf, transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually } from '../e2e/support.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

const HOLDERS = Array.from({ length: 6 }, (_, i) => party(`scale holder ${i}`));
const RECIPIENTS = [party('scale recipient 0'), party('scale recipient 1')];
const OUTPUTS_PER_HOLDER = 4;

interface FeedEntry {
  readonly txid: string;
  readonly score: number;
  readonly height: number;
}

type Answer = { readonly ticket: string } | { readonly status: number; readonly code: string };

for (const withWriter of [false, true]) describeFourInstances(withWriter);

function describeFourInstances(withWriter: boolean) {
  describe(`four api instances and a tracker on one PostgreSQL${withWriter ? ', with a writer' : ''}`, {
    skip: testDatabaseUrl === undefined,
  }, () => {
    const world = sharedWorld(withWriter ? 'scale with a writer' : 'scale');
    const instances: Instance[] = [];
    let tracker: Instance;
    let key: string;
    const urls = () => instances.map((i) => i.url!);

    before(async () => {
      // The first instance deploys the token; the tracker fills the funding pool; the others find both.
      instances.push(await world.start('api'));
      await world.ledger.devnet.mine(1);
      tracker = await world.start(withWriter ? 'tracker,writer' : 'tracker');
      for (let i = 0; i < 3; i++) instances.push(await world.start('api'));
      // Every api process looks the writer up on its own (the first one started before it).
      if (withWriter)
        await eventually(
          async () =>
            instances.every((i) => i.service.parts.writerLink?.current() != null) ? true : undefined,
          'every api process found the writer',
        );
    });

    const linkCounts = () => instances.map((i) => i.service.parts.writerLink!.counts());

    const sql = async <T extends Record<string, unknown>>(text: string, params: SqlValue[] = []) =>
      instances[0]!.service.parts.db.query<T>(text, params);
    const allMined = async () => {
      const rows = await sql<{ n: string }>("SELECT count(*) AS n FROM tickets WHERE status <> 'MINED'");
      return rows[0]?.n === '0' ? true : undefined;
    };

    it('every instance serves the one token, with distinct ports', async () => {
      assert.equal(new Set(urls()).size, 4);
      const configs = await Promise.all(urls().map((u) => http(u, 'GET', '/v1/config')));
      for (const c of configs) assert.equal(c.status, 200, c.text);
      assert.equal(new Set(configs.map((c) => (c.json as { tokenId: string }).tokenId)).size, 1);
      assert.equal(tracker.service.url, null, 'the tracker serves no HTTP');
    });

    it('a mixed load: each conflict ends with one ticket, the feed is seen once in score order', async () => {
      const first = instances[0]!.service.parts;
      key = (await createApiKey(first.db, first.masterKey, { name: 'wallets', scopes: ['read', 'submit'] }))
        .key;
      for (const holder of HOLDERS)
        for (let i = 0; i < OUTPUTS_PER_HOLDER; i++)
          await mintTokens(apiContextOf(first), first.keys.mint, {
            to: holder.address,
            amount: BigInt(1_000_000 + i),
          });
      await world.ledger.devnet.mine(1);
      await eventually(allMined, 'the mints MINED', 300);

      const token = first.ctx.token;
      const conflicts: { a: string; b: string }[] = [];
      for (const holder of HOLDERS) {
        const outputs = await utxosOf(urls()[0]!, key, holder.address);
        assert.equal(outputs.length, OUTPUTS_PER_HOLDER);
        for (const [i, o] of outputs.entries()) {
          const plan = (to: number, amount: bigint) =>
            transferOf(token, { from: holder, inputs: [o], to: RECIPIENTS[to]!, amount, fee: 100n });
          conflicts.push({ a: plan(0, BigInt(10_000 + i)), b: plan(1, BigInt(20_000 + i)) });
        }
      }

      // The change-feed consumer, polling round-robin across the instances until told to stop.
      const seen: FeedEntry[] = [];
      let stopFeed = false;
      let polls = 0;
      const poll = async () => {
        const from = (seen.at(-1)?.score ?? 0) + 1;
        const url = urls()[polls++ % instances.length]!;
        const res = await http(url, 'GET', `/v1/sync?from=${from}&limit=50`, { key });
        assert.equal(res.status, 200, res.text);
        const page = res.json as FeedEntry[];
        for (const r of page) seen.push({ txid: r.txid, score: r.score, height: r.height });
        return page.length;
      };
      const consumer = (async () => {
        while (!stopFeed) if ((await poll()) === 0) await new Promise((r) => setTimeout(r, 20));
      })();
      let mining = true;
      const miner = (async () => {
        while (mining) {
          await new Promise((r) => setTimeout(r, 300));
          await world.ledger.devnet.mine(1);
        }
      })();
      try {
        const submit = async (url: string, rawtx: string): Promise<Answer> => {
          const res = await http(url, 'POST', '/v2/transfer', { key, body: { rawtx } });
          if (res.status === 200) return { ticket: ticketIdOf(res) };
          return { status: res.status, code: (res.json as { code?: string } | undefined)?.code ?? res.text };
        };
        const reads = (n: number) => {
          const url = urls()[n % instances.length]!;
          const addresses = [HOLDERS[n % HOLDERS.length]!.address, RECIPIENTS[n % 2]!.address];
          return Promise.all([
            http(url, 'POST', '/v2/balance', { key, body: addresses }),
            http(url, 'POST', '/v2/utxos', { key, body: addresses }),
          ]).then((answers) => {
            for (const a of answers) assert.equal(a.status, 200, a.text);
          });
        };
        const outcomes = await Promise.all(
          conflicts.map(async ({ a, b }, n) => {
            const at = (k: number) => urls()[(n + k) % instances.length]!;
            const [answers] = await Promise.all([
              Promise.all([submit(at(0), a), submit(at(1), b), submit(at(2), a), submit(at(3), b)]),
              reads(n),
            ]);
            return answers;
          }),
        );

        for (const [n, answers] of outcomes.entries()) {
          const tickets = new Set(answers.flatMap((x) => ('ticket' in x ? [x.ticket] : [])));
          assert.equal(tickets.size, 1, `conflict ${n}: one ticket, got ${JSON.stringify(answers)}`);
          for (const x of answers)
            if (!('ticket' in x))
              assert.ok(['INPUT_LOCKED', 'INPUT_SPENT'].includes(x.code), JSON.stringify(x));
          const wins = [0, 1, 2, 3].filter((k) => 'ticket' in answers[k]!);
          assert.ok(
            wins.every((k) => k % 2 === wins[0]! % 2),
            `conflict ${n}: the ticket is one transfer's`,
          );
        }
        const ticketCount = await sql<{ n: string }>('SELECT count(*) AS n FROM tickets WHERE txid <> $1', [
          token.tokenId.split('_')[0]!,
        ]);
        assert.equal(
          Number(ticketCount[0]?.n),
          HOLDERS.length * OUTPUTS_PER_HOLDER * 2,
          'a mint and a ticket each',
        );

        await eventually(allMined, 'every ticket MINED', 600);
        mining = false;
        await miner;
        // Catch up with the feed as it now stands, then stop the consumer.
        const top = await sql<{ score: string }>('SELECT max(score) AS score FROM transactions');
        await eventually(
          async () => ((seen.at(-1)?.score ?? 0) >= Number(top[0]!.score) ? true : undefined),
          'the feed read',
        );
        stopFeed = true;
        await consumer;
        while ((await poll()) > 0);

        assert.ok(polls > instances.length, 'the consumer polled every instance');
        for (let i = 1; i < seen.length; i++)
          assert.ok(
            seen[i]!.score > seen[i - 1]!.score,
            `scores increase: ${seen[i - 1]!.score} then ${seen[i]!.score}`,
          );
        const rows = await sql<{ txid: string; score: string; height: number }>(
          'SELECT txid, score, height FROM transactions ORDER BY score',
        );
        const last = new Map(seen.map((e) => [e.txid, e]));
        assert.deepEqual(
          [...last.values()].sort((x, y) => x.score - y.score),
          rows.map((r) => ({ txid: r.txid, score: Number(r.score), height: r.height })),
          'each transaction last seen in the state the store holds',
        );
        const byTx = new Map<string, FeedEntry[]>();
        for (const e of seen) byTx.set(e.txid, [...(byTx.get(e.txid) ?? []), e]);
        for (const [txid, entries] of byTx) {
          const heights = entries.map((e) => e.height);
          assert.ok(heights.length <= 2 && heights.slice(0, -1).every((h) => h === 0), `${txid}: ${heights}`);
        }
        if (withWriter) {
          const counts = linkCounts();
          assert.ok(
            counts.every((c) => c.viaWriter > 0 && c.local === 0),
            `every api process wrote through the writer only: ${JSON.stringify(counts)}`,
          );
        }
      } finally {
        mining = false;
        stopFeed = true;
        await Promise.allSettled([miner, consumer]);
      }
    });

    if (withWriter)
      it('with the writer stopped, the api processes write themselves: a transfer is still answered with its ticket', async () => {
        const before = linkCounts();
        await tracker.stop();
        const [holder] = HOLDERS;
        const outputs = await utxosOf(urls()[0]!, key, RECIPIENTS[0]!.address);
        assert.ok(outputs.length > 0, 'the recipient holds outputs');
        const rawtx = transferOf(instances[0]!.service.parts.ctx.token, {
          from: RECIPIENTS[0]!,
          inputs: [outputs[0]!],
          to: holder!,
          amount: 1n,
          fee: 100n,
        });
        const res = await http(urls()[1]!, 'POST', '/v2/transfer', { key, body: { rawtx } });
        assert.equal(res.status, 200, res.text);
        const after = linkCounts();
        assert.equal(
          after[1]!.local,
          before[1]!.local + 1,
          'the second api process wrote the transfer itself',
        );
        assert.equal(instances[1]!.service.parts.writerLink!.current(), null, 'no writer is registered');
      });
  });
}
