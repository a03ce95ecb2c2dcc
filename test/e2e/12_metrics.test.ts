// /metrics on the running service: behind the admin key or the metrics token; request
// series per route pattern move with traffic; tickets, outbox, funding pool, ledger and
// event-loop series are there and follow what the service does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TICKET_STATUSES } from '../../src/domain/ticket-state.js';
import { startTestService, type TestService } from './support.js';

const TOKEN = 'metrics-token-0123456789';

/** The value of one series (`name{labels}`) in a Prometheus text page; undefined when absent. */
function sample(page: string, series: string): number | undefined {
  for (const line of page.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

describe('metrics (e2e)', () => {
  let t: TestService;
  const scrape = async (auth = `Bearer ${TOKEN}`) => {
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: auth } });
    return { status: res.status, type: res.headers.get('content-type'), page: await res.text() };
  };
  before(async () => {
    t = await startTestService(['--metrics-token', TOKEN]);
  });
  after(async () => {
    await t?.stop();
  });

  it('answers the metrics token and an admin key; refuses no key and a read key', async () => {
    const withToken = await scrape();
    assert.equal(withToken.status, 200);
    assert.match(withToken.type ?? '', /^text\/plain/);
    assert.equal((await scrape(`Bearer ${t.adminKey}`)).status, 200);
    assert.equal((await fetch(`${t.url}/metrics`)).status, 401);
    assert.equal((await scrape('Bearer not-the-token-at-all')).status, 401);
  });

  it('counts requests per route pattern, not per URL, and times them', async () => {
    const series = 'tokenproxy_http_requests_total{method="GET",route="/v1/tx/:txid",status="404"}';
    const before = sample((await scrape()).page, series) ?? 0;
    for (const txid of ['aa', 'bb']) await (await fetch(`${t.url}/v1/tx/${txid.repeat(32)}`)).arrayBuffer();
    const page = (await scrape()).page;
    assert.equal(sample(page, series), before + 2);
    assert.doesNotMatch(page, /route="\/v1\/tx\/aaaa/);
    assert.ok(
      (sample(
        page,
        'tokenproxy_http_request_duration_seconds_count{method="GET",route="/v1/tx/:txid",status="404"}',
      ) ?? 0) >= 2,
    );
    await (await fetch(`${t.url}/no/such/page`)).arrayBuffer();
    const after404 = (await scrape()).page;
    assert.ok(
      (sample(after404, 'tokenproxy_http_requests_total{method="GET",route="unmatched",status="404"}') ??
        0) >= 1,
    );
  });

  it('shows tickets by status, the outbox, the funding pool, ledger round trips and event-loop lag', async () => {
    const page = (await scrape()).page;
    for (const status of TICKET_STATUSES) {
      assert.notEqual(sample(page, `tokenproxy_tickets{status="${status}"}`), undefined, status);
    }
    assert.equal(sample(page, 'tokenproxy_outbox_events{state="pending"}'), 0);
    for (const outcome of ['delivered', 'retry', 'failed', 'gone'])
      assert.equal(sample(page, `tokenproxy_callback_delivery_attempts_total{outcome="${outcome}"}`), 0);
    assert.notEqual(sample(page, 'tokenproxy_ticket_time_to_mined_seconds_count'), undefined);
    assert.notEqual(sample(page, 'tokenproxy_ticket_time_to_success_seconds_count'), undefined);
    const outputs = sample(page, 'tokenproxy_funding_pool_outputs');
    assert.ok(outputs !== undefined && outputs > 0, `pool outputs ${outputs}`);
    assert.ok((sample(page, 'tokenproxy_funding_pool_satoshis') ?? 0) > 0);
    assert.ok(
      (sample(page, 'tokenproxy_ledger_request_duration_seconds_count{operation="broadcast",outcome="ok"}') ??
        0) > 0,
    );
    assert.notEqual(sample(page, 'nodejs_eventloop_lag_seconds'), undefined);
  });

  it('tickets move: a mint shows up as one more ticket', async () => {
    const total = (page: string) =>
      TICKET_STATUSES.map((s) => sample(page, `tokenproxy_tickets{status="${s}"}`) ?? 0).reduce(
        (a, b) => a + b,
        0,
      );
    const before = total((await scrape()).page);
    const res = await fetch(`${t.url}/v2/admin/mint`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH', amount: '1' }),
    });
    assert.equal(res.status, 200, await res.text());
    assert.equal(total((await scrape()).page), before + 1);
  });
});
