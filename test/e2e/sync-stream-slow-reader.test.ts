// A live feed stream far behind, read slowly, over a real socket: its history is sent at the pace
// the client reads it, so it is never cut for being behind. Before, every catch-up page was
// written at once
// and a stream with more than 4 MiB waiting was closed: a client on a slow link was cut again at
// each reconnection.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';
import { startTestService, type TestService } from './support.js';

const RECORDS = 150;
const RAW_BYTES = 90_000;

describe('a live feed stream that reads its history slowly', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
    for (let i = 0; i < RECORDS; i++)
      await seedTransaction(t.service.parts.db, {
        rawTx: new Uint8Array(randomBytes(RAW_BYTES)),
        outputs: [{ owner: party('slow reader').address, amount: 1n }],
      });
  });
  after(() => t?.stop());

  it('gets every record, at its own pace, and is not cut', async () => {
    const target = new URL('/v2/sync/stream?from=0', t.url);
    const ids = await new Promise<string[]>((resolve, reject) => {
      const seen: string[] = [];
      const req = request(target, { headers: { accept: 'text/event-stream' } }, (res) => {
        assert.equal(res.statusCode, 200);
        res.setEncoding('utf8');
        let text = '';
        // Nothing is read for a while: the server must wait, not pile the history up or cut it.
        res.pause();
        setTimeout(() => res.resume(), 1500);
        res.on('data', (chunk: string) => {
          text += chunk;
          const events = text.split('\n\n');
          text = events.pop()!;
          for (const e of events) {
            const id = /^id: (\d+)$/m.exec(e)?.[1];
            if (id !== undefined) seen.push(id);
          }
          if (seen.length >= RECORDS) {
            req.destroy();
            resolve(seen);
          }
          // Slow from here on too: a pause at every chunk.
          res.pause();
          setTimeout(() => res.resume(), 2);
        });
        res.on('close', () => {
          if (seen.length < RECORDS)
            reject(new Error(`the stream closed after ${seen.length} of ${RECORDS}`));
        });
      });
      req.on('error', (err) => {
        if (seen.length < RECORDS) reject(err);
      });
      req.end();
    });
    assert.equal(ids.length, RECORDS);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)),
      'in score order',
    );
  });
});
