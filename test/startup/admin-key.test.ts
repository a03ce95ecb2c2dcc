// The admin key made at first start: one per database, not one per process. A restart whose
// data folder lost admin.key, and a second instance on the same PostgreSQL database with a data
// folder of its own, create none (before: each made another key named "admin"); the service
// says where the key is.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ADMIN_KEY_FILE } from '../../src/service.js';
import type { Db } from '../../src/store/db/db.js';
import { sharedWorld, startInstance } from '../support/ledger-world.js';
import { startServiceOn } from '../support/service-in-temp.js';
import { testDatabaseUrl } from '../support/test-databases.js';

async function adminKeys(db: Db): Promise<number> {
  const rows = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM api_keys WHERE 'admin' = ANY(scopes) AND revoked_at IS NULL",
  );
  return Number(rows[0]!.n);
}

describe('the admin key, embedded', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-admin-key-'));
  const start = () => startServiceOn(dataDir, ['--log-level', 'silent']);
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is made at first start, written to admin.key and reported there', async () => {
    const service = await start();
    try {
      assert.equal(await adminKeys(service.parts.db), 1);
      const path = join(dataDir, ADMIN_KEY_FILE);
      assert.match(readFileSync(path, 'utf8'), /^tp_\S+\n$/);
      assert.deepEqual(service.adminKey, { created: true, path });
    } finally {
      await service.stop();
    }
  });

  it('is not made again when admin.key is gone but the database holds one', async () => {
    rmSync(join(dataDir, ADMIN_KEY_FILE));
    const service = await start();
    try {
      assert.equal(await adminKeys(service.parts.db), 1);
      assert.equal(existsSync(join(dataDir, ADMIN_KEY_FILE)), false);
      assert.deepEqual(service.adminKey, { created: false });
    } finally {
      await service.stop();
    }
  });
});

describe('the admin key, several instances on one PostgreSQL database', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('admin key');

  it('three instances started at once create exactly one, and one of them holds its file', async () => {
    const instances = await Promise.all(
      [1, 2, 3].map(() => startInstance(world.ledger, world.databaseUrl, 'api')),
    );
    try {
      assert.equal(await adminKeys(instances[0]!.service.parts.db), 1);
      const created = instances.filter((i) => i.service.adminKey.created);
      assert.equal(created.length, 1);
      const path = (created[0]!.service.adminKey as { path: string }).path;
      assert.ok(existsSync(path));
    } finally {
      for (const i of instances) await i.stop();
    }
  });

  it('a later instance creates none', async () => {
    const later = await startInstance(world.ledger, world.databaseUrl, 'api');
    try {
      assert.equal(await adminKeys(later.service.parts.db), 1);
      assert.equal(later.service.adminKey.created, false);
    } finally {
      await later.stop();
    }
  });
});
