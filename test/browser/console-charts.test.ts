// The console as a person looks at it, in Debian's Chromium (playwright-core) against a real
// service: every chart has a time axis and a value axis with labels and says its latest value;
// the treasury, which a mint moves by a millionth of a percent, draws a flat line, not a cliff;
// the funding pool and callback deliveries (attempts, success, latency) have trend charts;
// at 390 px wide nothing overflows the page; the txids and addresses of a search answer are
// links that search for them. Screenshots in test-artifacts/console/ (charts-*.png).
// Without /usr/bin/chromium the suite is skipped (`apt-get install chromium`), or fails under CI.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { http } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { type Browser, openChromium, skipWithoutChromium } from '../support/chromium.js';
import { seedTicket } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url).pathname;

/** What a chart shows, read from the page. */
interface ChartFacts {
  readonly title: string;
  readonly value: string;
  readonly xTicks: string[];
  readonly yTicks: string[];
  readonly lines: number;
  readonly bars: number;
  /** Vertical pixels the chart's line(s) span. */
  readonly lineHeight: number;
  readonly plotHeight: number;
}

describe('console charts, search links and a phone-sized screen, in Chromium', {
  skip: skipWithoutChromium,
}, () => {
  let t: TestService;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];
  const holder = party(`charts ${randomUUID()}`);
  let mintTxid = '';

  const shot = (name: string) =>
    page.screenshot({ path: join(ARTIFACTS, `charts-${name}.png`), fullPage: true });
  const api = async <T>(method: string, path: string, body?: unknown) => {
    const res = await http(t.url, method, path, { key: t.adminKey, ...(body !== undefined && { body }) });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.json as T;
  };

  // Plain JavaScript run in the page (a string: tsx would wrap named functions in a helper the
  // page lacks).
  const charts = (): Promise<ChartFacts[]> =>
    page.evaluate(`[...document.querySelectorAll('figure.chart-box')].map((box) => {
      const texts = (cls) => [...box.querySelectorAll('text.' + cls)].map((n) => n.textContent || '');
      const ys = [...box.querySelectorAll('polyline')].flatMap((p) =>
        (p.getAttribute('points') || '').split(' ').map((xy) => Number(xy.split(',')[1])));
      const axis = [...box.querySelectorAll('svg line.axis, svg line.grid')].map((l) => Number(l.getAttribute('y1')));
      return {
        title: (box.querySelector('.chart-title') || {}).textContent || '',
        value: (box.querySelector('.value-label') || {}).textContent || '',
        xTicks: texts('x-tick'),
        yTicks: texts('y-tick'),
        lines: box.querySelectorAll('polyline').length,
        bars: box.querySelectorAll('rect.bar').length,
        lineHeight: ys.length ? Math.max(...ys) - Math.min(...ys) : 0,
        plotHeight: axis.length ? Math.max(...axis) - Math.min(...axis) : 0,
      };
    })`);

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestService();
    const db = t.service.parts.db;
    // History the charts can show: tickets over the last hours, callback attempts over the day.
    const now = Date.now();
    for (const [minutesAgo, status] of [
      [170, 'MINED'],
      [150, 'MINED'],
      [95, 'FAILED'],
      [60, 'MINED'],
      [20, 'MINED'],
    ] as const)
      await seedTicket(db, { status, createdAt: new Date(now - minutesAgo * 60_000) });
    const ticket = await seedTicket(db, { status: 'MINED', callbackUrl: 'https://wallet.example/hook' });
    const [event] = await db.query<{ id: string }>(
      `INSERT INTO events (ticket_id, webhook_id, seq, payload, state) VALUES ($1, 'msg_charts', 1, '{}', 'delivered') RETURNING id::text AS id`,
      [ticket],
    );
    for (let i = 0; i < 24; i++) {
      for (const [code, ms] of [
        [200, 80 + i * 5],
        [i % 4 === 0 ? 503 : 200, 140 + i * 3],
      ] as const)
        await db.query(
          'INSERT INTO delivery_attempts (event_id, attempted_at, status_code, latency_ms) VALUES ($1, $2, $3, $4)',
          [event!.id, new Date(now - (23.5 - i) * 3600_000), code, ms],
        );
    }
    // The supply history's finest bucket is a second: the mint comes two seconds after the
    // deploy, so the history has a point before it (a fast start minted in the deploy's second).
    await new Promise((r) => setTimeout(r, 2000));
    const minted = await api<{ txid: string }>('POST', '/v2/admin/mint', {
      to: holder.address,
      amount: '12.5',
    });
    mintTxid = minted.txid;
    await api('POST', '/v2/admin/mine', { blocks: 1 });
    await eventually(async () => {
      const r = await api<{ ticket: { status: string } | null }>(
        'GET',
        `/v2/admin/console/search?q=${mintTxid}`,
      );
      return r.ticket?.status === 'MINED' ? true : undefined;
    }, 'the mint mined');

    browser = await openChromium({ args: ['--disable-sync'], viewport: { width: 1440, height: 1000 } });
    ({ page } = browser);
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !/^Failed to load resource/.test(msg.text())) problems.push(msg.text());
    });
    await page.goto(`${t.url}/console`);
    await page.fill('#signin-key', t.adminKey);
    await page.click('#signin-form button[type=submit]');
    await page.locator('#deliveries-charts figure').nth(1).waitFor();
    await page.locator('#funding-chart figure').waitFor();
  });

  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('every chart has a time axis, a labelled value axis and its latest value', async () => {
    const all = await charts();
    const titles = all.map((c) => c.title);
    assert.equal(all.length, 7, titles.join(' | '));
    for (const title of [
      'circulating',
      'treasury',
      'burned',
      'tickets created',
      'available outputs',
      'attempts',
      'latency',
    ])
      assert.ok(
        titles.some((x) => x.includes(title)),
        `a chart of ${title}: ${titles.join(' | ')}`,
      );
    for (const c of all) {
      assert.ok(c.xTicks.length >= 2, `${c.title}: time ticks ${c.xTicks}`);
      for (const tick of c.xTicks)
        assert.match(tick, /^(\d\d-\d\d )?\d\d:\d\d(:\d\d)?$|^\d\d-\d\d$/, c.title);
      assert.ok(c.yTicks.length >= 2, `${c.title}: value ticks ${c.yTicks}`);
      assert.notEqual(c.value.trim(), '', `${c.title}: its latest value`);
      assert.ok(c.lines + c.bars > 0, `${c.title}: draws something`);
    }
    await shot('desktop');
  });

  it('a mint that moves the treasury by a millionth of a percent draws a flat line, not a cliff', async () => {
    const treasury = (await charts()).find((c) => c.title.startsWith('treasury'))!;
    assert.ok(treasury.plotHeight > 50);
    assert.ok(
      treasury.lineHeight <= 1,
      `the line spans ${treasury.lineHeight}px of ${treasury.plotHeight}px for a change of 12.5 tokens`,
    );
    const circulating = (await charts()).find((c) => c.title.startsWith('circulating'))!;
    assert.ok(circulating.lineHeight > treasury.plotHeight / 2, 'circulating, from 0 to 12.5, does rise');
  });

  it('the funding pool and the deliveries have their trends', async () => {
    const all = await charts();
    const pool = all.find((c) => c.title.includes('available outputs'))!;
    assert.equal(pool.lines, 1);
    assert.ok(await page.locator('#funding-chart line.mark').count(), 'the low-water mark is drawn');
    const attempts = all.find((c) => c.title.includes('attempts'))!;
    assert.ok(attempts.bars >= 24, `${attempts.bars} bars of delivered and failed attempts`);
    assert.ok(await page.locator('#deliveries-charts rect.bar.failed').count(), 'failed attempts are shown');
    const latency = all.find((c) => c.title.includes('latency'))!;
    assert.equal(latency.lines, 1);
    assert.ok(latency.lineHeight > 10, 'latency rose over the day');
  });

  it("a search answer's txids and addresses are links that search for them", async () => {
    await page.fill('#search-q', mintTxid);
    await page.click('#search-form button[type=submit]');
    await page.locator('#search-kind[data-kind="txid"]').waitFor();
    const links = (await page.evaluate(
      `[...document.querySelectorAll('#search-result a.search-link')].map((a) => ({ q: a.getAttribute('data-q'), href: a.getAttribute('href') }))`,
    )) as { q: string | null; href: string | null }[];
    const qs = links.map((l) => l.q);
    assert.ok(qs.includes(mintTxid), 'the txid');
    assert.ok(qs.includes(holder.address), 'the receiving address');
    assert.ok(
      qs.some((q) => q?.startsWith(`${mintTxid}_`)),
      'the outpoints',
    );
    for (const l of links) assert.equal(l.href, `#q=${encodeURIComponent(l.q!)}`);
    await shot('search-links');
    await page.locator(`#search-result a.search-link[data-q="${holder.address}"]`).first().click();
    await page.locator('#search-kind[data-kind="address"]').waitFor();
    assert.equal(await page.inputValue('#search-q'), holder.address);
    assert.equal(await page.locator('#search-balance').getAttribute('data-atomic'), '1250000');
    assert.equal(new URL(page.url()).hash, `#q=${holder.address}`);
    const txLinks = (await page.evaluate(
      `[...document.querySelectorAll('#search-result a.search-link')].map((a) => a.getAttribute('data-q'))`,
    )) as string[];
    assert.ok(txLinks.includes(mintTxid), "the address's transactions link back to the txid");
  });

  it('opened at /console#q=<txid>, it searches once signed in', async () => {
    await page.goto('about:blank');
    await page.goto(`${t.url}/console#q=${mintTxid}`);
    await page.locator('#search-kind[data-kind="txid"]').waitFor();
    assert.equal(await page.inputValue('#search-q'), mintTxid);
  });

  it('at 390 px wide nothing overflows the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.locator('#deliveries-charts figure').nth(1).waitFor();
    await page.locator('#search-kind[data-kind="txid"]').waitFor();
    const widths = (await page.evaluate(`({
      page: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
      wide: [...document.querySelectorAll('main *')]
        .filter((n) => {
          const r = n.getBoundingClientRect();
          return r.width > 0 && (r.right > window.innerWidth + 0.5 || r.left < -0.5) && !n.closest('.table-scroll, table');
        })
        .slice(0, 5)
        .map((n) => n.tagName.toLowerCase() + '#' + n.id + '.' + n.className),
    })`)) as { page: number; viewport: number; wide: string[] };
    assert.equal(widths.viewport, 390);
    assert.ok(widths.page <= 390, `the page is ${widths.page}px wide: ${widths.wide.join(', ')}`);
    assert.deepEqual(widths.wide, []);
    for (const c of await charts()) assert.ok(c.xTicks.length >= 2, `${c.title} keeps its time axis`);
    await shot('phone');
    for (const panel of ['supply', 'funding', 'tickets', 'deliveries', 'search'])
      await page
        .locator(`#${panel}-panel`)
        .screenshot({ path: join(ARTIFACTS, `charts-phone-${panel}.png`) });
    assert.deepEqual(problems, []);
  });
});
