// Ticket observability on a running service (all roles, PGlite, devnet), with the service's
// logs captured: every status change of a ticket is one info line (ticketId, txid, from, to),
// once each; time-to-SUCCESS and time-to-MINED histograms count exactly the tickets that got
// there; the callback attempts counter moves by exactly the attempts made, by outcome; and no
// secret (API key, webhook secret, callback secret, operator or wallet private keys, master
// key) appears in any captured line.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { PrivateKey } from '@bsv/sdk';
import pino from 'pino';
import { apiContextOf } from '../../src/compose.js';
import { toHex } from '../../src/domain/script-chunks.js';
import type { RunningService } from '../../src/service.js';
import { TRANSITION_MESSAGE } from '../../src/usecases/report-transitions.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { applyLedgerStatus } from '../../src/usecases/track/apply-ledger-status.js';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { type ServiceInTemp, startServiceIn } from '../support/service-in-temp.js';
import { party } from '../support/token-world.js';
import { http, transferOf, utxosOf } from './e2e-http.js';
import { eventually } from './support.js';

const TOKEN = 'observability-metrics-token';
const CALLBACK_SECRET = 'client-callback-secret-7f3a9c';
const holder = party('observability holder');
const recipient = party('observability recipient');

/** The value of one series in a Prometheus text page (0 when absent). */
function sample(page: string, series: string): number {
  for (const line of page.split('\n'))
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  return 0;
}

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly ticketId?: string;
  readonly txid?: string;
  readonly from?: string | null;
  readonly to?: string;
  readonly reason?: string;
  readonly requestId?: string;
  readonly apiKeyId?: string | null;
  readonly clientAddress?: string;
}

