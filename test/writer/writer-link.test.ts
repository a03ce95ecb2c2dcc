// An api process's link to the writer, against a real writer server on a loopback socket and
// the registry in a real database: it writes itself while no writer is registered, sends every
// item through the writer once one is (answers in order), and writes itself again when the
// writer refuses it or is gone, answering a submission the writer had committed as created.
// The writer server refuses callers without its token and bodies it cannot read, whole.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pino from 'pino';
import type { Submission, SubmissionVerdict } from '../../src/store/submissions/submission-writes.js';
import {
  holdWriterEntry,
  liveWriter,
  releaseWriterEntry,
} from '../../src/store/submissions/writer-registry.js';
import type { LedgerUpdate } from '../../src/usecases/track/apply-ledger-status.js';
import { createWriterLink, type WriterLink } from '../../src/writer/writer-link.js';
import { startWriterServer, type WriterServer } from '../../src/writer/writer-server.js';
import { writerToken, writerTokenHash } from '../../src/writer/writer-token.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { aSubmission } from '../support/submission-fixture.js';

const log = pino({ level: 'silent' });
const APPROVER_KEY = new Uint8Array(32).fill(7);
const TOKEN = writerToken(APPROVER_KEY, 'writer-1');
/** This test's writer servers check nothing: what the checks do is submission-check's test's. */
const trusting = {
  checkSubmissions: async (c: readonly Submission[]) => [...c],
  checkUpdates: async (u: readonly LedgerUpdate[]) => [...u],
};

function submission(n: number): Submission {
  return aSubmission({
    ticketId: `ticket-${n}`,
    rawTx: new Uint8Array([n]),
    inputs: [{ txid: 'ab'.repeat(32), vout: n }],
    funding: { txid: 'cd'.repeat(32), vout: n },
  });
}

