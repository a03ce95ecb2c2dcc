// The console's sandbox faucet form in Chromium: signed in with the admin key, test tokens sent
// to an address arrive as its balance; a second grant past the per-address bound shows its code.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { http } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { type Browser, openChromium, skipWithoutChromium } from '../support/chromium.js';
import { party } from '../support/token-world.js';

describe("the console's sandbox faucet in Chromium", { skip: skipWithoutChromium }, () => {
  let t: TestService;
  let browser: Browser | undefined;
  const holder = party(`faucet browser ${randomUUID()}`);

  before(async () => {
    t = await startTestService(['--faucet-per-address-per-day', '1']);
    browser = await openChromium({ viewport: { width: 1280, height: 1000 } });
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('sends test tokens from the form, then shows the bound', async () => {
    const page = browser!.page;
    page.setDefaultTimeout(15_000);
    await page.goto(`${t.url}/console`);
    await page.fill('#signin-key', t.adminKey);
    await page.click('#signin-form button[type=submit]');
    await page.locator('#app').waitFor({ state: 'visible' });
    await page.fill('#faucet-to', holder.address);
    await page.click('#faucet-form button[type=submit]');
    await page.locator('#faucet-result').filter({ hasText: 'Sent 10 test tokens' }).waitFor();
    await eventually(async () => {
      const b = await http(t.url, 'POST', '/v2/balance', { body: [holder.address] });
      return (b.json as { amt: number }[])[0]?.amt === 1_000_000 ? true : undefined;
    }, 'the balance');
    await page.fill('#faucet-to', holder.address);
    await page.click('#faucet-form button[type=submit]');
    await page.locator('#faucet-result.bad').waitFor();
    assert.match((await page.locator('#faucet-result').textContent()) ?? '', /Faucet refused: FAUCET_LIMIT/);
  });
});
