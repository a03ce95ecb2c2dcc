// The ARC HTTP client's retries leave nothing behind on its long-lived stop signal: every pause
// between attempts listens for close() only while it waits (a minute of ARC down used to pile
// one listener per retry onto it, and Node warned of a leak).
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { ArcHttpClient } from '../../src/ledger/arc/arc-http-client.js';
import { LedgerUnavailableError } from '../../src/ledger/port.js';

const refused: typeof fetch = async () => {
  throw new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
  });
};

describe('ArcHttpClient retries', () => {
  it('keeps no abort listener of its pauses once the request is over', async () => {
    const client = new ArcHttpClient({
      url: 'http://127.0.0.1:9',
      fetch: refused,
      retries: 5,
      retryDelayMs: 1,
    });
    const stop = (client as unknown as { stop: AbortController }).stop.signal;
    for (let i = 0; i < 4; i++)
      await assert.rejects(client.request('GET', '/v1/policy'), LedgerUnavailableError);
    assert.equal(getEventListeners(stop, 'abort').length, 0);
    client.close();
  });

  it('still cuts a pause short on close()', async () => {
    const client = new ArcHttpClient({
      url: 'http://127.0.0.1:9',
      fetch: refused,
      retries: 3,
      retryDelayMs: 60_000,
    });
    const pending = client.request('GET', '/v1/policy');
    await new Promise((r) => setTimeout(r, 50));
    client.close();
    await assert.rejects(pending, LedgerUnavailableError);
  });
});
