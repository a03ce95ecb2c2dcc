// A process whose operator keys are not those the token was deployed with must refuse to start
// and name the keys that differ (before: it served, and its mints failed BAD_OWNER_SIGNATURE).
// Embedded (PGlite + devnet) on one data folder: the first start deploys with operator A, later
// starts bring other keys.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toHex } from '../../src/domain/script-chunks.js';
import { type Operator, operatorKeyFlags, operatorOf } from '../support/operator-world.js';
import { startServiceOn } from '../support/service-in-temp.js';

function start(dataDir: string, keyFlags: readonly string[]) {
  return startServiceOn(dataDir, ['--log-level', 'silent', ...keyFlags]);
}

/** Operator A with one key (or several) taken from operator B. */
function mixed(a: Operator, b: Operator, names: readonly (keyof Operator)[]): Operator {
  return Object.fromEntries(
    Object.entries(a).map(([name, party]) => [
      name,
      names.includes(name as keyof Operator) ? b[name as keyof Operator] : party,
    ]),
  ) as unknown as Operator;
}

async function refusal(dataDir: string, keyFlags: readonly string[]): Promise<string> {
  try {
    const running = await start(dataDir, keyFlags);
    await running.stop();
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('the start was not refused');
}

describe('operator keys that do not match the deployed token', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-keys-match-'));
  const a = operatorOf('keys match A');
  const b = operatorOf('keys match B');

  before(async () => {
    const first = await start(dataDir, operatorKeyFlags(a));
    await first.stop();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  for (const names of [['approver'], ['mint'], ['fee'], ['funding'], ['mint', 'fee']] as const) {
    it(`refuses to start with another ${names.join(' and ')} key, naming it`, async () => {
      const message = await refusal(dataDir, operatorKeyFlags(mixed(a, b, names)));
      for (const name of ['approver', 'mint', 'fee', 'funding']) {
        const named = new RegExp(`\\b${name} key\\b`).test(message);
        assert.equal(named, (names as readonly string[]).includes(name), `${name} in: ${message}`);
      }
      assert.match(message, /deployed/);
    });
  }

  it('refuses fresh keys (keys.json) on a database deployed with others', async () => {
    const message = await refusal(dataDir, ['--master-key', toHex(a.master.privateKey)]);
    assert.match(message, /approver key/);
    assert.match(message, /funding key/);
  });

  it('still starts with the keys it was deployed with', async () => {
    const again = await start(dataDir, operatorKeyFlags(a));
    assert.equal(typeof again.parts.token.tokenId, 'string');
    await again.stop();
    assert.equal(existsSync(join(dataDir, 'pglite')), true);
  });
});