describeOnEachDb('the writer link', (fresh) => {
  const atWriter = { updates: [] as LedgerUpdate[][] };
  const here = { submissions: [] as Submission[], updates: [] as LedgerUpdate[][] };
  let hereAnswers = (s: Submission): SubmissionVerdict => ({
    kind: 'duplicate',
    ticketId: `earlier-of-${s.ticketId}`,
  });
  let server: WriterServer;
  let link: WriterLink;
  const now = () => new Date();
  const register = (token = TOKEN, url = server.url) =>
    holdWriterEntry(
      fresh.db,
      { url, tokenHash: writerTokenHash(token), instance: 'writer-1' },
      now(),
      new Date(Date.now() + 60_000),
    );

  before(async () => {
    server = await startWriterServer(
      {
        token: TOKEN,
        log,
        ...trusting,
        commit: async (s) =>
          s.ticketId === 'ticket-2'
            ? { kind: 'conflict', code: 'INPUT_LOCKED', detail: 'held' }
            : { kind: 'created' },
        applyUpdates: async (u) => {
          atWriter.updates.push([...u]);
        },
      },
      { host: '127.0.0.1', port: 0 },
    );
    link = createWriterLink({
      db: fresh.db,
      now,
      log,
      local: {
        commit: async (s) => {
          here.submissions.push(s);
          return hereAnswers(s);
        },
        applyUpdates: async (u) => {
          here.updates.push([...u]);
        },
      },
      settings: { refreshMs: 60_000, timeoutMs: 2_000 },
      approverKey: APPROVER_KEY,
    });
  });
  after(async () => {
    await link.close();
    await server.close();
  });

  it('with no writer registered, the process writes itself', async () => {
    await link.refresh();
    assert.equal(link.current(), null);
    const verdict = await link.commit(submission(1));
    assert.deepEqual(verdict, { kind: 'duplicate', ticketId: 'earlier-of-ticket-1' });
    assert.deepEqual(link.counts(), { viaWriter: 0, local: 1 });
  });

  it('once one is registered, everything goes through it, each item answered with its own verdict', async () => {
    assert.equal(await register(), true);
    await link.refresh();
    assert.equal(link.current(), server.url);
    const verdicts = await Promise.all([1, 2, 3].map((n) => link.commit(submission(n))));
    assert.deepEqual(verdicts, [
      { kind: 'created' },
      { kind: 'conflict', code: 'INPUT_LOCKED', detail: 'held' },
      { kind: 'created' },
    ]);
    const update: LedgerUpdate = { txid: 'aa', view: { status: { kind: 'mempool' }, fromBroadcast: true } };
    await link.applyUpdates([update]);
    assert.deepEqual(atWriter.updates, [[update]]);
    assert.deepEqual(link.counts(), { viaWriter: 4, local: 1 });
    assert.equal(here.submissions.length, 1, 'nothing more written here');
  });

  it('a writer registered under another approver key (its token is not ours) is passed by: the process writes itself, and a submission the writer committed counts as created', async () => {
    assert.equal(await register('another-token'), true);
    await link.refresh();
    hereAnswers = (s) => ({ kind: 'duplicate', ticketId: s.ticketId });
    const verdict = await link.commit(submission(4));
    assert.deepEqual(
      verdict,
      { kind: 'created' },
      'its own ticket, written by the writer before the answer was lost',
    );
    assert.equal(link.current(), null, 'passed by until the next look-up');
    await link.applyUpdates([{ txid: 'bb', view: { status: { kind: 'mempool' } } }]);
    assert.deepEqual(here.updates, [[{ txid: 'bb', view: { status: { kind: 'mempool' } } }]]);
    assert.deepEqual(link.counts(), { viaWriter: 4, local: 3 });
  });

  it('a writer that is gone (nothing listens) is passed by the same way', async () => {
    const gone = await startWriterServer(
      {
        token: TOKEN,
        log,
        ...trusting,
        commit: async () => ({ kind: 'created' }),
        applyUpdates: async () => undefined,
      },
      { host: '127.0.0.1', port: 0 },
    );
    await gone.close();
    assert.equal(await register(TOKEN, gone.url), true);
    const relink = createWriterLink({
      db: fresh.db,
      now,
      log,
      local: { commit: async () => ({ kind: 'funding-lost' }), applyUpdates: async () => undefined },
      settings: { refreshMs: 60_000, timeoutMs: 2_000 },
      approverKey: APPROVER_KEY,
    });
    try {
      await relink.refresh();
      assert.equal(relink.current(), gone.url);
      assert.deepEqual(await relink.commit(submission(5)), { kind: 'funding-lost' });
      assert.deepEqual(relink.counts(), { viaWriter: 0, local: 1 });
    } finally {
      await relink.close();
    }
  });

  it('the server refuses a caller without the token (401) and a body it cannot read (400), whole', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${server.url}/submissions`, { method: 'POST', headers, body });
    assert.equal((await post({}, '{"submissions":[]}')).status, 401);
    assert.equal((await post({ authorization: 'Bearer wrong' }, '{"submissions":[]}')).status, 401);
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const bad = await post(auth, JSON.stringify({ submissions: [{ ticketId: 'x' }] }));
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /^txid/);
    assert.equal((await post(auth, 'not json')).status, 400);
    assert.equal(
      (await fetch(`${server.url}/elsewhere`, { method: 'POST', headers: auth, body: '{}' })).status,
      404,
    );
    const good = await post(auth, JSON.stringify({ submissions: [] }));
    assert.deepEqual(await good.json(), { verdicts: [] });
  });

  it("the registry: a second writer is refused while the first's lease is live, takes a lapsed one over, and a release is the holder's only", async () => {
    await fresh.db.query("DELETE FROM settings WHERE key = 'writer'");
    const t0 = new Date('2030-01-01T00:00:00Z');
    const later = (ms: number) => new Date(t0.getTime() + ms);
    const first = { url: 'http://127.0.0.1:1', tokenHash: 'h1', instance: 'w1' };
    const second = { url: 'http://127.0.0.1:2', tokenHash: 'h2', instance: 'w2' };
    assert.equal(await holdWriterEntry(fresh.db, first, t0, later(10_000)), true);
    assert.equal(
      await holdWriterEntry(fresh.db, second, later(1_000), later(11_000)),
      false,
      'the first holds it',
    );
    assert.equal(
      await holdWriterEntry(fresh.db, first, later(3_000), later(13_000)),
      true,
      'the holder renews',
    );
    assert.equal((await liveWriter(fresh.db, later(12_000)))?.url, first.url);
    assert.equal(await liveWriter(fresh.db, later(14_000)), null, 'a lapsed lease is nobody');
    await releaseWriterEntry(fresh.db, second.instance);
    assert.equal(
      (await liveWriter(fresh.db, later(12_000)))?.instance,
      'w1',
      "the second cannot release the first's",
    );
    assert.equal(
      await holdWriterEntry(fresh.db, second, later(14_000), later(24_000)),
      true,
      'the lapsed one is taken',
    );
    assert.equal((await liveWriter(fresh.db, later(15_000)))?.tokenHash, 'h2');
    await releaseWriterEntry(fresh.db, second.instance);
    assert.equal(await liveWriter(fresh.db, later(15_000)), null);
  });
});
