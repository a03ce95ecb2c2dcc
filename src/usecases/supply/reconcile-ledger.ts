// `tokenproxy reconcile`: compares the database with the ledger and, asked to, repairs what it
// safely can. Read from the ledger: every ticket's transaction's status; and the transactions
// it holds that touch the service (this token's, or paying the funding address): all of them
// when the ledger can list its history (the devnet), else only those the operator names (txids
// or raw transactions found elsewhere: ARC lists no address's history). The comparison is
// domain/reconciliation.ts; the repairs: a missing token transaction written into the index from
// its own bytes (its token inputs and funding input spent, its record scored as the writer
// scores one), free funding outputs the ledger saw spent marked spent, and tickets the ledger
// does not bear out handed back to the tracker. Each repair is its own database transaction,
// so a second run finds what the first wrote and changes nothing.
import { txidOf } from '../../crypto/txid.js';
import {
  type DatabaseView,
  type DbFunding,
  type DbOutput,
  type DbTicket,
  type Difference,
  type Ingest,
  type LedgerTransaction,
  type LedgerWord,
  type ReconcileToken,
  readLedgerTransaction,
  reconcile,
  touchesService,
} from '../../domain/reconciliation.js';
import type { TicketStatus } from '../../domain/ticket-state.js';
import type { Ledger, TxStatus } from '../../ledger/port.js';
import type { Db, Queryable } from '../../store/db/db.js';
import { insertScoredFeedRecords } from '../../store/feed/feed-records.js';

/** A ledger that can list every transaction it holds (the devnet). */
export interface LedgerHistory {
  /** Txids of every transaction held, chain first (coinbases left out), then the mempool. */
  txids(): Promise<readonly string[]>;
}

/** The devnet's history: its blocks' transactions and its mempool. */
export function devnetHistory(devnet: {
  blocks(): readonly { readonly txids: readonly string[] }[];
  mempoolTxids(): readonly string[];
}): LedgerHistory {
  return {
    txids: async () => [...devnet.blocks().flatMap((b) => b.txids.slice(1)), ...devnet.mempoolTxids()],
  };
}

export interface ReconcileRequest {
  readonly repair: boolean;
  /** Txids to look up on the ledger besides the tickets' (ARC: found in an explorer, a wallet). */
  readonly txids?: readonly string[];
  /** Raw transactions found elsewhere; each counts only as far as the ledger confirms it holds it. */
  readonly rawTxs?: readonly Uint8Array[];
}

export interface ReconcileReport {
  /** `listed`: the ledger listed everything it holds; `given`: only tickets and the txids given. */
  readonly coverage: 'listed' | 'given';
  readonly checked: { readonly tickets: number; readonly ledgerTransactions: number };
  readonly differences: readonly Difference[];
  readonly repaired: {
    readonly ingested: readonly string[];
    readonly fundingSpent: readonly string[];
    readonly retracked: readonly string[];
  };
  /** Differences a run after this one would still find (the repairs done). */
  readonly remaining: readonly Difference[];
  readonly ok: boolean;
}

export interface ReconcileDeps {
  readonly db: Db;
  readonly ledger: Pick<Ledger, 'status' | 'rawTransaction'>;
  readonly token: ReconcileToken;
  /** Present when the ledger can list its history. */
  readonly history?: LedgerHistory;
  readonly now: () => Date;
}

const CONCURRENCY = 16;

export async function reconcileLedger(deps: ReconcileDeps, req: ReconcileRequest): Promise<ReconcileReport> {
  const first = await compare(deps, req);
  if (!req.repair || first.result.differences.length === 0) {
    return report(deps, first, first.result.differences, { ingested: [], fundingSpent: [], retracked: [] });
  }
  const repaired = await applyRepairs(deps, first.result);
  const again = await compare(deps, req);
  return report(deps, first, again.result.differences, repaired);
}

function report(
  deps: ReconcileDeps,
  run: Awaited<ReturnType<typeof compare>>,
  remaining: readonly Difference[],
  repaired: ReconcileReport['repaired'],
): ReconcileReport {
  return {
    coverage: deps.history === undefined ? 'given' : 'listed',
    checked: { tickets: run.tickets, ledgerTransactions: run.ledgerTransactions },
    differences: run.result.differences,
    repaired,
    remaining,
    ok: remaining.length === 0,
  };
}

