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
import type { Ledger, TxStatus } from '../../ledger/port.js';
import type { Db, Queryable } from '../../store/db/db.js';
import { insertScoredFeedRecords } from '../../store/feed/feed-records.js';
import {
  freeFundingAt,
  fundingTxidsAmong,
  indexedOutputsAt,
  reconcileTickets,
  recordedTxids,
} from '../../store/operator/reconcile-reads.js';
import {
  markFundingSpent,
  retrackTickets,
  spendTokenInputs,
} from '../../store/operator/reconcile-repairs.js';

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
  const tickets = await reconcileTickets(db);
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
  const [records, outputs, freeFunding, fundingTxids] = await Promise.all([
    recordedTxids(q, txids),
    indexedOutputsAt(q, inputs),
    freeFundingAt(q, inputs),
    fundingTxidsAmong(q, txids),
  ]);
  return { tickets, records, outputs, freeFunding, fundingTxids };
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
    retracked = await retrackTickets(db, result.retrack, deps.now());
  }
  return { ingested, fundingSpent, retracked };
}

/**
 * One missing token transaction into the index: its token inputs spent by it, its funding input
 * spent, then (the score drawn last, docs/adr/0020) its record, address rows and token outputs.
 * Answers the funding outputs it marked spent.
 */
async function ingestTransaction(q: Queryable, tx: Ingest, now: Date): Promise<string[]> {
  const inputs = tx.inputs.map(split);
  await spendTokenInputs(q, inputs, tx.txid);
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
