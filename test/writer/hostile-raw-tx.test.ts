// The writer parses the raw transaction an api process sent it (an internal hop that trusts
// nothing). A rawTx of 9 bytes announcing 16 million inputs, or 15 announcing four billion, made
// @bsv/sdk allocate until the writer died of heap exhaustion; now the submission is refused at
// once, by checkSubmission and by the writer's server over a real socket (400, nothing written).
// The parser tripwire fails the test, rather than the runner's memory, on code without the guard.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { Submission } from '../../src/store/submissions/submission-writes.js';
import { checkSubmission } from '../../src/writer/submission-check.js';
import { startWriterServer, WRITER_PATHS, type WriterServer } from '../../src/writer/writer-server.js';
import { encodeSubmission, WireError } from '../../src/writer/writer-wire.js';
import { HOSTILE, parsedSafely } from '../support/parser-tripwire.js';
import { aSubmission } from '../support/submission-fixture.js';
import { TokenWorld } from '../support/token-world.js';

const NOW = new Date('2026-11-27T10:00:00Z');
const BOUNDS = { maxClockSkewMs: 30_000, maxFirstLookMs: 60_000 };
const TOKEN = 'writer-test-token';
const world = new TokenWorld();

const hostile = (rawTx: Uint8Array) =>
  aSubmission({ rawTx, now: NOW, inputs: [{ txid: 'ab'.repeat(32), vout: 0 }] });

describe('the writer: a rawTx announcing more inputs than its bytes hold', () => {
  let server: WriterServer;
  const committed: Submission[] = [];

  before(async () => {
    server = await startWriterServer(
      {
        token: TOKEN,
        log: pino({ level: 'silent' }),
        // As the writer role wires it (src/roles/writer.ts): one refusal refuses the batch.
        checkSubmissions: async (claimed) =>
          claimed.map((s, n) => {
            const checked = checkSubmission(s, new Map(), world.config, NOW, BOUNDS);
            if (!checked.ok) throw new WireError(`submissions[${n}]: ${checked.reason}`);
            return checked.submission;
          }),
        checkUpdates: async (u) => [...u],
        commit: async (s) => {
          committed.push(s);
          return { kind: 'created' };
        },
        applyUpdates: async () => {},
      },
      { host: '127.0.0.1', port: 0 },
    );
  });
  after(() => server.close());

  for (const raw of HOSTILE) {
    it(`checkSubmission refuses ${raw.length} such bytes at once`, async () => {
      const started = performance.now();
      const checked = await parsedSafely(() =>
        checkSubmission(hostile(raw), new Map(), world.config, NOW, BOUNDS),
      );
      assert.ok(performance.now() - started < 1_000);
      assert.deepEqual(checked, {
        ok: false,
        reason: 'rawTx: does not parse: input count larger than the bytes can hold',
      });
    });
  }

  it('the writer server answers 400 to a batch carrying them, and writes nothing', async () => {
    const res = await parsedSafely(() =>
      fetch(`${server.url}${WRITER_PATHS.submissions}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ submissions: HOSTILE.map((raw) => encodeSubmission(hostile(raw))) }),
      }),
    );
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: string };
    assert.match(body.error, /^submissions\[0\]: rawTx: does not parse: input count larger/);
    assert.deepEqual(committed, []);
  });
});
