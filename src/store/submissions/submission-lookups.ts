// What a batch of submissions must know before it is validated, in one statement: the tickets
// already made for their submitted txids (a resubmission answers the same ticket), the token
// outputs they spend, which of those outputs' owners are frozen, and the issuer's controls
// (issue 32): whether transfers are paused, which senders or receivers are blacklisted, which
// outpoints are seized (the mark on the output's row that the claim reads too, migration 043),
// and (with a daily limit set) what each sender has sent since the day
// began. One round trip (and, on PGlite, one statement on the main thread) for the whole batch:
// a control changed in the database applies to the next batch on every instance, at no cost of
// a round trip of its own.
import type { Queryable } from '../db/db.js';
import {
  liveReservation,
  type OutpointRow,
  parseOutpoint,
  type StoredTokenOutput,
  storedTokenOutputOf,
} from '../wallets/wallet-queries.js';
import { SENT_SINCE } from './daily-limit-hold.js';

export interface SubmissionLookups {
  /** Ticket ID per submitted txid that has one. */
  readonly earlier: ReadonlyMap<string, string>;
  /** The known token outputs, by `<txid>_<vout>`; unknown outpoints are absent. */
  readonly known: ReadonlyMap<string, StoredTokenOutput>;
  /** Owners of known outputs that are frozen. */
  readonly frozen: ReadonlySet<string>;
  /** Whether the issuer has paused transfers (issuer_pause). */
  readonly paused: boolean;
  /** Owners of known outputs, and the receivers asked about, that are blacklisted. */
  readonly blacklisted: ReadonlySet<string>;
  /** Asked outpoints that a seizure took (`<txid>_<vout>`): never cosigned again. */
  readonly seized: ReadonlySet<string>;
  /**
   * Per owner of a known output, what it sent to others (burns left out) in transactions not
   * failed since `dailySince`; empty when no `dailySince` was given.
   */
  readonly sentSince: ReadonlyMap<string, bigint>;
}

export interface ControlLookups {
  /** Addresses the batch's transfers pay (blacklisted receivers are refused). */
  readonly receivers?: readonly string[];
  /** The start of the day the per-address daily limit counts from; null: no limit set. */
  readonly dailySince?: Date | null;
}

/** One row of the union: an output (the token_outputs columns), a ticket, or a control's row. */
interface LookupRow {
  kind: 'output' | 'ticket' | 'frozen' | 'paused' | 'blacklisted' | 'seized' | 'sent';
  txid: string;
  owner: string | null;
  ticket: string | null;
  [column: string]: unknown;
}

/** Throws RangeError for a malformed outpoint (as tokenOutputsByOutpoint does). */
export async function submissionLookups(
  q: Queryable,
  submittedTxids: readonly string[],
  outpoints: readonly string[],
  controls: ControlLookups = {},
): Promise<SubmissionLookups> {
  const parsed = outpoints.map(parseOutpoint);
  const dailySince = controls.dailySince ?? null;
  const rows = await q.query<LookupRow>(
    `WITH o AS MATERIALIZED (
       SELECT o.txid, o.vout, o.owner, o.amount, o.op, o.script, o.satoshis, o.spent_by,
              ${liveReservation('o')} AS reserved_by, o.seized
         FROM unnest($2::text[], $3::int[]) AS wanted(txid, vout)
         JOIN token_outputs o ON o.txid = wanted.txid AND o.vout = wanted.vout
     )
     SELECT 'output' AS kind, txid, vout, owner, amount, op, script, satoshis, spent_by,
            reserved_by, NULL::text AS ticket
       FROM o
     UNION ALL
     SELECT 'ticket', submitted_txid, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, id::text
       FROM tickets WHERE submitted_txid = ANY($1::text[])
     UNION ALL
     SELECT 'frozen', NULL, NULL, address, NULL, NULL, NULL, NULL, NULL, NULL, NULL
       FROM address_freezes WHERE address IN (SELECT owner FROM o)
     UNION ALL
     SELECT 'paused', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
       FROM issuer_pause WHERE paused
     UNION ALL
     SELECT 'blacklisted', NULL, NULL, address, NULL, NULL, NULL, NULL, NULL, NULL, NULL
       FROM address_blacklist
      WHERE address IN (SELECT owner FROM o) OR address = ANY($4::text[])
     UNION ALL
     SELECT 'seized', txid, vout, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM o WHERE seized
     UNION ALL
     SELECT 'sent', NULL, NULL, ta.address, sum(x.amount), NULL, NULL, NULL, NULL, NULL, NULL
       ${SENT_SINCE('$5')} AND ta.address IN (SELECT owner FROM o)
      GROUP BY ta.address`,
    [
      submittedTxids,
      parsed.map((p) => p.txid),
      parsed.map((p) => p.vout),
      [...new Set(controls.receivers ?? [])],
      dailySince,
    ],
  );
  const earlier = new Map<string, string>();
  const known = new Map<string, StoredTokenOutput>();
  const frozen = new Set<string>();
  const blacklisted = new Set<string>();
  const seized = new Set<string>();
  const sentSince = new Map<string, bigint>();
  let paused = false;
  for (const row of rows) {
    if (row.kind === 'ticket') earlier.set(row.txid, row.ticket!);
    else if (row.kind === 'frozen') frozen.add(row.owner!);
    else if (row.kind === 'paused') paused = true;
    else if (row.kind === 'blacklisted') blacklisted.add(row.owner!);
    else if (row.kind === 'seized') seized.add(`${row.txid}_${row.vout}`);
    else if (row.kind === 'sent') sentSince.set(row.owner!, BigInt(String(row.amount)));
    else {
      const output = storedTokenOutputOf(row as unknown as OutpointRow);
      known.set(`${output.txid}_${output.vout}`, output);
    }
  }
  return { earlier, known, frozen, paused, blacklisted, seized, sentSince };
}
