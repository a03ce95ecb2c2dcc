// The live feed's stream limits against a burst, on PostgreSQL (its reads yield to other
// requests, as PGlite's do not): requests that arrive together, each reading the feed's tip
// before it streams, pass no more than the limit between them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningService } from '../../src/service.js';
import { startServiceOn } from '../support/service-in-temp.js';
import { SseStream } from '../support/sse-client.js';
import { freshDatabase, testDatabaseUrl } from '../support/test-databases.js';

describe('live feed stream limits under a burst, on PostgreSQL', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-stream-burst-'));
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let service: RunningService;
  const streams: SseStream[] = [];

  before(async () => {
    database = await freshDatabase(testDatabaseUrl!, 'streamburst');
    service = await startServiceOn(dataDir, [
      '--port',
      '0',
      '--database-url',
      database.url,
      '--log-level',
      'error',
      '--stream-max-per-client',
      '4',
    ]);
  });
  after(async () => {
    for (const s of streams) s.close();
    await service?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens at most the limit of streams a client asks for at once', async () => {
    streams.push(...Array.from({ length: 16 }, () => new SseStream(`${service.url}/v2/sync/stream`)));
    await Promise.all(streams.map((s) => s.until(() => s.status !== 0, 10_000, 'an answer')));
    assert.equal(streams.filter((s) => s.status === 200).length, 4);
    assert.equal(streams.filter((s) => s.status === 429).length, 12);
  });
});
