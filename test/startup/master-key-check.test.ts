// A master key other than the one the deployment's secrets were sealed with refuses the start,
// naming both keys by their ids (before: it started and served, and the webhook and callback
// secrets sealed under the first could not be opened). A start refused for its keys writes no key
// file into its data folder. Embedded (PGlite + devnet) on one data folder.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toHex } from '../../src/domain/script-chunks.js';
import { masterKeyId } from '../../src/keys/master-key-check.js';
import { operatorKeyFlags, operatorOf } from '../support/operator-world.js';
import { startServiceOn } from '../support/service-in-temp.js';
import { party } from '../support/token-world.js';

async function refusal(dataDir: string, flags: readonly string[]): Promise<string> {
  try {
    const running = await startServiceOn(dataDir, ['--log-level', 'silent', ...flags]);
    await running.stop();
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('the start was not refused');
}

describe('the master key of the first start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-master-check-'));
  const operator = operatorOf('master check');
  const other = party('master check other master');

  before(async () => {
    const first = await startServiceOn(dataDir, ['--log-level', 'silent', ...operatorKeyFlags(operator)]);
    await first.stop();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses another master key, naming both keys', async () => {
    const flags = [...operatorKeyFlags(operator), '--master-key', toHex(other.privateKey)];
    const message = await refusal(dataDir, flags);
    assert.match(message, /master key/);
    assert.ok(message.includes(masterKeyId(other.privateKey)), `the key given, in: ${message}`);
    assert.ok(message.includes(masterKeyId(operator.master.privateKey)), `the first key, in: ${message}`);
    assert.match(message, /TOKENPROXY_MASTER_KEY/);
  });

  it('a start with fresh keys (no key flags) is refused and writes neither keys.json nor master.key', async () => {
    // A sandbox start on PostgreSQL is another data folder on the same database; on PGlite the
    // database is the folder, so the first start's folder stands in for it here.
    assert.equal(existsSync(join(dataDir, 'keys.json')), false, 'the first start had its keys from flags');
    const message = await refusal(dataDir, []);
    assert.match(message, /deployed/);
    assert.equal(existsSync(join(dataDir, 'keys.json')), false, 'no keys.json written');
    assert.equal(existsSync(join(dataDir, 'master.key')), false, 'no master.key written');
  });

  it('still starts with the master key of the first start', async () => {
    const again = await startServiceOn(dataDir, ['--log-level', 'silent', ...operatorKeyFlags(operator)]);
    assert.equal(typeof again.parts.token.tokenId, 'string');
    await again.stop();
  });
});