async function compare(deps: ReconcileDeps, req: ReconcileRequest) {
  const { db, ledger, token } = deps;
  const tickets = await ticketsOf(db);
  const ticketWords = new Map<string, LedgerWord>();
  await inBatches(tickets, async (t) => ticketWords.set(t.txid, wordOf(await ledger.status(t.txid))));

  // The transactions to look at: listed by the ledger, or given; with their raw bytes.
  const given = new Map<string, Uint8Array | null>();
  for (const raw of req.rawTxs ?? []) given.set(txidOf(raw), raw);
  for (const txid of req.txids ?? []) if (!given.has(txid)) given.set(txid, null);
  const listed = deps.history === undefined ? [] : await deps.history.txids();
  for (const txid of listed) if (!given.has(txid)) given.set(txid, null);
  const named = new Set(req.txids ?? []);
  const transactions: LedgerTransaction[] = [];
  const unread: { txid: string; word: LedgerWord }[] = [];
  await inBatches([...given], async ([txid, raw]) => {
    const bytes = raw ?? (await ledger.rawTransaction(txid));
    if (bytes === null) {
      if (named.has(txid))
        unread.push({ txid, word: ticketWords.get(txid) ?? wordOf(await ledger.status(txid)) });
      return;
    }
    if (!touchesService(bytes, txid, token)) return;
    const word = ticketWords.get(txid) ?? wordOf(await ledger.status(txid));
    transactions.push({ txid, raw: bytes, word });
  });
  transactions.sort((a, b) => (a.txid < b.txid ? -1 : 1));
  unread.sort((a, b) => (a.txid < b.txid ? -1 : 1));

  const view = await databaseView(
    db,
    tickets,
    transactions,
    unread.map((u) => u.txid),
    token,
  );
  const result = reconcile(view, { ticketWords, transactions, unread }, token);
  return { result, tickets: tickets.length, ledgerTransactions: transactions.length };
}

async function inBatches<T>(items: readonly T[], each: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += CONCURRENCY)
    await Promise.all(items.slice(i, i + CONCURRENCY).map(each));
}

function wordOf(status: TxStatus): LedgerWord {
  if (status.kind !== 'mined') return { kind: status.kind };
  const { blockHash, height, index, blockTime } = status;
  return { kind: 'mined', blockHash, height, index, blockTime };
}

async function ticketsOf(q: Queryable): Promise<DbTicket[]> {
  const rows = await q.query<{ id: string; txid: string; status: TicketStatus; tracked: boolean }>(
    'SELECT id::text AS id, txid, status, (next_check_at IS NOT NULL) AS tracked FROM tickets ORDER BY id',
  );
  return rows.map((r) => ({ id: r.id, txid: r.txid, status: r.status, tracked: r.tracked === true }));
}

const split = (outpoint: string) => {
  const at = outpoint.lastIndexOf('_');
  return { txid: outpoint.slice(0, at), vout: Number(outpoint.slice(at + 1)) };
};

/** What the database holds of the given ledger transactions: records, spent outputs, funding. */
async function databaseView(
  q: Queryable,
  tickets: readonly DbTicket[],
  transactions: readonly LedgerTransaction[],
  unreadTxids: readonly string[],
  token: ReconcileToken,
): Promise<DatabaseView> {
  const txids = [...transactions.map((t) => t.txid), ...unreadTxids];
  const inputs = transactions
    .flatMap((t) => readLedgerTransaction(t.raw, t.txid, token)?.inputs ?? [])
    .map(split);
  const inTxids = inputs.map((i) => i.txid);
  const inVouts = inputs.map((i) => i.vout);
  const [records, outputRows, poolRows, reserveRows, fundingRows] = await Promise.all([
    q.query<{ txid: string }>('SELECT txid FROM transactions WHERE txid = ANY($1::text[])', [txids]),
    q.query<{
      txid: string;
      vout: number;
      owner: string;
      amount: string;
      op: DbOutput['op'];
      spent_by: string | null;
    }>(
      `SELECT o.txid, o.vout, o.owner, o.amount::text AS amount, o.op, o.spent_by
         FROM unnest($1::text[], $2::int[]) AS u(txid, vout) JOIN token_outputs o ON o.txid = u.txid AND o.vout = u.vout`,
      [inTxids, inVouts],
    ),
    q.query<{ txid: string; vout: number }>(
      `SELECT f.txid, f.vout FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
         JOIN funding_outputs f ON f.txid = u.txid AND f.vout = u.vout WHERE f.state = 'available'`,
      [inTxids, inVouts],
    ),
    q.query<{ txid: string; vout: number }>(
      `SELECT f.txid, f.vout FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
         JOIN funding_reserve f ON f.txid = u.txid AND f.vout = u.vout WHERE f.state = 'available'`,
      [inTxids, inVouts],
    ),
    q.query<{ txid: string }>(
      `SELECT txid FROM funding_outputs WHERE txid = ANY($1::text[])
       UNION SELECT txid FROM funding_reserve WHERE txid = ANY($1::text[])`,
      [txids],
    ),
  ]);
  const outputs = new Map<string, DbOutput>();
  for (const r of outputRows)
    outputs.set(`${r.txid}_${Number(r.vout)}`, {
      owner: r.owner,
      amount: BigInt(r.amount),
      op: r.op,
      spentBy: r.spent_by,
    });
  const freeFunding: DbFunding[] = [
    ...poolRows.map((r) => ({
      outpoint: `${r.txid}_${Number(r.vout)}`,
      table: 'pool' as const,
      state: 'available' as const,
    })),
    ...reserveRows.map((r) => ({
      outpoint: `${r.txid}_${Number(r.vout)}`,
      table: 'reserve' as const,
      state: 'available' as const,
    })),
  ];
  return {
    tickets,
    records: new Set(records.map((r) => r.txid)),
    outputs,
    freeFunding,
    fundingTxids: new Set(fundingRows.map((r) => r.txid)),
  };
}

