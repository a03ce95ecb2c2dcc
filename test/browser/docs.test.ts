// /docs in Chromium: the interactive reference renders from the package's own files (no
// request leaves the service's origin), its chapters in a wallet developer's reading order,
// an operation opens with its request and answer shapes, and "Try it out" calls the service.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestService, type TestService } from '../e2e/support.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = new URL('../../test-artifacts/docs/', import.meta.url).pathname;
const missing = !existsSync(CHROMIUM);
const skip =
  missing && process.env.CI === undefined
    ? `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run the browser tests`
    : false;

describe('/docs in Chromium', { skip }, () => {
  let t: TestService;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const foreign: string[] = [];
  const problems: string[] = [];

  before(async () => {
    if (missing) assert.fail(`${CHROMIUM} is missing and CI is set: install it on the CI host`);
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestService();
    profile = mkdtempSync(join(tmpdir(), 'tokenproxy-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      viewport: { width: 1280, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
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
    await context?.close();
    await t?.stop();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
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