describe('ticket observability (e2e, captured logs)', () => {
  const lines: string[] = [];
  let started: ServiceInTemp | undefined;
  let service: RunningService;
  let url: string;
  let receiver: WebhookReceiver;
  let key: string;
  let webhookSecret: string;

  const scrape = async () =>
    (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const parsed = () => lines.map((l) => JSON.parse(l) as LogLine);
  const transitionsOf = (ticketId: string) =>
    parsed()
      .filter((l) => l.msg === TRANSITION_MESSAGE && l.ticketId === ticketId)
      .map((l) => ({ level: l.level, txid: l.txid, from: l.from, to: l.to, requestId: l.requestId }));
  const mined = async (ids: readonly string[]) => {
    const rows = await service.parts.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM tickets WHERE id = ANY($1::uuid[]) AND status = 'MINED'",
      [ids],
    );
    return Number(rows[0]?.n) === ids.length ? true : undefined;
  };

  before(async () => {
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(line);
        done();
      },
    });
    started = await startServiceIn(
      'observability',
      ['--callback-allow', '127.0.0.1', '--metrics-token', TOKEN, '--tracker-poll-ms', '200'],
      { version: 'test', logger: pino({ level: 'info' }, capture) },
    );
    ({ service, url } = started);
    receiver = await startWebhookReceiver((request) => ({
      status: request.path === '/retry' ? 500 : request.path === '/gone' ? 410 : 204,
    }));
    const created = await http(url, 'POST', '/v2/admin/keys', {
      key: started.adminKey,
      body: { name: 'wallet', scopes: ['read', 'submit'] },
    });
    assert.equal(created.status, 201, created.text);
    ({ key, webhookSecret } = created.json as { key: string; webhookSecret: string });
  });
  after(async () => {
    await started?.stop();
    await receiver?.close();
  });

  it('transfers taken to MINED: one line per transition, histograms and attempts counted exactly', async () => {
    const { parts } = service;
    const mints: string[] = [];
    for (let i = 0; i < 4; i++)
      mints.push(
        (
          await mintTokens(apiContextOf(parts), parts.keys.mint, {
            to: holder.address,
            amount: 10_000n + BigInt(i),
          })
        ).ticketId,
      );
    await parts.devnet!.mine(1);
    await eventually(() => mined(mints), 'the mints MINED');
    const outputs = await eventually(async () => {
      const found = await utxosOf(url, key, holder.address);
      return found.length === 4 ? found : undefined;
    }, 'the minted outputs');
    // Delivered callbacks of the mints (none: no callback URL) are settled before the baseline.
    const before = await scrape();

    const paths = ['/ok', '/ok', '/retry', '/gone'];
    const tickets: string[] = [];
    for (const [i, output] of outputs.entries()) {
      const rawtx = transferOf(parts.ctx.token, {
        from: holder,
        inputs: [output],
        to: recipient,
        amount: 100n,
        fee: 100n,
      });
      const answer = await http(url, 'POST', `/v2/transfer?auth_token=${key}`, {
        body: { rawtx, callback_url: receiver.url(paths[i]), callback_secret: CALLBACK_SECRET },
        headers: { 'x-request-id': `observability-transfer-${i}` },
      });
      assert.equal(answer.status, 200, answer.text);
      tickets.push(answer.text);
    }
    await eventually(async () => {
      await parts.devnet!.mine(1);
      return mined(tickets);
    }, 'the transfers MINED');

    // Callbacks: /ok gets BROADCASTING, SUCCESS, MINED (each delivered at once); /retry got its
    // first event, answered 500, and waits 4 s or more for the retry; /gone answered 410 once.
    const at = (path: string) => receiver.received.filter((r) => r.path === path).length;
    await eventually(
      async () => (at('/ok') === 6 && at('/retry') === 1 && at('/gone') === 1 ? true : undefined),
      'the callbacks',
    );
    const attempts = (page: string, outcome: string) =>
      sample(page, `tokenproxy_callback_delivery_attempts_total{outcome="${outcome}"}`) -
      sample(before, `tokenproxy_callback_delivery_attempts_total{outcome="${outcome}"}`);
    const page = await eventually(async () => {
      const p = await scrape();
      return attempts(p, 'delivered') === 6 && attempts(p, 'retry') === 1 && attempts(p, 'gone') === 1
        ? p
        : undefined;
    }, 'the attempts counted');
    assert.equal(attempts(page, 'failed'), 0);
    assert.equal(at('/retry'), 1, 'no second attempt yet');

    const moved = (series: string) => sample(page, series) - sample(before, series);
    assert.equal(moved('tokenproxy_ticket_time_to_success_seconds_count'), 4);
    assert.equal(moved('tokenproxy_ticket_time_to_mined_seconds_count'), 4);
    assert.ok(moved('tokenproxy_ticket_time_to_mined_seconds_sum') > 0);
    assert.equal(moved('tokenproxy_ticket_time_to_mined_seconds_bucket{le="+Inf"}'), 4);
    assert.match(page, /tokenproxy_ticket_time_to_mined_seconds_bucket\{le="0\.05"\}/);
    // The submission pipeline's batches: the transfers came one at a time, so each was a batch
    // of one at both stages, timed.
    for (const stage of ['lookup', 'commit']) {
      assert.equal(moved(`tokenproxy_submission_batch_size_count{stage="${stage}"}`), 4, stage);
      assert.equal(moved(`tokenproxy_submission_batch_size_sum{stage="${stage}"}`), 4, stage);
      assert.equal(moved(`tokenproxy_submission_batch_size_bucket{le="1",stage="${stage}"}`), 4, stage);
      assert.equal(
        moved(`tokenproxy_submission_batch_duration_seconds_count{stage="${stage}",outcome="ok"}`),
        4,
        stage,
      );
    }

    // Logs: each ticket's transitions, once each, in order, at info, with its txid and the id of
    // the request that created it (the later ones written by the tracker, not in that request).
    for (const [i, id] of tickets.entries()) {
      const seen = transitionsOf(id);
      const txid = seen[0]?.txid;
      const requestId = `observability-transfer-${i}`;
      assert.match(txid ?? '', /^[0-9a-f]{64}$/);
      assert.deepEqual(seen, [
        { level: 30, txid, from: null, to: 'BROADCASTING', requestId },
        { level: 30, txid, from: 'BROADCASTING', to: 'SUCCESS', requestId },
        { level: 30, txid, from: 'SUCCESS', to: 'MINED', requestId },
      ]);
      // That request's own record: who asked (the key's id, never the key) and from where.
      const asked = parsed().find((l) => l.msg === 'request completed' && l.requestId === requestId);
      assert.ok(asked, `the request ${requestId} is logged`);
      assert.match(String(asked.apiKeyId), /^[0-9a-f-]{36}$/);
      assert.equal(asked.clientAddress, '127.0.0.1');
    }
  });

  it('a ticket reorged out and mined again logs both moves but is timed once', async () => {
    const { parts } = service;
    const { ticketId, txid } = await mintTokens(apiContextOf(parts), parts.keys.mint, {
      to: holder.address,
      amount: 9n,
    });
    await parts.devnet!.mine(1);
    await eventually(() => mined([ticketId]), 'the mint MINED');
    const before = await scrape();
    // The tracker's view after a reorg: back in the mempool; then it sees the block again.
    await applyLedgerStatus(parts.ctx, txid, { status: { kind: 'mempool' } });
    await eventually(() => mined([ticketId]), 'MINED again');
    const page = await scrape();
    for (const series of [
      'tokenproxy_ticket_time_to_success_seconds_count',
      'tokenproxy_ticket_time_to_mined_seconds_count',
    ])
      assert.equal(sample(page, series), sample(before, series), series);
    assert.deepEqual(
      transitionsOf(ticketId).map((t) => `${t.from}>${t.to}`),
      ['null>BROADCASTING', 'BROADCASTING>SUCCESS', 'SUCCESS>MINED', 'MINED>SUCCESS', 'SUCCESS>MINED'],
    );
  });

  it('a rejected ticket logs its FAILED transition with the reason, once', async () => {
    const { parts } = service;
    // A mint the network accepted, then reported rejected (as ARC may, on a double spend).
    const { ticketId, txid } = await mintTokens(apiContextOf(parts), parts.keys.mint, {
      to: holder.address,
      amount: 7n,
    });
    await applyLedgerStatus(parts.ctx, txid, { status: { kind: 'rejected', reason: 'test: refused' } });
    const failed = parsed().filter(
      (l) => l.msg === TRANSITION_MESSAGE && l.ticketId === ticketId && l.to === 'FAILED',
    );
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.reason, 'test: refused');
    assert.equal(failed[0]?.from, 'SUCCESS');
  });

  it('no captured line holds a secret', () => {
    const { keys, masterKey } = service.parts;
    const { adminKey } = started!;
    const wif = (k: Uint8Array) => PrivateKey.fromHex(toHex(k)).toWif();
    const secrets: Record<string, string> = {
      'admin key': adminKey,
      'api key': key,
      'webhook secret': webhookSecret,
      'webhook secret body': webhookSecret.slice('whsec_'.length),
      'callback secret': CALLBACK_SECRET,
      'master key': toHex(masterKey),
      'holder private key': toHex(holder.privateKey),
      'holder WIF': holder.wif,
    };
    for (const [name, k] of Object.entries(keys)) {
      if (!(k instanceof Uint8Array) || k.length !== 32) continue;
      secrets[`${name} key`] = toHex(k);
      secrets[`${name} WIF`] = wif(k);
    }
    assert.ok(Object.keys(secrets).length >= 12, Object.keys(secrets).join(', '));
    assert.ok(lines.length > 20, `${lines.length} lines captured`);
    for (const line of lines)
      for (const [name, secret] of Object.entries(secrets))
        assert.ok(!line.toLowerCase().includes(secret.toLowerCase()), `${name} in: ${line}`);
  });
});
