// What a batch of submissions must know before it is validated, in one statement: the tickets
// already made for their submitted txids (a resubmission answers the same ticket), the token
// outputs they spend, and which of those outputs' owners are frozen. One round trip (and, on
// PGlite, one statement on the main thread) for the whole batch instead of three.
import type { Queryable } from '../db/db.js';
import {
  type OutpointRow,
  parseOutpoint,
  type StoredTokenOutput,
  storedTokenOutputOf,
} from '../wallets/wallet-queries.js';

export interface SubmissionLookups {
  /** Ticket ID per submitted txid that has one. */
  readonly earlier: ReadonlyMap<string, string>;
  /** The known token outputs, by `<txid>_<vout>`; unknown outpoints are absent. */
  readonly known: ReadonlyMap<string, StoredTokenOutput>;
  /** Owners of known outputs that are frozen. */
  readonly frozen: ReadonlySet<string>;
}

/** One row of the union: an output (the token_outputs columns), a ticket, or a frozen owner. */
interface LookupRow {
  kind: 'output' | 'ticket' | 'frozen';
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
): Promise<SubmissionLookups> {
  const parsed = outpoints.map(parseOutpoint);
  const rows = await q.query<LookupRow>(
    `WITH o AS MATERIALIZED (
       SELECT o.txid, o.vout, o.owner, o.amount, o.op, o.script, o.satoshis, o.spent_by, o.reserved_by
         FROM unnest($2::text[], $3::int[]) AS wanted(txid, vout)
         JOIN token_outputs o ON o.txid = wanted.txid AND o.vout = wanted.vout
     )
     SELECT 'output' AS kind, txid, vout, owner, amount, op, script, satoshis, spent_by,
            reserved_by::text AS reserved_by, NULL::text AS ticket
       FROM o
     UNION ALL
     SELECT 'ticket', submitted_txid, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, id::text
       FROM tickets WHERE submitted_txid = ANY($1::text[])
     UNION ALL
     SELECT 'frozen', NULL, NULL, address, NULL, NULL, NULL, NULL, NULL, NULL, NULL
       FROM address_freezes WHERE address IN (SELECT owner FROM o)`,
    [submittedTxids, parsed.map((p) => p.txid), parsed.map((p) => p.vout)],
  );
  const earlier = new Map<string, string>();
  const known = new Map<string, StoredTokenOutput>();
  const frozen = new Set<string>();
  for (const row of rows) {
    if (row.kind === 'ticket') earlier.set(row.txid, row.ticket!);
    else if (row.kind === 'frozen') frozen.add(row.owner!);
    else {
      const output = storedTokenOutputOf(row as unknown as OutpointRow);
      known.set(`${output.txid}_${output.vout}`, output);
    }
  }
  return { earlier, known, frozen };
}
