// Tickets with callback events in a fresh store, a clock the tests move by hand, and a
// deliverer built for tests (fixed jitter, short timeout, silent log).
import { randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import {
  type CallbackAllowList,
  parseCallbackAllow,
  type Resolver,
} from '../../src/callbacks/address-guard.js';
import { createDeliverer, type Deliverer, type DelivererOptions } from '../../src/callbacks/deliverer.js';
import { seal } from '../../src/crypto/secret-box.js';
import type { TicketStatus } from '../../src/domain/ticket-state.js';
import type { Db } from '../../src/store/db/db.js';
import { appendTicketEvent, moveTicket, ticketForUpdate } from '../../src/store/tickets/ticket-writes.js';
import { seedTicket } from '../support/seed-store.js';

export const LOOPBACK: CallbackAllowList = parseCallbackAllow(['127.0.0.1']);

export interface TestClock {
  (): Date;
  advance(ms: number): void;
}

export function testClock(start = new Date()): TestClock {
  let now = start.getTime();
  const clock = (() => new Date(now)) as TestClock;
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

export function newMasterKey(): Uint8Array {
  return new Uint8Array(randomBytes(32));
}

export interface TicketSpec {
  readonly url: string;
  readonly apiKeyId?: string | null;
  /** The ticket's own callback_secret (sealed with `masterKey`). */
  readonly callbackSecret?: { readonly secret: string; readonly masterKey: Uint8Array };
  /** Statuses after BROADCASTING, each one event (default: SUCCESS then MINED). */
  readonly moves?: readonly TicketStatus[];
  readonly now?: Date;
}

/** A ticket submitted with a callback URL (its BROADCASTING event) and moved on; returns its id. */
export async function ticketWithEvents(db: Db, spec: TicketSpec): Promise<string> {
  const now = spec.now ?? new Date();
  const id = await seedTicket(db, { callbackUrl: spec.url, apiKeyId: spec.apiKeyId ?? null, createdAt: now });
  if (spec.callbackSecret !== undefined) {
    await db.query('UPDATE tickets SET callback_secret_enc = $2 WHERE id = $1', [
      id,
      seal(spec.callbackSecret.masterKey, spec.callbackSecret.secret),
    ]);
  }
  await db.transaction((tx) => appendTicketEvent(tx, id, now));
  for (const status of spec.moves ?? ['SUCCESS', 'MINED']) {
    await db.transaction(async (tx) => {
      const ticket = await ticketForUpdate(tx, id);
      if (ticket === null) throw new Error('seeded ticket vanished');
      await moveTicket(tx, ticket, status, { now, nextCheckAt: null });
    });
  }
  return id;
}

export interface EventRow {
  id: string;
  seq: number;
  state: string;
  attempts: number;
  next_attempt_at: Date;
  webhook_id: string;
  last_error: string | null;
  [column: string]: unknown;
}

export function eventsOf(db: Db, ticketId: string): Promise<EventRow[]> {
  return db.query<EventRow>(
    'SELECT id::text AS id, seq, state, attempts, next_attempt_at, webhook_id, last_error FROM events WHERE ticket_id = $1 ORDER BY seq',
    [ticketId],
  );
}

export const silentLog = { info() {}, warn() {}, error() {} };

export function testDeliverer(
  db: Db,
  masterKey: Uint8Array,
  clock: () => Date,
  options: Partial<DelivererOptions> = {},
): Deliverer {
  return createDeliverer({
    db,
    masterKey,
    allow: LOOPBACK,
    clock,
    random: () => 0.5,
    // Generous: a loaded machine must not turn a slow answer into a retry (a second delivery).
    timeoutMs: 30_000,
    leaseMs: 120_000,
    log: silentLog,
    ...options,
  });
}

/** A resolver over a fixed table (names not in it do not resolve). */
export function resolverOf(table: Record<string, readonly string[]>): Resolver {
  return async (host): Promise<LookupAddress[]> => {
    const addresses = table[host];
    if (addresses === undefined) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}
