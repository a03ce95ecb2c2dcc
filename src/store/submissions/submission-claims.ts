// The claims of a submission batch, in one statement of data-modifying CTEs: the tickets
// (a submitted txid that has one already is skipped; a ticket stores no transaction bytes, its
// change-feed record written in the same transaction does: migration 039), the token inputs of the tickets just made
// (rows locked in one order, (txid, vout), by every writer, then reserved where free), and each
// ticket's leased funding output (only while the api process that cosigned with it, the
// submission's leaseOwner, still holds the lease). The caller,
// store/submissions/submission-writes.ts, settles what was not claimed. The main query reads the CTEs in
// this order, so PostgreSQL runs them in it: the tickets' unique entries first, then the token
// output rows, then the funding rows, as the three separate statements did before; a deadlock
// with another writer is retried by the committer.
//
// A seized output is never reserved (migration 043): the submission's look-ups may have read it
// before a seizure committed, and the seizure marks the row itself, so a claim that waited for
// the seizure's lock re-checks the row's new version and leaves it.
//
// The two updates find their rows by primary key. Their free-row tests are written so that
// they do not match the partial indexes of free rows (token_outputs_spendable_by_owner,
// funding_outputs_available): with statistics older than a burst of new outputs, PostgreSQL
// otherwise read every spendable output into a hash to update a batch's few (measured: 15 ms
// of an 18 ms statement with 17,505 spendable outputs), and scans grow with the ledger.
import type { Queryable } from '../db/db.js';
import { hex } from '../feed/feed-records.js';
import type { Submission } from './submission.js';

export interface Claims {
  /** Tickets inserted (the others had a ticket for their submitted txid already). */
  readonly inserted: ReadonlySet<string>;
  /** Token inputs reserved, per ticket. */
  readonly reservedCount: ReadonlyMap<string, number>;
  /** Tickets whose funding output was reserved. */
  readonly funded: ReadonlySet<string>;
}

export async function claimSubmissions(tx: Queryable, batch: readonly Submission[]): Promise<Claims> {
  const inputs = batch
    .flatMap((s) => s.inputs.map((i) => ({ ...i, ticket: s.ticketId, spender: s.txid })))
    .sort((a, b) => (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : a.vout - b.vout));
  const rows = await tx.query<{ kind: 'ticket' | 'input' | 'funding'; ticket: string }>(
    `WITH made AS (
       INSERT INTO tickets (id, txid, submitted_txid, status, status_rank, callback_url,
                            callback_secret_enc, api_key_id, next_check_at, created_at, updated_at, request_id)
       SELECT u.id, u.txid, u.sub, 'BROADCASTING', 10, u.cb, decode(u.secret, 'hex'),
              u.key, u.first_check, u.at, u.at, u.req
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                     $7::timestamptz[], $8::timestamptz[], $17::text[])
              AS u(id, txid, sub, cb, secret, key, first_check, at, req)
       ON CONFLICT DO NOTHING
       RETURNING id
     ), wanted AS (
       SELECT w.* FROM unnest($9::text[], $10::int[], $11::uuid[], $12::text[]) AS w(txid, vout, ticket, spender)
        WHERE w.ticket IN (SELECT id FROM made)
     ), locked AS MATERIALIZED (
       SELECT o.txid, o.vout FROM token_outputs o JOIN wanted w ON o.txid = w.txid AND o.vout = w.vout
        ORDER BY o.txid, o.vout FOR UPDATE OF o
     ), reserved AS (
       UPDATE token_outputs o SET reserved_by = w.ticket, spent_by = w.spender
         FROM wanted w, locked l
        WHERE o.txid = w.txid AND o.vout = w.vout AND l.txid = w.txid AND l.vout = w.vout
          AND num_nulls(o.spent_by, o.reserved_by) = 2 AND o.op <> 'burn' AND NOT o.seized
       RETURNING w.ticket
     ), funded AS (
       UPDATE funding_outputs f SET state = 'reserved', reserved_by = u.ticket, lease_owner = NULL, lease_until = NULL
         FROM unnest($13::text[], $14::int[], $15::uuid[], $16::text[]) AS u(txid, vout, ticket, owner)
        WHERE f.txid = u.txid AND f.vout = u.vout AND f.state NOT IN ('reserved', 'spent') AND f.lease_owner = u.owner
          AND u.ticket IN (SELECT id FROM made)
       RETURNING u.ticket
     )
     SELECT 'ticket' AS kind, id::text AS ticket FROM made
     UNION ALL SELECT 'input', ticket::text FROM reserved
     UNION ALL SELECT 'funding', ticket::text FROM funded`,
    [
      batch.map((s) => s.ticketId),
      batch.map((s) => s.txid),
      batch.map((s) => s.submittedTxid),
      batch.map((s) => s.callbackUrl),
      batch.map((s) => (s.callbackSecretEnc === null ? null : hex(s.callbackSecretEnc))),
      batch.map((s) => s.apiKeyId),
      batch.map((s) => s.firstCheckAt.toISOString()),
      batch.map((s) => s.now.toISOString()),
      inputs.map((i) => i.txid),
      inputs.map((i) => i.vout),
      inputs.map((i) => i.ticket),
      inputs.map((i) => i.spender),
      batch.map((s) => s.funding.txid),
      batch.map((s) => s.funding.vout),
      batch.map((s) => s.ticketId),
      batch.map((s) => s.leaseOwner),
      batch.map((s) => s.requestId ?? null),
    ],
  );
  const inserted = new Set<string>();
  const reservedCount = new Map<string, number>();
  const funded = new Set<string>();
  for (const r of rows) {
    if (r.kind === 'ticket') inserted.add(r.ticket);
    else if (r.kind === 'input') reservedCount.set(r.ticket, (reservedCount.get(r.ticket) ?? 0) + 1);
    else funded.add(r.ticket);
  }
  return { inserted, reservedCount, funded };
}
