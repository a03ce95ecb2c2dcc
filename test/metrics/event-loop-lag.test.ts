import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeEventLoop, gaugeValue } from '../../bench/batch-metrics.js';
import { createServiceMetrics, EVENT_LOOP_SAMPLE_MS } from '../../src/metrics/service-metrics.js';

describe('event loop lag', () => {
  it("reads the sampling interval on an idle loop: prom-client's figure is the whole interval", async () => {
    const metrics = createServiceMetrics();
    await sleep(10 * EVENT_LOOP_SAMPLE_MS);
    const text = await metrics.registry.metrics();
    // The samples are the intervals between firings of a 20 ms timer: an idle loop's mean is the
    // interval, not 0 (a single sample may come a little early after a late one, the mean not).
    assert.ok(gaugeValue(text, 'nodejs_eventloop_lag_mean_seconds') * 1000 >= EVENT_LOOP_SAMPLE_MS - 1, text);
    metrics.registry.clear();
  });

  it('the benchmarks print the lag beyond the interval', () => {
    const text = [
      'nodejs_eventloop_lag_mean_seconds 0.0223',
      'nodejs_eventloop_lag_p99_seconds 0.0426',
      'nodejs_eventloop_lag_max_seconds 0.0612',
    ].join('\n');
    assert.equal(
      describeEventLoop(text),
      `event loop lag beyond its ${EVENT_LOOP_SAMPLE_MS} ms sampling interval: mean 2.3 ms, p99 22.6 ms, longest 41.2 ms`,
    );
    // Never below zero: a sample a hair early is no negative lag.
    assert.match(
      describeEventLoop('nodejs_eventloop_lag_mean_seconds 0.0199\nnodejs_eventloop_lag_p99_seconds 0.02'),
      /mean 0\.0 ms, p99 0\.0 ms/,
    );
  });
});
