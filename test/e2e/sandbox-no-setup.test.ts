// A sandbox with no set-up, over real sockets: a fresh service's faucet sends test tokens to an
// address (anonymous caller), and the reference client made with no apiKey (so it sends its
// built-in sandbox token) transfers them; the faucet's bounds per address and per client address.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import Mnee from '@mnee/ts-sdk';
import { party } from '../support/token-world.js';
import { http } from './e2e-http.js';
import { eventually, redirectClientTo, startTestService, type TestService } from './support.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const ENTRY =
  "import { main } from './src/cli/main.ts'; process.exitCode = await main(process.argv.slice(1));";

/** `tokenproxy ...args` as a child process: its exit code and stdout. */
function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', ENTRY, ...args],
      { cwd: ROOT, env: { ...process.env, TOKENPROXY_DATA_DIR: '' }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });
}

describe('sandbox with no set-up', () => {
  let t: TestService;
  let restore: () => void;
  const alice = party('sandbox alice');
  const bob = party('sandbox bob');
  const carol = party('sandbox carol');
  const dave = party('sandbox dave');

  before(async () => {
    t = await startTestService(['--faucet-per-address-per-day', '2', '--faucet-per-client-per-day', '3']);
    restore = redirectClientTo(t.url);
  });
  after(async () => {
    restore?.();
    await t?.stop();
  });

  it("the faucet funds an address, and the client's default key transfers from it", async () => {
    const granted = await http(t.url, 'POST', '/v2/faucet', { body: { address: alice.address } });
    assert.equal(granted.status, 200, granted.text);
    const answer = granted.json as { ticketId: string; amount: number; tokens: string };
    assert.equal(answer.amount, 1_000_000);
    assert.equal(answer.tokens, '10');
    const mnee = new Mnee({ environment: 'sandbox' }); // no apiKey: its built-in sandbox token
    await eventually(
      async () => ((await mnee.balance(alice.address)).amount === 1_000_000 ? true : undefined),
      'faucet',
    );
    const { ticketId } = await mnee.transfer([{ address: bob.address, amount: 2.5 }], alice.wif);
    assert.ok(ticketId);
    const status = await eventually(async () => {
      const s = await mnee.getTxStatus(ticketId);
      return s.status === 'SUCCESS' || s.status === 'MINED' ? s : undefined;
    }, 'SUCCESS');
    assert.equal(status.id, ticketId);
    assert.equal((await mnee.balance(bob.address)).amount, 250_000);
  });

  it('bounds grants per address and per client address a day (429 FAUCET_LIMIT, Retry-After)', async () => {
    // alice had one grant: one more, then the address bound; carol takes the client's third.
    assert.equal((await http(t.url, 'POST', '/v2/faucet', { body: { address: alice.address } })).status, 200);
    const perAddress = await http(t.url, 'POST', '/v2/faucet', { body: { address: alice.address } });
    assert.equal(perAddress.status, 429);
    assert.equal((perAddress.json as { code: string }).code, 'FAUCET_LIMIT');
    assert.match(perAddress.text, /per address/);
    const retryAfter = Number(perAddress.headers.get('retry-after'));
    assert.ok(retryAfter > 23 * 3600 && retryAfter <= 24 * 3600, `retry-after ${retryAfter}`);
    // carol's grant through the CLI, the client's third.
    const run = await cli(['faucet', carol.address, '--json', '--url', t.url, '--admin-key', t.adminKey]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { address: string }).address, carol.address);
    const perClient = await http(t.url, 'POST', '/v2/faucet', { body: { address: dave.address } });
    assert.equal(perClient.status, 429);
    assert.match(perClient.text, /per client address/);
    const bad = await http(t.url, 'POST', '/v2/faucet', { body: { address: '1NotAnAddress' } });
    assert.equal(bad.status, 400);
  });
});
