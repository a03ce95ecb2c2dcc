import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outboxWriter } from '../../src/callbacks/outbox-writer.js';
import { ReceiverRoom } from '../../src/callbacks/receiver-room.js';
import { ReceiverSlots } from '../../src/callbacks/receiver-slots.js';
import { SigningKeys } from '../../src/callbacks/signing-keys.js';
import { seal } from '../../src/crypto/secret-box.js';
import type { OutboxWrite } from '../../src/store/callbacks/callback-outbox.js';
import type { Queryable, Row, SqlValue } from '../../src/store/db/db.js';

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
const never = new AbortController().signal;

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
    assert.equal(slots.sending, 3);
    assert.equal(slots.inHand('a'), 4);
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
    assert.deepEqual(slots.origins(), []);
  });

  it('sends at most `concurrency` over all receivers; receivers with events waiting take turns', async () => {
    const { started, releases, send } = heldSends();
    const slots = new ReceiverSlots<Ev>(3, 2, send);
    slots.admit([
      { origin: 'a', n: 1 },
      { origin: 'a', n: 2 },
      { origin: 'a', n: 3 },
      { origin: 'b', n: 4 },
      { origin: 'c', n: 5 },
      { origin: 'c', n: 6 },
    ]);
    assert.deepEqual(
      started.map((e) => e.n),
      [1, 4, 5],
      'one each before a second for anyone',
    );
    releases[1]!(); // b's ends: a's turn (it was first in line), then c's
    await tick();
    releases[0]!();
    await tick();
    assert.deepEqual(
      started.map((e) => e.n),
      [1, 4, 5, 2, 6],
    );
    assert.equal(slots.sending, 3);
    for (let i = 2; i < 10; i++) {
      releases[i]?.();
      await tick();
    }
    await slots.idle();
    assert.deepEqual(started.map((e) => e.n).sort(), [1, 2, 3, 4, 5, 6]);
  });

  it('every send that ends is a change: changed(version) wakes on it, not before', async () => {
    const { releases, send } = heldSends();
    const slots = new ReceiverSlots<Ev>(10, 2, send);
    slots.admit([1, 2].map((n) => ({ origin: 'a', n })));
    const version = slots.version;
    let woke = false;
    void slots.changed(version, null, never).then(() => {
      woke = true;
    });
    await tick();
    assert.equal(woke, false);
    releases[0]!();
    await tick();
    assert.equal(woke, true);
    assert.notEqual(slots.version, version);
    releases[1]!();
    await slots.idle();
  });

  it('changed() resolves at once for a stale version, on its timeout and on abort', async () => {
    const slots = new ReceiverSlots<Ev>(1, 1, async () => {});
    const before = slots.version;
    slots.signal();
    await slots.changed(before, null, never);
    await slots.changed(slots.version, 5, never);
    const stop = new AbortController();
    const waiting = slots.changed(slots.version, null, stop.signal);
    stop.abort();
    await waiting;
  });

  it('takeWaiting() hands back what is not being sent; the sends go on', async () => {
    const { started, releases, send } = heldSends();
    const slots = new ReceiverSlots<Ev>(10, 1, send);
    slots.admit([1, 2, 3].map((n) => ({ origin: 'a', n })));
    const taken = slots.takeWaiting();
    assert.deepEqual(
      taken.map((e) => e.n),
      [2, 3],
    );
    assert.equal(slots.held, 1);
    releases[0]!();
    await slots.idle();
    assert.deepEqual(
      started.map((e) => e.n),
      [1],
    );
    assert.equal(slots.held, 0);
  });
});