async function applyRepairs(
  deps: ReconcileDeps,
  result: ReturnType<typeof reconcile>,
): Promise<ReconcileReport['repaired']> {
  const { db } = deps;
  const ingested: string[] = [];
  const fundingSpent: string[] = [];
  for (const tx of result.ingest) {
    fundingSpent.push(...(await db.transaction((q) => ingestTransaction(q, tx, deps.now()))));
    ingested.push(tx.txid);
  }
  if (result.fundingSpent.length > 0) {
    await db.transaction(async (q) => {
      for (const table of ['pool', 'reserve'] as const) {
        const outpoints = result.fundingSpent.filter((f) => f.table === table).map((f) => split(f.outpoint));
        if (outpoints.length === 0) continue;
        const rows = await markFundingSpent(q, table, outpoints);
        fundingSpent.push(...rows);
      }
    });
  }
  let retracked: string[] = [];
  if (result.retrack.length > 0) {
    const rows = await db.query<{ id: string }>(
      `UPDATE tickets SET next_check_at = $2, lease_until = NULL
        WHERE id = ANY($1::uuid[]) AND status <> 'FAILED' AND next_check_at IS NULL RETURNING id::text AS id`,
      [result.retrack, deps.now()],
    );
    retracked = rows.map((r) => r.id);
  }
  return { ingested, fundingSpent, retracked };
}

async function markFundingSpent(
  q: Queryable,
  table: 'pool' | 'reserve',
  outpoints: readonly { txid: string; vout: number }[],
): Promise<string[]> {
  const sql =
    table === 'pool'
      ? `UPDATE funding_outputs f SET state = 'spent', reserved_by = NULL, lease_owner = NULL, lease_until = NULL
           FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
          WHERE f.txid = u.txid AND f.vout = u.vout AND f.state = 'available' RETURNING f.txid, f.vout`
      : `UPDATE funding_reserve f SET state = 'spent'
           FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
          WHERE f.txid = u.txid AND f.vout = u.vout AND f.state = 'available' RETURNING f.txid, f.vout`;
  const rows = await q.query<{ txid: string; vout: number }>(sql, [
    outpoints.map((o) => o.txid),
    outpoints.map((o) => o.vout),
  ]);
  return rows.map((r) => `${r.txid}_${Number(r.vout)}`);
}

/**
 * One missing token transaction into the index: its token inputs spent by it, its funding input
 * spent, then (the score lock last, docs/adr/0001) its record, address rows and token outputs.
 * Answers the funding outputs it marked spent.
 */
async function ingestTransaction(q: Queryable, tx: Ingest, now: Date): Promise<string[]> {
  const inputs = tx.inputs.map(split);
  const inTxids = inputs.map((i) => i.txid);
  const inVouts = inputs.map((i) => i.vout);
  await q.query(
    `WITH locked AS MATERIALIZED (
       SELECT o.txid, o.vout FROM unnest($1::text[], $2::int[]) AS u(txid, vout)
         JOIN token_outputs o ON o.txid = u.txid AND o.vout = u.vout
        ORDER BY o.txid, o.vout FOR UPDATE OF o)
     UPDATE token_outputs o SET spent_by = $3, reserved_by = NULL FROM locked l
      WHERE o.txid = l.txid AND o.vout = l.vout AND (o.spent_by IS NULL OR o.spent_by = $3)`,
    [inTxids, inVouts, tx.txid],
  );
  const funding = [
    ...(await markFundingSpent(q, 'pool', inputs)),
    ...(await markFundingSpent(q, 'reserve', inputs)),
  ];
  const block =
    tx.word.kind === 'mined'
      ? { height: tx.word.height, idx: tx.word.index, hash: tx.word.blockHash, time: tx.word.blockTime }
      : undefined;
  await insertScoredFeedRecords(q, [
    {
      txid: tx.txid,
      rawTx: tx.raw,
      senders: tx.senders,
      receivers: tx.receivers,
      outputs: tx.outputs,
      state: tx.word.kind === 'mined' ? 'mined' : 'unconfirmed',
      ...(block !== undefined && { block }),
      now,
    },
  ]);
  return funding;
}
