// `tokenproxy audit`: recompute token outputs, balances and supply from the raw bytes of the
// change feed's transactions (failed ones left out, as the index leaves them out) and
// compare with the token_outputs index; and compare the balances kept per address (what
// `POST /v2/balance` answers) with the index's sums, and their kept total (what the supply read
// starts from) with the kept balances' sum. Any difference is reported.
import {
  type AuditDifference,
  type AuditOutput,
  type AuditToken,
  balancesOf,
  compareOutputs,
  conservationDrift,
  recomputeLedger,
  type SupplySplit,
  supplyOf,
  type UnreadableRecord,
} from '../../domain/ledger-audit.js';
import type { TicketStatus } from '../../domain/ticket-state.js';
import type { Ledger, TxStatus } from '../../ledger/port.js';
import type { EventState } from '../../store/callbacks/callback-deliveries.js';
import { EVENT_COUNTS } from '../../store/callbacks/event-counts.js';
import { seizedOutpoints } from '../../store/controls/seizure-store.js';
import type { Db, Queryable } from '../../store/db/db.js';
import { keptCountDrift } from '../../store/db/kept-counts.js';
import { inOneSnapshot } from '../../store/db/read-snapshot.js';
import { failedTxids, liveIndexedOutputs, liveRawTransactions } from '../../store/operator/audit-reads.js';
import { TICKET_COUNTS } from '../../store/tickets/ticket-counts.js';
import { type BalanceDrift, keptBalanceDrift } from '../../store/wallets/address-balances.js';
import { type KeptTotalDrift, keptTotalDrift } from '../../store/wallets/kept-supply.js';

/** A transaction the service gave up on (FAILED, inputs released) that the ledger holds anyway. */
export interface FailedOnLedger {
  readonly txid: string;
  readonly status: 'mempool' | 'mined';
  readonly height: number | null;
}

export interface AuditReport {
  readonly transactions: number;
  readonly outputs: number;
  /** Records whose raw bytes are no whole transaction: recomputed as creating and spending nothing. */
  readonly unreadableTransactions: readonly UnreadableRecord[];
  readonly supply: { readonly index: SupplySplit; readonly recomputed: SupplySplit };
  readonly balanceDifferences: readonly {
    readonly address: string;
    readonly index: bigint;
    readonly recomputed: bigint;
  }[];
  readonly outputDifferences: readonly AuditDifference[];
  /**
   * The recomputed supply's total when it is not what the deploy minted (a live transaction spends
   * what no live transaction created), else null.
   */
  readonly conservationDifference: { readonly genesis: bigint; readonly total: bigint } | null;
  /** Kept balances (what wallets are answered) that differ from the sum of the index's outputs. */
  readonly keptBalanceDifferences: readonly BalanceDrift[];
  /** The kept total (what keptSupply splits) when it differs from the kept balances' sum, else null. */
  readonly keptTotalDifference: KeptTotalDrift | null;
  /** Statuses whose kept ticket count (the gauges', the status's) differs from a count of the tickets. */
  readonly ticketCountDifferences: readonly { status: TicketStatus; kept: number; counted: number }[];
  /** States whose kept callback event count (the outbox gauge's) differs from a count of the events. */
  readonly eventCountDifferences: readonly { state: EventState; kept: number; counted: number }[];
  /** Failed transactions the ledger holds after all (asked only when a ledger is given). */
  readonly failedOnLedger: readonly FailedOnLedger[];
  readonly ok: boolean;
}

/**
 * The audit's reads run in one snapshot (a read-only REPEATABLE READ transaction): read in
 * statements of their own, a tracker batch or a submission committing between two of them would
 * show differences that no committed state of the database had. The ledger is asked after it.
 */
export async function auditLedger(
  db: Db,
  token: AuditToken,
  ledger?: Pick<Ledger, 'status'>,
): Promise<AuditReport> {
  const index = await inOneSnapshot(db, (q) => auditIndex(q, token));
  const failedOnLedger = ledger === undefined ? [] : await failedButHeld(db, ledger);
  return { ...index, failedOnLedger, ok: index.ok && failedOnLedger.length === 0 };
}

async function auditIndex(db: Queryable, token: AuditToken): Promise<Omit<AuditReport, 'failedOnLedger'>> {
  const txs = await liveRawTransactions(db);
  const { outputs: recomputed, unreadable } = recomputeLedger(txs, token.tokenId);
  const index = new Map<string, AuditOutput>();
  for (const o of await liveIndexedOutputs(db)) {
    index.set(`${o.txid}_${o.vout}`, { owner: o.owner, amount: o.amount, op: o.op, spent: o.spent });
  }
  const outputDifferences = compareOutputs(index, recomputed);
  const a = balancesOf(index);
  const b = balancesOf(recomputed);
  const balanceDifferences = [...new Set([...a.keys(), ...b.keys()])]
    .sort()
    .filter((address) => (a.get(address) ?? 0n) !== (b.get(address) ?? 0n))
    .map((address) => ({ address, index: a.get(address) ?? 0n, recomputed: b.get(address) ?? 0n }));
  // Seized outputs stay unspent on the ledger; the seizure record says which they are.
  const seized = await seizedOutpoints(db);
  const supply = { index: supplyOf(index, token, seized), recomputed: supplyOf(recomputed, token, seized) };
  const sameSupply = (Object.keys(supply.index) as (keyof SupplySplit)[]).every(
    (k) => supply.index[k] === supply.recomputed[k],
  );
  const conservationDifference = conservationDrift(recomputed, token, supply.recomputed);
  const keptBalanceDifferences = await keptBalanceDrift(db);
  const keptTotalDifference = await keptTotalDrift(db);
  const ticketCountDifferences = (await keptCountDrift(db, TICKET_COUNTS)).map(({ value, ...d }) => ({
    status: value,
    ...d,
  }));
  const eventCountDifferences = (await keptCountDrift(db, EVENT_COUNTS)).map(({ value, ...d }) => ({
    state: value,
    ...d,
  }));
  return {
    transactions: txs.length,
    outputs: recomputed.size,
    unreadableTransactions: unreadable,
    supply,
    balanceDifferences,
    outputDifferences,
    conservationDifference,
    keptBalanceDifferences,
    keptTotalDifference,
    ticketCountDifferences,
    eventCountDifferences,
    ok:
      unreadable.length === 0 &&
      outputDifferences.length === 0 &&
      balanceDifferences.length === 0 &&
      keptBalanceDifferences.length === 0 &&
      keptTotalDifference === null &&
      ticketCountDifferences.length === 0 &&
      eventCountDifferences.length === 0 &&
      sameSupply &&
      conservationDifference === null,
  };
}

/**
 * Failed transactions were cosigned and handed back before the ledger refused them (or the
 * tracker gave up): their inputs are released in the index. Whoever holds one may still get
 * it mined; the index then shows spent inputs as unspent and lacks its outputs.
 */
async function failedButHeld(db: Queryable, ledger: Pick<Ledger, 'status'>): Promise<FailedOnLedger[]> {
  const failed = await failedTxids(db);
  const held: FailedOnLedger[] = [];
  for (let i = 0; i < failed.length; i += 16) {
    const batch = failed.slice(i, i + 16);
    const statuses: TxStatus[] = await Promise.all(batch.map((txid) => ledger.status(txid)));
    statuses.forEach((status, j) => {
      if (status.kind === 'mined') held.push({ txid: batch[j]!, status: 'mined', height: status.height });
      else if (status.kind === 'mempool') held.push({ txid: batch[j]!, status: 'mempool', height: null });
    });
  }
  return held;
}
