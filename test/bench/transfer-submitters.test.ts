// The transfer benchmarks' submitters: the warm-up's transfers are answered and mined like the
// rest, but none of them counts in the measured window's figures (its rate, its latencies).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { batchFiguresOf, SLOW_BATCH_SECONDS } from '../../bench/batch-metrics.js';
import { submitTransfers } from '../../bench/transfer-submitters.js';

describe('bench: transfer submitters', () => {
  // A stand-in service over a real socket: the first requests are slow (a cold start), the
  // rest fast; every answer is the request's body, so each ticket can be told apart.
  let answered = 0;
  // Requests that arrive before this instant (Date.now()) are all answered then: a stall.
  let stalledUntil = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      const cold = answered++ < 4;
      setTimeout(() => res.end(body), Math.max(cold ? 300 : 2, stalledUntil - Date.now()));
    });
  });
  let url = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('leaves the warm-up out of the measured figures and opens the window once', async () => {
    answered = 0;
    const bodies = Array.from({ length: 20_000 }, (_, i) => `{"ticketId":"t${i}"}`);
    let opened = 0;
    const run = await submitTransfers({
      url,
      authorization: 'Bearer x',
      bodies,
      warmupSeconds: 0.5,
      seconds: 0.5,
      concurrency: 4,
      onMeasuring: () => {
        opened++;
      },
    });
    assert.equal(opened, 1);
    // The four cold answers (300 ms) fell in the warm-up; the window saw fast ones only.
    assert.ok(run.warmup.maxMs >= 290, `warm-up slowest ${run.warmup.maxMs}`);
    assert.ok(run.warmup.transfers >= 4);
    assert.ok(run.latencies.length > 0);
    assert.ok(run.latencies.at(-1)! < 290, `measured slowest ${run.latencies.at(-1)}`);
    // Every answer is kept for mining, the warm-up's too, each once.
    assert.equal(run.ticketIds.length, run.warmup.transfers + run.latencies.length);
    assert.equal(new Set(run.ticketIds).size, run.ticketIds.length);
    assert.ok(run.seconds > 0.4 && run.seconds < 2, `window ${run.seconds} s`);
    assert.equal(run.ranOut, false);
  });

  it('sends at the arrival rate in the open loop, however fast the answers come', async () => {
    answered = 10;
    const bodies = Array.from({ length: 20_000 }, (_, i) => `{"ticketId":"t${i}"}`);
    const run = await submitTransfers({
      url,
      authorization: 'Bearer x',
      bodies,
      warmupSeconds: 0.2,
      seconds: 0.6,
      concurrency: 8,
      arrivalRate: 100,
    });
    // The window opens 2 s after the (empty) backlog drained, at 0.2 s: 100 a second for 2.8 s is
    // 280 sent, where 8 closed loops on 2 ms answers would send thousands; 60 in the window.
    const sent = run.ticketIds.length;
    assert.ok(sent >= 270 && sent <= 282, `sent ${sent}`);
    assert.ok(run.latencies.length >= 55 && run.latencies.length <= 61, `measured ${run.latencies.length}`);
    assert.ok(run.warmup.seconds >= 2.15 && run.warmup.seconds < 2.5, `warm-up ${run.warmup.seconds} s`);
  });

  it('opens the open loop window only once a stall has been answered and drained', async () => {
    answered = 10;
    stalledUntil = Date.now() + 1000;
    const bodies = Array.from({ length: 20_000 }, (_, i) => `{"ticketId":"t${i}"}`);
    try {
      const run = await submitTransfers({
        url,
        authorization: 'Bearer x',
        bodies,
        warmupSeconds: 0.5,
        seconds: 0.5,
        concurrency: 8,
        arrivalRate: 100,
      });
      // Nothing is answered for the first second: the backlog drains at about 1 s, the window
      // opens 2 s later, and none of the stall's slow answers is measured.
      assert.ok(run.warmup.seconds >= 2.9, `warm-up ${run.warmup.seconds} s`);
      assert.ok(run.warmup.maxMs >= 700, `warm-up slowest ${run.warmup.maxMs}`);
      assert.ok(run.latencies.at(-1)! < 200, `measured slowest ${run.latencies.at(-1)}`);
    } finally {
      stalledUntil = 0;
    }
  });

  it('refuses a run whose transfers ran out before the window opened', async () => {
    answered = 10;
    await assert.rejects(
      submitTransfers({
        url,
        authorization: 'Bearer x',
        bodies: ['{}', '{}'],
        warmupSeconds: 5,
        seconds: 1,
        concurrency: 2,
      }),
      /ran out during the warm-up/,
    );
  });
});

describe('bench: batch figures between two scrapes', () => {
  const scrape = (count: number, size: number, seconds: number, quick = count) =>
    [
      `tokenproxy_submission_batch_size_sum{stage="commit",outcome="ok"} ${size}`,
      `tokenproxy_submission_batch_size_count{stage="commit",outcome="ok"} ${count}`,
      `tokenproxy_submission_batch_duration_seconds_bucket{stage="commit",outcome="ok",le="0.01"} ${quick - 1}`,
      `tokenproxy_submission_batch_duration_seconds_bucket{stage="commit",outcome="ok",le="${SLOW_BATCH_SECONDS}"} ${quick}`,
      `tokenproxy_submission_batch_duration_seconds_bucket{stage="commit",outcome="ok",le="+Inf"} ${count}`,
      `tokenproxy_submission_batch_duration_seconds_sum{stage="commit",outcome="ok"} ${seconds}`,
      `tokenproxy_submission_batch_duration_seconds_count{stage="commit",outcome="ok"} ${count}`,
    ].join('\n');

  it('counts only the batches after the first scrape', () => {
    const [since] = batchFiguresOf(scrape(30, 330, 3), scrape(10, 30, 1));
    assert.deepEqual(since, { stage: 'commit', batches: 20, meanSize: 15, meanMs: 100, slow: 0 });
    const [all] = batchFiguresOf(scrape(30, 330, 3));
    assert.deepEqual(all, { stage: 'commit', batches: 30, meanSize: 11, meanMs: 100, slow: 0 });
  });

  it('counts the batches slower than the slow bound, from its bucket', () => {
    const [since] = batchFiguresOf(scrape(30, 330, 3, 26), scrape(10, 30, 1, 9));
    assert.equal(since?.slow, 3);
  });
});