describe('receiver room', () => {
  const hand = (inHand: Record<string, number>, oldest: Record<string, number> = {}) => ({
    origins: () => Object.keys(inHand),
    inHand: (o: string) => inHand[o] ?? 0,
    oldestSendMs: (o: string) => oldest[o] ?? 0,
  });

  it('a receiver not heard from gets perReceiver; a fast one up to the whole hand; a slow one perReceiver', () => {
    const room = new ReceiverRoom(8, 256);
    assert.equal(room.allowance('http://new', 0), 8);
    room.answered('http://fast', 2);
    assert.equal(room.allowance('http://fast', 0), 256);
    room.answered('http://mid', 100);
    assert.equal(room.allowance('http://mid', 0), 80, 'ten rounds of 8 within a second');
    room.answered('http://slow', 10_000);
    assert.equal(room.allowance('http://slow', 0), 8);
    assert.equal(room.allowance('http://fast', 5_000), 8, 'an attempt running for 5 s: no more than 8');
  });

  it('plans a lease: receivers without room are busy, the others get their room', () => {
    const room = new ReceiverRoom(2, 64);
    room.answered('http://fast', 1);
    room.answered('http://idle-fast', 1);
    const plan = room.plan(hand({ 'http://fast': 10, 'http://new': 2, 'http://other': 1 }));
    assert.deepEqual(plan.busy, ['http://new']);
    assert.deepEqual(
      [...plan.roomByOrigin],
      [
        ['http://fast', 54],
        ['http://other', 1],
        ['http://idle-fast', 64],
      ],
    );
  });
});

describe('signing keys', () => {
  it('opens a sealed secret once and keeps its key; a box that does not open is unreadable', () => {
    const masterKey = new Uint8Array(32).fill(1);
    const keys = new SigningKeys(masterKey);
    const sealed = seal(masterKey, 'whsec_AAECAwQ=');
    const first = keys.keyOf(sealed);
    assert.equal(first.kind, 'key');
    assert.deepEqual(first.kind === 'key' && first.key, new Uint8Array([0, 1, 2, 3, 4]));
    assert.equal(keys.keyOf(new Uint8Array(sealed)), first, 'the same box: the kept key');
    assert.deepEqual(keys.keyOf(null), { kind: 'key', key: null });
    const other = seal(new Uint8Array(32).fill(2), 'whsec_AAECAwQ=');
    assert.equal(keys.keyOf(other).kind, 'unreadable');
  });
});

function attempt(id: string): OutboxWrite {
  return {
    kind: 'attempt',
    event: { id, ticketId: '00000000-0000-7000-8000-000000000000' },
    owner: 'd',
    attempt: { at: new Date(0), statusCode: 204, latencyMs: 1, error: null },
    outcome: { kind: 'delivered' },
  };
}

describe('outbox writer', () => {
  it('writes what finishes together in one statement; each caller resolves after its write', async () => {
    const statements: string[][] = [];
    const db: Queryable = {
      async query<R extends Row>(_sql: string, params?: readonly SqlValue[]): Promise<R[]> {
        const rows = JSON.parse(String(params?.[0])) as { event_id: string }[];
        await new Promise((r) => setTimeout(r, 5));
        statements.push(rows.map((r) => r.event_id));
        return [];
      },
    };
    const writer = outboxWriter(db);
    const written = ['1', '2', '3', '4', '5'].map((id) => writer.write(attempt(id)));
    assert.equal(writer.pending, 5);
    await Promise.all(written);
    assert.equal(writer.pending, 0);
    assert.deepEqual(statements.flat().sort(), ['1', '2', '3', '4', '5']);
    assert.equal(statements.length, 1, `batched: ${JSON.stringify(statements)}`);
  });

  it('what comes while a statement runs goes in the next one, at most maxBatch each', async () => {
    const statements: string[][] = [];
    const db: Queryable = {
      async query<R extends Row>(_sql: string, params?: readonly SqlValue[]): Promise<R[]> {
        statements.push((JSON.parse(String(params?.[0])) as { event_id: string }[]).map((r) => r.event_id));
        await new Promise((r) => setTimeout(r, 5));
        return [];
      },
    };
    const writer = outboxWriter(db, { maxBatch: 2 });
    const first = writer.write(attempt('1'));
    await new Promise((r) => setTimeout(r, 1));
    const later = ['2', '3', '4'].map((id) => writer.write(attempt(id)));
    await Promise.all([first, ...later]);
    await writer.idle();
    assert.deepEqual(statements, [['1'], ['2', '3'], ['4']]);
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
    const writer = outboxWriter(db);
    await assert.rejects(writer.write(attempt('1')), /db down/);
    await writer.write(attempt('2'));
    assert.equal(calls, 2);
  });
});
