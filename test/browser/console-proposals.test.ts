// The console's Proposals panel (issue 32, "no single key") in Chromium: with a policy holding
// back mints above 1 token, a mint key's mint from the console's form is answered as held for
// approvals; a second mint key sees the proposal in the panel with the policy, approves it with
// one click and the proposal is executed (the API agrees); a rejection closes another.
// Without /usr/bin/chromium the suite is skipped (`apt-get install chromium`), or fails under CI.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { http } from '../e2e/e2e-http.js';
import { startTestService, type TestService } from '../e2e/support.js';
import { type Browser, openChromium, skipWithoutChromium } from '../support/chromium.js';
import { party } from '../support/token-world.js';

describe('console proposals in Chromium', { skip: skipWithoutChromium }, () => {
  let t: TestService;
  let browser: Browser | undefined;
  let page: Page;
  let minterA: string;
  let minterB: string;
  const problems: string[] = [];

  before(async () => {
    t = await startTestService();
    const { parts } = t.service;
    ({ key: minterA } = await createApiKey(parts.db, parts.masterKey, {
      name: 'treasury A',
      scopes: ['mint'],
    }));
    ({ key: minterB } = await createApiKey(parts.db, parts.masterKey, {
      name: 'treasury B',
      scopes: ['mint'],
    }));
    const policy = await http(t.url, 'PUT', '/v2/admin/approvals/policy', {
      key: t.adminKey,
      body: { rules: [{ action: 'mint', approvals: 2, above: '100000' }], reason: 'two treasury keys' },
    });
    assert.equal(policy.status, 200, policy.text);
    browser = await openChromium({
      args: ['--disable-quic', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1440, height: 1000 },
    });
    ({ page } = browser);
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('response', (res) => {
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
    await page.locator('#policy-rules', { hasText: 'mint above 100000' }).waitFor();
  };

  it('a mint above the policy is held; another key approves it in the panel and it runs', async () => {
    const to = party('console proposal mint');
    await signIn(minterA);
    await page.fill('#mint-to', to.address);
    await page.fill('#mint-amount', '5');
    await page.click('#mint-form button[type=submit]');
    await page.locator('#mint-result', { hasText: 'Held for approvals' }).waitFor();
    const open = page.locator('#proposals-table tr[data-state="open"]');
    await open.first().waitFor();
    const id = await open.first().getAttribute('data-proposal');
    assert.ok(id);
    await page.click('#signout');

    await signIn(minterB);
    const row = page.locator(`#proposals-table tr[data-proposal="${id}"]`);
    await row.waitFor();
    await page.fill('#proposal-reason', 'matches invoice 881');
    await row.locator('button[value=approve]').click();
    await page.locator(`#proposals-table tr[data-proposal="${id}"][data-state="executed"]`).waitFor();
    await page.locator('#proposals-result', { hasText: 'executed' }).waitFor();
    const shown = await http(t.url, 'GET', `/v2/admin/proposals/${id}`, { key: t.adminKey });
    const p = shown.json as { state: string; votes: { reason: string }[]; result: { txid?: string } };
    assert.equal(p.state, 'executed');
    assert.equal(p.votes[1]?.reason, 'matches invoice 881');
    assert.equal(typeof p.result.txid, 'string');
    assert.deepEqual(problems, []);
  });

  it("shows the keys' mint allowances", async () => {
    const me = await http(t.url, 'GET', '/v2/admin/whoami', { key: minterA });
    const set = await http(t.url, 'PUT', `/v2/admin/allowances/${(me.json as { id: string }).id}`, {
      key: t.adminKey,
      body: { amount: '1000', reason: 'cap' },
    });
    assert.equal(set.status, 200, set.text);
    await page.locator('#allowances', { hasText: 'may mint 1,000 more' }).waitFor();
  });

  it('a rejection from the panel closes a proposal', async () => {
    const asked = await http(t.url, 'POST', '/v2/admin/mint', {
      key: minterA,
      body: { to: party('console proposal reject').address, amount: '7' },
    });
    assert.equal(asked.status, 202, asked.text);
    const { id } = asked.json as { id: string };
    const row = page.locator(`#proposals-table tr[data-proposal="${id}"]`);
    await row.waitFor();
    await row.locator('button[value=reject]').click();
    await page.locator(`#proposals-table tr[data-proposal="${id}"][data-state="rejected"]`).waitFor();
    assert.deepEqual(problems, []);
  });
});
