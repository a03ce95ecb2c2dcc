// The writer's registration across a restart and beside another writer (ADR 0007): a writer's
// identity is its host and data folder, so one killed and restarted within its lease takes its own
// registration back at once (before: refused, and the tracker in its process with it); a writer
// that finds another's live lease waits, and the other roles of its process run meanwhile.
// Runs only when TEST_DATABASE_URL is set (the writer runs on PostgreSQL).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { writerInstanceOf } from '../../src/roles/writer.js';
import type { RunningService } from '../../src/service.js';
import { holdWriterEntry, liveWriter } from '../../src/store/submissions/writer-registry.js';
import { eventually } from '../e2e/support.js';
import { sharedWorld } from '../support/ledger-world.js';
import { startServiceOn } from '../support/service-in-temp.js';
import { testDatabaseUrl } from '../support/test-databases.js';

describe('the writer takes its own lease back and waits for another', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('writer lease');
  const dirs: string[] = [];
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-writer-lease-'));
    dirs.push(dir);
    return dir;
  };
  const start = (dataDir: string, roles: string): Promise<RunningService> =>
    startServiceOn(dataDir, [
      '--log-level',
      'silent',
      '--database-url',
      world.databaseUrl,
      '--roles',
      roles,
      '--tracker-poll-ms',
      '200',
      ...world.ledger.flags,
    ]);
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a restarted writer takes back the lease its killed run left live', async () => {
    const deployer = await world.start('api');
    const db = deployer.service.parts.db;
    const dataDir = folder();
    // What a writer of this folder killed a moment ago leaves: its registration, live for 10 s.
    const now = new Date();
    const instance = writerInstanceOf(dataDir);
    const left = { url: 'http://127.0.0.1:9/', tokenHash: '00'.repeat(32), instance };
    assert.equal(await holdWriterEntry(db, left, now, new Date(now.getTime() + 10_000)), true);
    const restarted = await start(dataDir, 'tracker,writer');
    try {
      const live = await liveWriter(db, new Date());
      assert.equal(live?.instance, instance, 'the restarted writer holds the registration');
      assert.notEqual(live?.url, left.url, 'under its new address');
    } finally {
      // The next test's other writer needs the registration free.
      await restarted.stop();
    }
  });

  it("another writer's live lease: the process starts, its tracker runs, the writer registers once it lapses", async () => {
    const db = (await world.start('api')).service.parts.db;
    const now = new Date();
    const other = { url: 'http://127.0.0.1:9/', tokenHash: '11'.repeat(32), instance: 'another-writer' };
    assert.equal(await holdWriterEntry(db, other, now, new Date(now.getTime() + 2_000)), true);
    const dataDir = folder();
    // Stopped with the world's instances, while its database and ledger are still there.
    const started = world.own(await start(dataDir, 'tracker,writer'));
    assert.equal(
      (await liveWriter(db, new Date()))?.instance,
      'another-writer',
      'it did not take a live lease',
    );
    assert.ok(started.parts.db !== undefined, 'the process with its tracker runs');
    await eventually(
      async () =>
        (await liveWriter(db, new Date()))?.instance === writerInstanceOf(dataDir) ? true : undefined,
      'the waiting writer registered once the lease lapsed',
      100,
    );
  });
});
