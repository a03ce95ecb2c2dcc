// The operator console in a real browser: Debian's Chromium driven by playwright-core against a
// real service (embedded: PGlite + devnet). Sign-in with a wrong key then the right one; the
// panels show what the JSON API says; a mint from the form, a key created and revoked, a block
// mined, searches, an address frozen and unfrozen from the freeze list's form. A screenshot per step goes to test-artifacts/console/.
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
import { party } from '../support/token-world.js';

const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url).pathname;

type Amount = { atomic: number; tokens: string };

/** As the page writes amounts: thousands grouped with commas, the fraction untouched. */
function group(tokens: string): string {
  const [whole = '', fraction] = tokens.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

describe('operator console in Chromium', { skip: skipWithoutChromium }, () => {
  let t: TestService;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];
  const holder = party(`browser ${randomUUID()}`);
  let mintedTxid = '';
  let step = 0;

  const shot = async (name: string) => {
    step += 1;
    await page.screenshot({
      path: join(ARTIFACTS, `${String(step).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    });
  };
  const api = async <T>(method: string, path: string, body?: unknown, key = t.adminKey) => {
    const res = await http(t.url, method, path, { key, ...(body !== undefined && { body }) });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.json as T;
  };
  const attr = (selector: string, name: string) => page.locator(selector).getAttribute(name);
  const text = async (selector: string) => (await page.locator(selector).textContent()) ?? '';

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestService();
    browser = await openChromium({
      args: ['--disable-quic', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1440, height: 1000 },
    });
    ({ page } = browser);
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      // 4xx answers (wrong key, refused mint, bad search) are logged as failed resources: expected
      if (msg.type() === 'error' && !/^Failed to load resource/.test(msg.text()))
        problems.push(`console: ${msg.text()}`);
    });
    page.on('response', (res) => {
      const path = new URL(res.url()).pathname;
      // The icon too: a browser asks for /favicon.ico on every page.
      if (res.status() === 404) problems.push(`404: ${path}`);
      if (res.status() >= 500) problems.push(`${res.status()}: ${path}`);
    });
  });

  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('refuses a wrong key with an error and shows no data', async () => {
    await page.goto(`${t.url}/console`);
    await shot('signin');
    await page.fill('#signin-key', 'tp_not_a_key');
    await page.click('#signin-form button[type=submit]');
    await page.locator('#signin-error').waitFor({ state: 'visible' });
    assert.match(await text('#signin-error'), /refused.*Invalid API key/);
    assert.equal(await page.locator('#app').isVisible(), false);
    assert.equal(await text('#supply-circulating'), '–');
    await shot('wrong-key');
  });

  it('signs in with the admin key and shows the supply and funding the API reports', async () => {
    await page.fill('#signin-key', t.adminKey);
    await page.click('#signin-form button[type=submit]');
    await page.locator('#app').waitFor({ state: 'visible' });
    await page.locator('#supply-circulating[data-atomic]').waitFor();
    await page.locator('#funding-available').filter({ hasNotText: '–' }).waitFor();
    assert.equal(await page.locator('#signin-error').isVisible(), false);
    const supply = await api<Record<string, Amount>>('GET', '/v2/admin/console/supply');
    for (const name of ['genesis', 'circulating', 'treasury', 'burned', 'redeemed']) {
      assert.equal(await attr(`#supply-${name}`, 'data-atomic'), String(supply[name]!.atomic), name);
      assert.equal(await text(`#supply-${name}`), group(supply[name]!.tokens), name);
    }
    const funding = await api<{
      outputs: { available: number; reserved: number };
      satoshis: { available: number };
      transfersLeft: number;
      level: string;
      address: string;
    }>('GET', '/v2/admin/console/funding');
    assert.equal(await text('#funding-available'), String(funding.outputs.available));
    assert.equal(await text('#funding-satoshis'), group(String(funding.satoshis.available)));
    assert.equal(await text('#funding-left'), group(String(funding.transfersLeft)));
    assert.equal((await text('#funding-level')).toLowerCase(), funding.level);
    assert.equal(await text('#funding-address'), funding.address);
    assert.equal(await page.locator('#supply-charts svg polyline').count(), 3);
    await shot('signed-in');
  });

  it('mints from the form: the balance is the amount and the supply panel moves', async () => {
    const before = Number(await attr('#supply-circulating', 'data-atomic'));
    await page.fill('#mint-to', holder.address);
    await page.fill('#mint-amount', '17.25');
    await page.click('#mint-form button[type=submit]');
    await page.locator('#mint-result[data-txid]').waitFor();
    mintedTxid = (await attr('#mint-result', 'data-txid')) ?? '';
    assert.match(mintedTxid, /^[0-9a-f]{64}$/);
    const balance = await api<{ address: string; amt: number }[]>('POST', '/v2/balance', [holder.address]);
    assert.deepEqual(balance, [{ address: holder.address, amt: 1_725_000, precised: 17.25 }]);
    await page.locator(`#supply-circulating[data-atomic="${before + 1_725_000}"]`).waitFor();
    const supply = await api<Record<string, Amount>>('GET', '/v2/admin/console/supply');
    assert.equal(await text('#supply-circulating'), group(supply.circulating!.tokens));
    await shot('minted');
  });

  it('a refused mint shows its error code', async () => {
    await page.fill('#mint-to', 'not-an-address');
    await page.fill('#mint-amount', '1');
    await page.click('#mint-form button[type=submit]');
    await page.locator('#mint-result.bad').waitFor();
    assert.match(await text('#mint-result'), /Mint refused: INVALID_(ADDRESS|REQUEST|PARAMETER)/);
  });

  it('creates a key (shown once), then revokes it: the API refuses it', async () => {
    const name = '<b>browser</b> key';
    await page.fill('#key-name', name);
    await page.uncheck('#key-form input[value=submit]');
    await page.click('#key-form button[type=submit]');
    await page.locator('#key-created').waitFor({ state: 'visible' });
    const key = await text('#key-created-value');
    const id = (await attr('#key-created', 'data-key-id')) ?? '';
    assert.match(key, /^\S{20,}$/);
    assert.equal((await http(t.url, 'GET', '/v1/config', { key })).status, 200);
    const row = page.locator(`#keys-table tr[data-key-id="${id}"]`);
    await row.waitFor();
    assert.equal(await row.locator('td').first().textContent(), name, 'the name is shown as text');
    assert.equal(await page.locator('#keys-table b').count(), 0, 'no markup from data');
    assert.equal(await row.locator('td').nth(2).textContent(), 'read');
    await shot('key-created');
    await page.click('#key-created-done');
    assert.equal(await text('#key-created-value'), '');
    await row.locator('button').click();
    assert.equal(await row.locator('button').textContent(), 'Confirm revoke');
    await row.locator('button').click();
    await page.locator(`#keys-table tr.revoked[data-key-id="${id}"]`).waitFor();
    assert.equal((await http(t.url, 'GET', '/v1/config', { key })).status, 401);
    await shot('key-revoked');
  });

  it('mines a block: the tip height goes up by one', async () => {
    await page.locator('#mine-box').waitFor({ state: 'visible' });
    const before = Number(await text('#chain-height'));
    await page.click('#mine-button');
    await page
      .locator('#chain-height')
      .filter({ hasText: new RegExp(`^${before + 1}$`) })
      .waitFor();
    const chain = await api<{ tip: { height: number } }>('GET', '/v2/admin/console/chain');
    assert.equal(chain.tip.height, before + 1);
    assert.match(await text('#mine-result'), new RegExp(`Mined block ${before + 1}`));
    await shot('mined');
  });

  it('searches the minted txid and the address', async () => {
    await eventually(async () => {
      const r = await api<{ ticket: { status: string } | null }>(
        'GET',
        `/v2/admin/console/search?q=${mintedTxid}`,
      );
      return r.ticket?.status === 'MINED' ? true : undefined;
    }, 'the mint ticket mined');
    await page.fill('#search-q', mintedTxid);
    await page.click('#search-form button[type=submit]');
    await page.locator('#search-kind[data-kind="txid"]').waitFor();
    assert.equal(await attr('#search-kind', 'data-found'), 'true');
    const result = await text('#search-result');
    assert.ok(result.includes(mintedTxid));
    assert.ok(result.includes(holder.address));
    assert.match(result, /MINED/, 'the ticket of the mint, mined by the block above');
    await shot('search-txid');

    await page.fill('#search-q', holder.address);
    await page.click('#search-form button[type=submit]');
    await page.locator('#search-kind[data-kind="address"]').waitFor();
    assert.equal(await attr('#search-balance', 'data-atomic'), '1725000');
    assert.equal(await text('#search-balance'), '17.25');
    await shot('search-address');

    await page.fill('#search-q', 'nonsense');
    await page.click('#search-form button[type=submit]');
    await page.locator('#search-error').waitFor({ state: 'visible' });
    assert.match(await text('#search-error'), /^INVALID_PARAMETER: /);
  });

  it('freezes the holder from the form: the list shows what it holds; a transfer is refused; unfreezes', async () => {
    await page.fill('#freeze-address', holder.address);
    await page.fill('#freeze-reason', 'reported stolen <i>case</i> 9');
    await page.click('#freeze-button');
    const row = page.locator(`#freezes-table tr[data-address="${holder.address}"]`);
    await row.waitFor();
    assert.match(await text('#freeze-result'), /^Frozen: /);
    assert.equal(await row.locator('td').nth(1).getAttribute('data-atomic'), '1725000');
    assert.equal(await row.locator('td').nth(1).textContent(), '17.25');
    assert.equal(
      await row.locator('td').nth(2).textContent(),
      'reported stolen <i>case</i> 9',
      'reason as text',
    );
    assert.equal(await page.locator('#freezes-panel i').count(), 0, 'no markup from data');
    assert.equal(await attr('#freezes-total', 'data-atomic'), '1725000');
    const listed = await api<{ frozen: { address: string; frozenBy: string }[] }>('GET', '/v2/admin/freezes');
    assert.deepEqual(
      listed.frozen.map((f) => f.address),
      [holder.address],
    );
    // "By" names the admin key (its id on hover), not its UUID.
    const keys = await api<{ keys: { id: string; name: string }[] }>('GET', '/v2/admin/keys');
    const by = keys.keys.find((k) => k.id === listed.frozen[0]!.frozenBy)!;
    assert.ok(by, 'the freezing key is listed');
    await row.locator('td').nth(3).filter({ hasText: by.name }).waitFor();
    assert.equal(await row.locator('td').nth(3).textContent(), by.name);
    assert.equal(await row.locator('td').nth(3).getAttribute('title'), by.id);
    await page.locator('#freeze-events tr[data-action="freeze"]').waitFor();
    const minted = await http(t.url, 'POST', '/v2/admin/mint', {
      key: t.adminKey,
      body: { to: holder.address, amount: '1' },
    });
    assert.equal(minted.status, 403, minted.text);
    await shot('frozen');

    await page.fill('#freeze-reason', 'no reason?');
    await page.fill('#freeze-address', 'not-an-address');
    await page.click('#freeze-button');
    await page.locator('#freeze-result.bad').waitFor();
    assert.match(await text('#freeze-result'), /^Freeze refused: INVALID_ADDRESS/);

    await row.locator('button').click();
    assert.equal(await page.inputValue('#freeze-address'), holder.address);
    await page.fill('#freeze-reason', 'returned to its owner');
    await page.click('#unfreeze-button');
    await page.locator('#freezes-table tr[data-address]').waitFor({ state: 'detached' });
    assert.match(await text('#freeze-result'), /^Unfrozen: /);
    await page.locator('#freeze-events tr[data-action="unfreeze"]').waitFor();
    const after = await api<{ frozen: unknown[]; events: { action: string; reason: string }[] }>(
      'GET',
      '/v2/admin/freezes',
    );
    assert.equal(after.frozen.length, 0);
    assert.deepEqual(
      after.events.map((e) => [e.action, e.reason]),
      [
        ['unfreeze', 'returned to its owner'],
        ['freeze', 'reported stolen <i>case</i> 9'],
      ],
    );
    await shot('unfrozen');
  });

  it('with no delivery yet, the 24 h delivery charts span the day, not a second', async () => {
    const d = await api<{ attempts: number; history: { points: { at: number }[] } }>(
      'GET',
      '/v2/admin/console/deliveries',
    );
    assert.equal(d.attempts, 0, 'this service delivered nothing');
    assert.ok(d.history.points[0]!.at <= Date.now() / 1000 - 23 * 3600, 'the trend starts a day ago');
    const ticks = (await page.evaluate(
      `[...document.querySelectorAll('#deliveries-charts text.x-tick')].map((n) => n.textContent)`,
    )) as string[];
    assert.ok(ticks.length >= 4, ticks.join(' '));
    for (const tick of ticks)
      assert.match(tick, /^(\d\d-\d\d )?\d\d:\d\d$/, `hours of the day, not seconds: ${ticks}`);
  });

  it('at 390 px the API keys table scrolls inside its panel', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const box = (await page.evaluate(`(() => {
        const panel = document.getElementById('keys-panel').getBoundingClientRect();
        const table = document.querySelector('#keys-panel table');
        return { panelHeight: panel.height, panelRight: panel.right, scroll: table.scrollWidth, client: table.clientWidth };
      })()`)) as { panelHeight: number; panelRight: number; scroll: number; client: number };
      assert.ok(box.panelHeight < 700, `the keys panel is ${box.panelHeight}px tall`);
      assert.ok(box.panelRight <= 390, 'the panel stays on the screen');
      assert.ok(box.scroll > box.client, `the table scrolls (${box.scroll} > ${box.client})`);
      await page.locator('#keys-panel').screenshot({ path: join(ARTIFACTS, 'keys-phone.png') });
    } finally {
      await page.setViewportSize({ width: 1440, height: 1000 });
    }
  });

  it('signs out, and the page loaded without errors or CSP violations', async () => {
    await page.click('#signout');
    await page.locator('#signin').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#app').isVisible(), false);
    assert.equal(await page.evaluate('sessionStorage.length'), 0);
    assert.deepEqual(problems, []);
  });
});
