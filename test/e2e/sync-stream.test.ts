// The live change feed (GET /v2/sync/stream) over real sockets: what a stream delivers is
// exactly what /v1/sync pages through (whole token and per address), a stream resumed with
// Last-Event-ID continues with none twice and none skipped, also on a restarted instance;
// heartbeats; CORS; the bounds per client address and per key (429 STREAM_LIMIT).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { REFERENCE_CLIENT_TOKENS } from '../../src/http/well-known-tokens.js';
import type { RunningService } from '../../src/service.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { startServiceOn } from '../support/service-in-temp.js';
import { SseStream } from '../support/sse-client.js';
import { party } from '../support/token-world.js';
import { http } from './e2e-http.js';

interface Rec {
  readonly txid: string;
  readonly score: number;
  readonly height: number;
  readonly senders: string[];
  readonly receivers: string[];
}

const FLAGS = [
  '--port',
  '0',
  '--block-interval-ms',
  '0',
  '--log-level',
  'error',
  '--stream-heartbeat-ms',
  '1000',
  '--stream-max-per-client',
  '6',
  '--stream-max-per-key',
  '3',
];

/** Every record GET /v1/sync pages through (from inclusive), in score order. */
async function syncAll(url: string): Promise<Rec[]> {
  const out: Rec[] = [];
  for (;;) {
    const from = (out.at(-1)?.score ?? -1) + 1;
    const page = await http(url, 'GET', `/v1/sync?from=${from}&limit=7`);
    assert.equal(page.status, 200, page.text);
    const list = page.json as Rec[];
    if (list.length === 0) return out;
    out.push(...list);
  }
}

/** The records POST /v1/sync answers for some addresses, in score order. */
async function syncOf(url: string, addresses: string[]): Promise<Rec[]> {
  const answer = await http(url, 'POST', '/v1/sync', { body: addresses });
  assert.equal(answer.status, 200, answer.text);
  return answer.json as Rec[];
}

const recordsOf = (s: SseStream) =>
  s.events.map((e) => {
    const r = JSON.parse(e.data) as Rec;
    assert.equal(e.id, String(r.score), 'the SSE id is the score');
    return r;
  });
const keyOf = (r: Rec) => `${r.score}:${r.txid}:${r.height}`;

/**
 * What a stream read comes to, as /v1/sync pages it at the end: a record gets a new score at each
 * change (seen, mined), so a stream that was open meanwhile also carried the earlier versions.
 * Its scores rise strictly (none twice), and each transaction's last version, in score order, is
 * exactly what /v1/sync answers (none skipped).
 */
function latestOf(records: readonly Rec[]): string[] {
  for (let i = 1; i < records.length; i++)
    assert.ok(
      records[i]!.score > records[i - 1]!.score,
      `scores rise: ${records[i - 1]!.score} then ${records[i]!.score}`,
    );
  const last = new Map<string, Rec>();
  for (const r of records) {
    last.delete(r.txid);
    last.set(r.txid, r);
  }
  return [...last.values()].map(keyOf);
}

