// The console's issuer controls (issue 32) in Chromium: a key with only the freeze scope sees the
// freeze and blacklist forms but no mint, burn, pause or keys; the admin key pauses and unpauses
// from the controls panel (the API then answers paused, and a transfer... is the e2e suite's),
// and blacklists an address from its form.
// Without /usr/bin/chromium the suite is skipped (`apt-get install chromium`), or fails under CI.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { http } from '../e2e/e2e-http.js';
import { startTestService, type TestService } from '../e2e/support.js';
import { type Browser, openChromium, skipWithoutChromium } from '../support/chromium.js';
import { party } from '../support/token-world.js';

describe('console issuer controls in Chromium', { skip: skipWithoutChromium }, () => {
  let t: TestService;
  let browser: Browser | undefined;
  let page: Page;
  let freezeKey: string;
  const problems: string[] = [];

  before(async () => {
    t = await startTestService();
    const { parts } = t.service;
    ({ key: freezeKey } = await createApiKey(parts.db, parts.masterKey, {
      name: 'compliance',
      scopes: ['freeze'],
    }));
    browser = await openChromium({
      args: ['--disable-quic', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1440, height: 1000 },
    });
    ({ page } = browser);
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('response', (res) => {
      if (res.status() === 403) problems.push(`403: ${new URL(res.url()).pathname}`);
      if (res.status() >= 500) problems.push(`${res.status()}: ${new URL(res.url()).pathname}`);
    });
  });

  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const signIn = async (key: string) => {
    await page.goto(`${t.url}/console`);
    await page.fill('#signin-key', key);
    await page.click('#signin-form button[type=submit]');
    await page.locator('#app').waitFor({ state: 'visible' });
    await page.locator('#pause-state[data-paused]').waitFor();
  };

  it('a freeze-only key sees the freeze and blacklist forms, not mint, burn, pause, keys or mining', async () => {
    await signIn(freezeKey);
    for (const id of ['#freeze-form', '#blacklist-form'])
      assert.equal(await page.locator(id).isVisible(), true, `${id} shown`);
    for (const id of ['#mint-form', '#burn-form', '#pause-form', '#keys-panel', '#mine-button'])
      assert.equal(await page.locator(id).isVisible(), false, `${id} hidden`);
    const listed = party('console blacklisted');
    await page.fill('#blacklist-address', listed.address);
    await page.fill('#blacklist-reason', 'sanctions entry 9');
    await page.click('#blacklist-form button[value=list]');
    await page.locator(`#blacklist-table tr[data-address="${listed.address}"]`).waitFor();
    // Nothing it may not read was asked for (no 403 from the panels' refreshes).
    assert.deepEqual(problems, []);
    await page.click('#signout');
  });

  it('the admin key pauses and unpauses from the controls panel', async () => {
    await signIn(t.adminKey);
    assert.equal(await page.locator('#pause-form').isVisible(), true);
    assert.equal(await page.locator('#mint-form').isVisible(), true);
    await page.fill('#pause-reason', 'incident drill');
    await page.click('#pause-button');
    await page.locator('#pause-state[data-paused="true"]').waitFor();
    const paused = await http(t.url, 'GET', '/v2/admin/pause', { key: t.adminKey });
    assert.equal((paused.json as { paused: boolean }).paused, true);
    await page.fill('#pause-reason', 'drill over');
    await page.click('#unpause-button');
    await page.locator('#pause-state[data-paused="false"]').waitFor();
    assert.deepEqual(problems, []);
  });
});
