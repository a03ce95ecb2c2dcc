import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attemptRecorder } from '../../src/callbacks/attempt-recorder.js';
import type { RecordedAttempt } from '../../src/callbacks/outbox-store.js';
import { ReceiverSlots } from '../../src/callbacks/receiver-slots.js';
import type { Queryable, Row, SqlValue } from '../../src/store/db.js';

interface Ev {
  readonly origin: string;
  readonly n: number;
}

/** A send whose answers the test releases one by one. */
function heldSends() {
  const started: Ev[] = [];
  const releases: (() => void)[] = [];
  const send = (event: Ev) =>
    new Promise<void>((resolve) => {
      started.push(event);
      releases.push(resolve);
    });
  return { started, releases, send };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('receiver slots', () => {
  it('sends at most perReceiver at once to one receiver; the rest wait in hand', async () => {
    const { started, releases, send } = heldSends();
    const slots = new ReceiverSlots<Ev>(10, 2, send);
    slots.admit([1, 2, 3, 4].map((n) => ({ origin: 'a', n })));
    slots.admit([{ origin: 'b', n: 5 }]);
    assert.deepEqual(
      started.map((e) => e.n),
      [1, 2, 5],
    );
    assert.equal(slots.held, 5);
    assert.equal(slots.free, 5);
    assert.deepEqual(slots.busyOrigins(), ['a']);
    assert.equal(slots.receiversInHand, 2);
    releases[0]!();
    await tick();
    assert.deepEqual(
      started.map((e) => e.n),
      [1, 2, 5, 3],
      'the next of a started as one of its answers came',
    );
    for (let i = 1; i < 10; i++) {
      releases[i]?.();
      await tick();
    }
    await slots.idle();
    assert.equal(slots.held, 0);
    assert.deepEqual(slots.busyOrigins(), []);
  });

  it('changed() wakes when a receiver stops being busy, not while it stays busy', async () => {
    const { releases, send } = heldSends();
    const slots = new ReceiverSlots<Ev>(10, 2, send);
    const never = new AbortController().signal;
    slots.admit([1, 2, 3, 4].map((n) => ({ origin: 'a', n })));
    slots.consumeChange();
    let woke = false;
    void slots.changed(null, never).then(() => {
      woke = true;
    });
    releases[0]!();
    await tick();
    assert.equal(woke, false, 'three in hand: still busy');
    releases[1]!();
    await tick();
    assert.equal(woke, false, 'two in hand: still busy');
    releases[2]!();
    await tick();
    assert.equal(woke, true, 'one in hand: room again');
    assert.equal(slots.hasChanged, true);
    for (const release of releases) release();
    await slots.idle();
  });

  it('changed() resolves on its timeout and on abort', async () => {
    const slots = new ReceiverSlots<Ev>(1, 1, async () => {});
    slots.consumeChange();
    await slots.changed(5, new AbortController().signal);
    const stop = new AbortController();
    const waiting = slots.changed(null, stop.signal);
    stop.abort();
    await waiting;
  });
});

function attempt(id: string): RecordedAttempt {
  return {
    event: { id, ticketId: '00000000-0000-7000-8000-000000000000' },
    owner: 'd',
    attempt: { at: new Date(0), statusCode: 204, latencyMs: 1, error: null },
    outcome: { kind: 'delivered' },
  };
}

describe('attempt recorder', () => {
  it('writes attempts that finish together in one statement; each caller resolves after its write', async () => {
    const statements: string[][] = [];
    const db: Queryable = {
      async query<R extends Row>(_sql: string, params?: readonly SqlValue[]): Promise<R[]> {
        const rows = JSON.parse(String(params?.[0])) as { event_id: string }[];
        await new Promise((r) => setTimeout(r, 5));
        statements.push(rows.map((r) => r.event_id));
        return [];
      },
    };
    const recorder = attemptRecorder(db);
    await Promise.all(['1', '2', '3', '4', '5'].map((id) => recorder.record(attempt(id))));
    assert.deepEqual(statements.flat().sort(), ['1', '2', '3', '4', '5']);
    assert.ok(statements.length < 5, `batched: ${JSON.stringify(statements)}`);
  });

  it('a failed write rejects the callers of that batch only', async () => {
    let calls = 0;
    const db: Queryable = {
      async query<R extends Row>(): Promise<R[]> {
        calls++;
        if (calls === 1) throw new Error('db down');
        return [];
      },
    };
    const recorder = attemptRecorder(db);
    await assert.rejects(recorder.record(attempt('1')), /db down/);
    await recorder.record(attempt('2'));
    assert.equal(calls, 2);
  });
});