describe('live change feed (GET /v2/sync/stream)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-stream-'));
  let service: RunningService;
  let url: string;
  const alice = party('stream alice');
  const bob = party('stream bob');
  const streams: SseStream[] = [];
  const open = (path: string, headers: Record<string, string> = {}) => {
    const s = new SseStream(`${url}${path}`, headers);
    streams.push(s);
    return s;
  };
  const activity = async (n: number, afterEach: () => Promise<void> = async () => undefined) => {
    const { keys } = service.parts;
    const ctx = apiContextOf(service.parts);
    for (let i = 0; i < n; i++) {
      await mintTokens(ctx, keys.mint, {
        to: i % 2 === 0 ? alice.address : bob.address,
        amount: BigInt(1000 + i),
      });
      await afterEach();
    }
    await service.parts.devnet!.mine(1);
    await afterEach();
  };
  const settled = async () => {
    // Every ticket past broadcasting and mined where the devnet mined it: the feed stands still.
    for (let i = 0; i < 100; i++) {
      const rows = await service.parts.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM tickets WHERE status NOT IN ('MINED', 'FAILED')",
      );
      if (rows[0]?.n === '0') return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('tickets did not settle');
  };

  before(async () => {
    service = await startServiceOn(dataDir, FLAGS);
    url = service.url!;
  });
  after(async () => {
    for (const s of streams) s.close();
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('from 0 the stream delivers exactly what /v1/sync pages through, live as it grows', async () => {
    await activity(3);
    const whole = open('/v2/sync/stream?from=0', { origin: 'https://wallet.example' });
    const ofAlice = open(`/v2/sync/stream?from=0&addresses=${alice.address}`);
    await settled();
    let expected = await syncAll(url);
    await whole.until(() => whole.events.length >= expected.length, 20_000, 'the backlog');
    assert.equal(whole.status, 200);
    assert.match(whole.headers?.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(whole.headers?.get('access-control-allow-origin'), '*');
    // Live: more records while it is open, then the same comparison. A /v1/sync poller pages
    // after each write meanwhile: every version it reads, the stream carries too, or a later
    // version of the same transaction (one replaced within a poll of the stream's reader is
    // passed over for the newer one, as it would be by a client polling at that pace).
    const polled: Rec[] = [];
    const poll = async () => {
      for (;;) {
        const from = (polled.at(-1)?.score ?? expected.at(-1)!.score) + 1;
        const page = (await http(url, 'GET', `/v1/sync?from=${from}&limit=50`)).json as Rec[];
        if (page.length === 0) return;
        polled.push(...page);
      }
    };
    await activity(4, poll);
    await settled();
    await poll();
    expected = await syncAll(url);
    const lastScore = expected.at(-1)!.score;
    await whole.until(() => Number(whole.lastId) >= lastScore, 20_000, 'the live records');
    await new Promise((r) => setTimeout(r, 500)); // nothing more may come
    assert.deepEqual(latestOf(recordsOf(whole)), expected.map(keyOf));
    const streamedScores = new Map<string, number[]>();
    for (const r of recordsOf(whole))
      streamedScores.set(r.txid, [...(streamedScores.get(r.txid) ?? []), r.score]);
    assert.ok(polled.length >= 5, `polled ${polled.length}`);
    assert.deepEqual(
      polled.filter((p) => !(streamedScores.get(p.txid) ?? []).some((score) => score >= p.score)).map(keyOf),
      [],
      'every version a poller read was streamed, or a later one of its transaction',
    );
    const aliceExpected = await syncOf(url, [alice.address]);
    const aliceLast = aliceExpected.at(-1)!.score;
    await ofAlice.until(() => Number(ofAlice.lastId) >= aliceLast, 20_000, "alice's records");
    assert.deepEqual(latestOf(recordsOf(ofAlice)), aliceExpected.map(keyOf));
    assert.ok(recordsOf(ofAlice).every((r) => [...r.senders, ...r.receivers].includes(alice.address)));
  });

  it('sends heartbeats, and without a cursor starts at the tip', async () => {
    const fresh = open('/v2/sync/stream');
    await fresh.until(() => fresh.comments.includes('heartbeat'), 5_000, 'a heartbeat');
    assert.equal(fresh.events.length, 0, 'no history without a cursor');
    await activity(1);
    await fresh.until(() => fresh.events.length >= 1, 10_000, 'a new record');
  });

  it('resumes with Last-Event-ID, also on the instance restarted: none twice, none skipped', async () => {
    const first = open('/v2/sync/stream?from=0');
    await settled();
    const before = await syncAll(url);
    await first.until(() => first.events.length >= before.length, 20_000, 'the backlog');
    // Cut half-way, resume from the last id read.
    const cutAt = Math.floor(before.length / 2);
    const partial = recordsOf(first).slice(0, cutAt);
    first.close();
    const resumed = open('/v2/sync/stream', { 'last-event-id': String(partial.at(-1)!.score) });
    await resumed.until(() => partial.length + resumed.events.length >= before.length, 20_000, 'the rest');
    assert.deepEqual([...partial, ...recordsOf(resumed)].map(keyOf), before.map(keyOf));

    // The instance goes away under the stream and comes back; the client resumes there.
    const lastSeen = resumed.lastId!;
    for (const s of streams) s.close();
    await service.stop();
    service = await startServiceOn(dataDir, FLAGS);
    url = service.url!;
    const again = open('/v2/sync/stream', { 'last-event-id': lastSeen });
    await activity(3);
    await settled();
    const after = await syncAll(url);
    const wanted = after.filter((r) => r.score > Number(lastSeen));
    assert.ok(wanted.length >= 3);
    await again.until(() => Number(again.lastId) >= wanted.at(-1)!.score, 20_000, 'after the restart');
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(latestOf(recordsOf(again)), wanted.map(keyOf));
  });

  it('bounds streams per client address and per key (429 STREAM_LIMIT) and checks its parameters', async () => {
    for (const s of streams) s.close();
    await new Promise((r) => setTimeout(r, 200));
    const held = Array.from({ length: 6 }, () => open('/v2/sync/stream'));
    await Promise.all(held.map((s) => s.until(() => s.status === 200, 5_000, 'open')));
    const refused = await http(url, 'GET', '/v2/sync/stream');
    assert.equal(refused.status, 429);
    assert.equal((refused.json as { code: string }).code, 'STREAM_LIMIT');
    for (const s of held) s.close();
    await new Promise((r) => setTimeout(r, 300));
    // Per API key (3); the sandbox's public token is everyone's, counted per client address only.
    const { key } = await createApiKey(service.parts.db, service.parts.masterKey, {
      name: 'streams',
      scopes: ['read'],
    });
    const keyed = Array.from({ length: 3 }, () => open(`/v2/sync/stream?auth_token=${key}`));
    await Promise.all(keyed.map((s) => s.until(() => s.status === 200, 5_000, 'open')));
    const overKey = await http(url, 'GET', '/v2/sync/stream', { key });
    assert.equal(overKey.status, 429);
    assert.match(overKey.text, /per API key/);
    for (const s of keyed) s.close();
    await new Promise((r) => setTimeout(r, 300));
    const shared = Array.from({ length: 5 }, () =>
      open(`/v2/sync/stream?auth_token=${REFERENCE_CLIENT_TOKENS.sandbox}`),
    );
    await Promise.all(shared.map((s) => s.until(() => s.status === 200, 5_000, 'open')));
    for (const s of shared) s.close();
    await new Promise((r) => setTimeout(r, 300));
    const bad = await http(url, 'GET', '/v2/sync/stream?addresses=1NotAnAddress');
    assert.equal(bad.status, 400);
    const badId = await http(url, 'GET', '/v2/sync/stream', { headers: { 'last-event-id': 'abc' } });
    assert.equal(badId.status, 400);
  });
});
