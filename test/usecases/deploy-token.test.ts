// Deploy-or-load under the deploy lock: two starts at once on an empty database deploy the
// token once (one broadcast, one ticket, one feed record), the other finds it; a later start
// loads it without asking for a coin. On PGlite, and on PostgreSQL (two pools on one schema,
// as two processes would be) when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hash160 } from '../../src/crypto/hash.js';
import { uuidv7 } from '../../src/crypto/random-id.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import { addressesOf, type OperatorKeys } from '../../src/keys/operator-keys.js';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import type { Db } from '../../src/store/db/db.js';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import {
  type DeployDeps,
  devnetFundingCoin,
  type FundingCoin,
  loadOrDeployToken,
} from '../../src/usecases/supply/deploy-token.js';
import { testDatabaseUrl, testTargets } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

const keys: OperatorKeys = {
  approver: party('deploy approver').privateKey,
  mint: party('deploy mint').privateKey,
  fee: party('deploy fee').privateKey,
  funding: party('deploy funding').privateKey,
};
const TOKEN = { supply: 1_000_000_000n, symbol: 'DPL', icon: '', decimals: 5 };

/** The devnet, its broadcasts recorded and each held back a little so that starts overlap. */
async function slowLedger(): Promise<{ devnet: Devnet; broadcasts: string[] }> {
  const devnet = await createDevnet({
    genesis: [
      { lockingScript: buildP2pkhScript(hash160(party('deploy funding').publicKey)), satoshis: 10n ** 9n },
    ],
    blockIntervalMs: 0,
  });
  const broadcasts: string[] = [];
  const slow: Devnet = new Proxy(devnet, {
    get(target, name, receiver) {
      if (name !== 'broadcast') return Reflect.get(target, name, receiver);
      return async (raw: Uint8Array) => {
        await new Promise((r) => setTimeout(r, 50));
        const result = await target.broadcast(raw);
        broadcasts.push(result.txid);
        return result;
      };
    },
  });
  return { devnet: slow, broadcasts };
}

function depsOf(db: Db, devnet: Devnet): DeployDeps {
  return {
    db,
    ledger: devnet,
    keys,
    addresses: addressesOf(keys),
    feeRate: 100n,
    now: () => new Date(),
    newId: uuidv7,
  };
}

for (const target of testTargets()) {
  describe(`loadOrDeployToken (${target.name})`, () => {
    it('two starts at once deploy once; both get the same token', async () => {
      const fresh = await target.fresh();
      const { devnet, broadcasts } = await slowLedger();
      // On PostgreSQL, a second pool on the same schema stands for a second process.
      const other =
        target.name === 'postgres'
          ? await openPostgresDb(testDatabaseUrl!, { schema: fresh.schema!, max: 2 })
          : fresh.db;
      try {
        const coinOf = (): FundingCoin => devnetFundingCoin(devnet, keys.funding);
        const [a, b] = await Promise.all([
          loadOrDeployToken(depsOf(fresh.db, devnet), TOKEN, coinOf),
          loadOrDeployToken(depsOf(other, devnet), TOKEN, coinOf),
        ]);
        assert.equal(a.settings.tokenId, b.settings.tokenId);
        assert.deepEqual(
          [a.deployed, b.deployed].sort(),
          [false, true],
          'one of them deployed, the other found it',
        );
        assert.deepEqual(broadcasts, [a.settings.tokenId.split('_')[0]]);
        const count = async (table: string) =>
          Number((await fresh.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
        assert.equal(await count('tickets'), 1);
        assert.equal(await count('transactions'), 1);

        // A later start loads it, and does not ask for a coin.
        const again = await loadOrDeployToken(depsOf(fresh.db, devnet), TOKEN, () => {
          throw new Error('asked for a coin with a token recorded');
        });
        assert.deepEqual(again, { settings: a.settings, deployed: false });
        assert.equal(broadcasts.length, 1);
      } finally {
        if (other !== fresh.db) await other.close();
        await devnet.close();
        await fresh.dispose();
      }
    });
  });
}
