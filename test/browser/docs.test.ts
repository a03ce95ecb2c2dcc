// /docs in Chromium: the interactive reference renders from the package's own files (no
// request leaves the service's origin), its chapters in a wallet developer's reading order,
// an operation opens with its request and answer shapes, and "Try it out" calls the service.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from '../e2e/support.js';
import { type Browser, openChromium, skipWithoutChromium } from '../support/chromium.js';

const ARTIFACTS = new URL('../../test-artifacts/docs/', import.meta.url).pathname;

describe('/docs in Chromium', { skip: skipWithoutChromium }, () => {
  let t: TestService;
  let browser: Browser | undefined;
  let page: Page;
  const foreign: string[] = [];
  const problems: string[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestService();
    browser = await openChromium({ viewport: { width: 1280, height: 900 } });
    ({ page } = browser);
    const origin = new URL(t.url).origin;
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:')) foreign.push(url);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('renders the chapters in reading order from its own files, and tries an operation', async () => {
    await page.goto(`${t.url}/`);
    await page.click('a[href="docs"]');
    await page.waitForSelector('.opblock-tag', { timeout: 20_000 });
    const tags = await page
      .locator('.opblock-tag')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-tag')));
    assert.deepEqual(tags.slice(0, 6), ['config', 'balance', 'utxos', 'transfer', 'ticket', 'sync']);
    assert.ok(tags.includes('admin'));

    await page.click('#operations-config-getConfig .opblock-summary');
    await page.waitForSelector('#operations-config-getConfig .responses-wrapper');
    await page.click('#operations-config-getConfig button.try-out__btn');
    await page.click('#operations-config-getConfig button.execute');
    const answer = page
      .locator('#operations-config-getConfig .live-responses-table tr.response .response-col_status')
      .first();
    await answer.waitFor({ timeout: 20_000 });
    assert.equal((await answer.textContent())?.trim(), '200');
    await page.screenshot({ path: `${ARTIFACTS}docs.png`, fullPage: false });
    assert.deepEqual(foreign, [], 'no request leaves the service');
    assert.deepEqual(problems, [], 'no script errors (CSP included)');
  });
});
