// A browser's EventSource on the live change feed from another origin (CORS): a page served by a
// second local server follows GET /v2/sync/stream of the service and receives its records, each
// event's lastEventId the record's score, in score order, the same records /v1/sync answers.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { http } from '../e2e/e2e-http.js';
import { startTestService, type TestService } from '../e2e/support.js';
import { type Browser, openChromium, skipWithoutChromium } from '../support/chromium.js';
import { party } from '../support/token-world.js';

const PAGE = `<!doctype html><meta charset="utf-8"><title>feed</title><script>
  window.received = [];
  window.openFeed = (url) => {
    const feed = new EventSource(url);
    feed.onmessage = (e) => {
      const r = JSON.parse(e.data);
      window.received.push({ id: e.lastEventId, score: r.score, txid: r.txid, origin: e.origin });
    };
    feed.onerror = () => window.received.push({ error: feed.readyState });
  };
</script>`;

describe('EventSource in Chromium on GET /v2/sync/stream', { skip: skipWithoutChromium }, () => {
  let t: TestService;
  let browser: Browser | undefined;
  let site: Server;
  let siteUrl: string;
  const carol = party('browser feed carol');

  before(async () => {
    t = await startTestService();
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    browser = await openChromium({ viewport: { width: 800, height: 600 } });
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
    await t?.stop();
  });

  it('receives the records of an address from another origin, ids the scores', async () => {
    const { keys } = t.service.parts;
    const ctx = apiContextOf(t.service.parts);
    await mintTokens(ctx, keys.mint, { to: carol.address, amount: 1000n });
    const page = browser!.page;
    await page.goto(siteUrl);
    assert.notEqual(new URL(siteUrl).origin, new URL(t.url).origin, 'two origins');
    await page.evaluate(
      (url) => (globalThis as unknown as { openFeed(u: string): void }).openFeed(url),
      `${t.url}/v2/sync/stream?from=0&addresses=${carol.address}`,
    );
    await mintTokens(ctx, keys.mint, { to: carol.address, amount: 2000n });
    await t.service.parts.devnet!.mine(1);
    type Got = { id?: string; score?: number; txid?: string; error?: number };
    let got: Got[] = [];
    for (let i = 0; i < 100; i++) {
      got = (await page.evaluate(() => (globalThis as unknown as { received: unknown[] }).received)) as Got[];
      const expected = (await http(t.url, 'POST', '/v1/sync', { body: [carol.address] })).json as {
        score: number;
      }[];
      const mined = expected.length === 2 && got.some((g) => g.score === expected.at(-1)!.score);
      if (mined) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(
      got.every((g) => g.error === undefined),
      `no error: ${JSON.stringify(got)}`,
    );
    assert.ok(got.length >= 2, `events: ${JSON.stringify(got)}`);
    for (const g of got) assert.equal(g.id, String(g.score));
    const scores = got.map((g) => g.score!);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => a - b),
    );
    const expected = (await http(t.url, 'POST', '/v1/sync', { body: [carol.address] })).json as {
      txid: string;
    }[];
    assert.deepEqual(new Set(got.map((g) => g.txid)), new Set(expected.map((e) => e.txid)));
  });
});
