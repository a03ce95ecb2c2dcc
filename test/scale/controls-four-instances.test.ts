// Issue 32 across instances: four api instances and a tracker on one PostgreSQL database. A
// pause made through one instance refuses the next transfer on every instance, and so does a
// blacklisting; unpaused and delisted, every instance cosigns again. The bound the docs state:
// a control committed in the database applies to every submission batch whose look-ups start
// after it (the look-ups statement reads it), on every instance: no cache to wait out.
// Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { assertProblem, http, transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually } from '../e2e/support.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

const HOLDERS = Array.from({ length: 4 }, (_, i) => party(`controls scale holder ${i}`));
const TO = party('controls scale recipient');

describe('issuer controls on four api instances', { skip: testDatabaseUrl === undefined }, () => {
  const world = sharedWorld('controls scale');
  const instances: Instance[] = [];
  let key: string;
  let adminKey: string;

  before(async () => {
    instances.push(await world.start('api'));
    await world.ledger.devnet.mine(1);
    await world.start('tracker');
    for (let i = 0; i < 3; i++) instances.push(await world.start('api'));
    const first = instances[0]!.service.parts;
    key = (await createApiKey(first.db, first.masterKey, { name: 'wallets', scopes: ['read', 'submit'] }))
      .key;
    adminKey = (await createApiKey(first.db, first.masterKey, { name: 'issuer', scopes: ['admin'] })).key;
    // Each holder gets outputs enough for three transfers (one per phase below).
    for (const h of HOLDERS)
      for (let i = 0; i < 3; i++)
        await mintTokens(apiContextOf(first), first.keys.mint, { to: h.address, amount: 10_000n });
    await world.ledger.devnet.mine(1);
    await eventually(
      async () =>
        (await utxosOf(instances[0]!.url, key, HOLDERS[3]!.address)).length === 3 ? true : undefined,
      'minted',
      300,
    );
  });

  /** Holder i sends through instance i, spending one output of its own. */
  const sendEach = (to = TO) =>
    Promise.all(
      instances.map(async (instance, i) => {
        const holder = HOLDERS[i]!;
        const [output] = await utxosOf(instance.url, key, holder.address);
        const rawtx = transferOf(instances[0]!.service.parts.ctx.token, {
          from: holder,
          inputs: [output!],
          to,
          amount: 1_000n,
          fee: 100n,
        });
        return http(instance.url, 'POST', '/v2/transfer', { key, body: { rawtx } });
      }),
    );

  it('a pause through one instance refuses the next transfer on all four; unpaused, all cosign', async () => {
    const paused = await http(instances[1]!.url, 'PUT', '/v2/admin/pause', {
      key: adminKey,
      body: { paused: true, reason: 'scale drill' },
    });
    assert.equal(paused.status, 200, paused.text);
    for (const answer of await sendEach()) assertProblem(answer, 403, 'TRANSFERS_PAUSED');
    const un = await http(instances[2]!.url, 'PUT', '/v2/admin/pause', {
      key: adminKey,
      body: { paused: false, reason: 'drill over' },
    });
    assert.equal(un.status, 200, un.text);
    for (const answer of await sendEach()) assert.equal(answer.status, 200, answer.text);
  });

  it('a blacklisting through one instance refuses transfers paying it on all four', async () => {
    const listed = party('controls scale listed');
    const added = await http(instances[3]!.url, 'POST', '/v2/admin/blacklist', {
      key: adminKey,
      body: { address: listed.address, reason: 'scale drill' },
    });
    assert.equal(added.status, 201, added.text);
    for (const answer of await sendEach(listed)) assertProblem(answer, 403, 'ADDRESS_BLACKLISTED');
  });
});
