// The reconciliation's arithmetic (pure): what the database holds (tickets, change-feed records,
// token outputs, free funding outputs) against what the ledger holds (each known transaction's
// status, and the transactions it holds that touch the service: every one carrying an output of
// this token or paying the funding address). Answers every difference, and the repairs that are
// safe: a missing token transaction is ingested only from its own signed bytes (outputs, owners,
// amounts and ops read from the scripts, senders from the index's outputs it spends), and only
// when every token output it spends is in the index (or ingested before it) and unspent there,
// and its amounts balance. Nothing a description says is believed.
import type { Transaction } from '@bsv/sdk';
import { p2pkhAddress } from './address.js';
import { readTransaction } from './read-transaction.js';
import type { TicketStatus } from './ticket-state.js';
import { parseTokenScript } from './token-script.js';

/** The ledger's word on one transaction, as the ledger port's TxStatus kinds. */
export type LedgerWord =
  | { readonly kind: 'unknown' | 'mempool' | 'rejected' | 'double-spend' }
  | {
      readonly kind: 'mined';
      readonly blockHash: string;
      readonly height: number;
      readonly index: number;
      readonly blockTime: number;
    };

export interface ReconcileToken {
  readonly tokenId: string;
  /** The funding address: the service's satoshi outputs (pool and reserve) pay it. */
  readonly fundingAddress: string;
}

export interface DbTicket {
  readonly id: string;
  readonly txid: string;
  readonly status: TicketStatus;
  /** The tracker looks at it again (next_check_at set). */
  readonly tracked: boolean;
}

export interface DbOutput {
  readonly owner: string;
  readonly amount: bigint;
  readonly op: 'deploy+mint' | 'transfer' | 'burn';
  /** Txid of the transaction the index says spends it (or whose live ticket reserves it). */
  readonly spentBy: string | null;
}

export interface DbFunding {
  readonly outpoint: string;
  readonly table: 'pool' | 'reserve';
  /** Only free ones are given: available (leased or not). */
  readonly state: 'available';
}

export interface DatabaseView {
  readonly tickets: readonly DbTicket[];
  /** Txids of the change feed's records (any state). */
  readonly records: ReadonlySet<string>;
  /** Token outputs the index holds that the ledger transactions spend (`txid_vout`). */
  readonly outputs: ReadonlyMap<string, DbOutput>;
  /** Free funding outputs (`txid_vout`). */
  readonly freeFunding: readonly DbFunding[];
  /** Txids of every transaction with an output in the pool or the reserve, in any state. */
  readonly fundingTxids: ReadonlySet<string>;
}

export interface LedgerTransaction {
  readonly txid: string;
  readonly raw: Uint8Array;
  readonly word: LedgerWord;
}

export interface LedgerView {
  /** The ledger's word on every ticket's transaction. */
  readonly ticketWords: ReadonlyMap<string, LedgerWord>;
  /** Transactions the ledger holds (listed, or given and confirmed by it) touching the service. */
  readonly transactions: readonly LedgerTransaction[];
  /** Txids given whose raw bytes no one had (ARC serves none but its own broadcasts'). */
  readonly unread?: readonly { readonly txid: string; readonly word: LedgerWord }[];
}

export interface IngestOutput {
  readonly vout: number;
  readonly owner: string;
  readonly amount: bigint;
  readonly op: 'deploy+mint' | 'transfer' | 'burn';
  readonly script: Uint8Array;
  readonly satoshis: bigint;
}

/** A token transaction to write into the index, everything derived from its bytes. */
export interface Ingest {
  readonly txid: string;
  readonly raw: Uint8Array;
  /** Every input's outpoint (`txid_vout`): token ones are marked spent by it. */
  readonly inputs: readonly string[];
  readonly outputs: readonly IngestOutput[];
  readonly senders: readonly string[];
  readonly receivers: readonly string[];
  readonly word: LedgerWord & { readonly kind: 'mempool' | 'mined' };
}

export type Difference =
  /** The ledger holds a token transaction the database lacks (e.g. a mint after the dump). */
  | {
      readonly kind: 'missing-transaction';
      readonly txid: string;
      readonly ledger: 'mempool' | 'mined';
      /** Why it cannot be ingested safely; null when it can. */
      readonly refusal: string | null;
    }
  /** The ledger holds a transaction paying the funding address the database has no record of. */
  | {
      readonly kind: 'untracked-funding-transaction';
      readonly txid: string;
      readonly ledger: 'mempool' | 'mined';
    }
  /** A ticket the tracker no longer follows whose status the ledger does not bear out. */
  | {
      readonly kind: 'ticket-status';
      readonly ticketId: string;
      readonly txid: string;
      readonly database: TicketStatus;
      readonly ledger: LedgerWord['kind'];
    }
  /** A funding output free in the database that a ledger transaction spends. */
  | {
      readonly kind: 'funding-spent';
      readonly outpoint: string;
      readonly table: 'pool' | 'reserve';
      readonly spentBy: string;
    };

export interface Reconciliation {
  readonly differences: readonly Difference[];
  /** Parents before children. */
  readonly ingest: readonly Ingest[];
  readonly fundingSpent: readonly { readonly outpoint: string; readonly table: 'pool' | 'reserve' }[];
  /** Tickets the tracker should look at again. */
  readonly retrack: readonly string[];
}

const P2PKH_LENGTH = 25;

/** The address a bare P2PKH script pays, else null. */
export function p2pkhAddressOf(script: Uint8Array): string | null {
  if (
    script.length !== P2PKH_LENGTH ||
    script[0] !== 0x76 ||
    script[1] !== 0xa9 ||
    script[2] !== 0x14 ||
    script[23] !== 0x88 ||
    script[24] !== 0xac
  )
    return null;
  return p2pkhAddress(script.subarray(3, 23));
}

interface ParsedLedgerTx {
  readonly txid: string;
  readonly inputs: readonly string[];
  /** Token outputs of this token. */
  readonly outputs: readonly IngestOutput[];
  /** It pays the funding address. */
  readonly paysFunding: boolean;
}

/** Reads what the reconciliation needs of a transaction's bytes; null when they do not parse or hash to another txid. */
export function readLedgerTransaction(
  raw: Uint8Array,
  claimedTxid: string,
  token: ReconcileToken,
): ParsedLedgerTx | null {
  let tx: Transaction;
  try {
    // The bytes are the ledger's or an operator's (reconcile's rawtxs): counts they cannot hold
    // would make the sdk's parser allocate until the process dies.
    tx = readTransaction(raw);
  } catch {
    return null;
  }
  const txid = tx.id('hex');
  if (txid !== claimedTxid) return null;
  const outputs: IngestOutput[] = [];
  let paysFunding = false;
  tx.outputs.forEach((output, vout) => {
    const script = new Uint8Array(output.lockingScript.toBinary());
    const satoshis = BigInt(output.satoshis ?? 0);
    if (p2pkhAddressOf(script) === token.fundingAddress) paysFunding = true;
    const parsed = parseTokenScript(script);
    if (parsed === null) return;
    const { inscription } = parsed;
    const ours =
      inscription.op === 'deploy+mint'
        ? `${txid}_${vout}` === token.tokenId
        : inscription.id === token.tokenId;
    if (!ours) return;
    outputs.push({
      vout,
      owner: p2pkhAddress(parsed.ownerPkh),
      amount: inscription.amt,
      op: inscription.op,
      script,
      satoshis,
    });
  });
  const inputs = tx.inputs.map((i) => `${i.sourceTXID}_${i.sourceOutputIndex}`);
  return { txid, inputs, outputs, paysFunding };
}

/** Does the transaction touch the service (carry this token, or pay the funding address)? */
export function touchesService(raw: Uint8Array, txid: string, token: ReconcileToken): boolean {
  const parsed = readLedgerTransaction(raw, txid, token);
  return parsed !== null && (parsed.outputs.length > 0 || parsed.paysFunding);
}

/**
 * A ticket status the ledger's word bears out. A ticket the tracker follows (next_check_at set:
 * live, or mined and watched for reorgs) is the tracker's to bring in line within its poll
 * interval; only the ones it no longer looks at are compared.
 */
function agrees(ticket: DbTicket, word: LedgerWord['kind']): boolean {
  if (ticket.tracked) return true;
  switch (ticket.status) {
    case 'BROADCASTING':
    case 'SUCCESS':
      return false;
    case 'MINED':
      return word === 'mined';
    case 'FAILED':
      return word !== 'mempool' && word !== 'mined';
  }
}

export function reconcile(db: DatabaseView, ledger: LedgerView, token: ReconcileToken): Reconciliation {
  const differences: Difference[] = [];
  const retrack: string[] = [];
  for (const ticket of [...db.tickets].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const word = ledger.ticketWords.get(ticket.txid)?.kind ?? 'unknown';
    if (agrees(ticket, word)) continue;
    differences.push({
      kind: 'ticket-status',
      ticketId: ticket.id,
      txid: ticket.txid,
      database: ticket.status,
      ledger: word,
    });
    // A FAILED ticket is terminal: what the ledger holds of it is the audit's failedOnLedger,
    // an operator's call, not a tracker's.
    if (ticket.status !== 'FAILED') retrack.push(ticket.id);
  }

  // The ledger's transactions, each once, that it holds (mempool or mined).
  const held = new Map<string, { tx: ParsedLedgerTx; raw: Uint8Array; word: Ingest['word'] }>();
  for (const t of ledger.transactions) {
    if (t.word.kind !== 'mempool' && t.word.kind !== 'mined') continue;
    const tx = readLedgerTransaction(t.raw, t.txid, token);
    if (tx === null || held.has(tx.txid)) continue;
    held.set(tx.txid, { tx, raw: t.raw, word: t.word as Ingest['word'] });
  }

  // Missing token transactions, in an order where a parent comes before its children.
  const missing = [...held.values()].filter(({ tx }) => tx.outputs.length > 0 && !db.records.has(tx.txid));
  const ingest: Ingest[] = [];
  const created = new Map<string, DbOutput>();
  const spentNow = new Map<string, string>();
  for (const { tx, raw, word } of ordered(missing)) {
    const refusal = ingestRefusal(tx, db.outputs, created, spentNow);
    differences.push({ kind: 'missing-transaction', txid: tx.txid, ledger: word.kind, refusal });
    if (refusal !== null) continue;
    const senders = new Set<string>();
    for (const input of tx.inputs) {
      const spent = db.outputs.get(input) ?? created.get(input);
      if (spent === undefined) continue;
      senders.add(spent.owner);
      spentNow.set(input, tx.txid);
    }
    for (const o of tx.outputs)
      created.set(`${tx.txid}_${o.vout}`, { owner: o.owner, amount: o.amount, op: o.op, spentBy: null });
    ingest.push({
      txid: tx.txid,
      raw,
      inputs: tx.inputs,
      outputs: tx.outputs,
      senders: [...senders],
      receivers: [...new Set(tx.outputs.map((o) => o.owner))],
      word,
    });
  }

  // Given by txid only, held by the ledger, absent from the database, and no bytes to read.
  for (const { txid, word } of ledger.unread ?? []) {
    if ((word.kind !== 'mempool' && word.kind !== 'mined') || db.records.has(txid) || held.has(txid))
      continue;
    differences.push({
      kind: 'missing-transaction',
      txid,
      ledger: word.kind,
      refusal: 'the ledger serves no raw bytes of it: give them (--raw-file)',
    });
  }

  // Transactions paying the funding address that spend or create nothing the database knows
  // of (a split made after the dump, a payment never recorded): reported, not written.
  for (const { tx, word } of held.values()) {
    if (tx.outputs.length > 0 || !tx.paysFunding || db.records.has(tx.txid) || db.fundingTxids.has(tx.txid))
      continue;
    differences.push({ kind: 'untracked-funding-transaction', txid: tx.txid, ledger: word.kind });
  }

  // Free funding outputs a held transaction spends.
  const spenders = new Map<string, string>();
  for (const { tx } of held.values()) for (const input of tx.inputs) spenders.set(input, tx.txid);
  const fundingSpent: Reconciliation['fundingSpent'][number][] = [];
  for (const f of [...db.freeFunding].sort((a, b) => (a.outpoint < b.outpoint ? -1 : 1))) {
    const spentBy = spenders.get(f.outpoint);
    if (spentBy === undefined) continue;
    differences.push({ kind: 'funding-spent', outpoint: f.outpoint, table: f.table, spentBy });
    fundingSpent.push({ outpoint: f.outpoint, table: f.table });
  }
  return { differences, ingest, fundingSpent, retrack };
}

/** Why a missing token transaction cannot be written from its bytes; null when it can. */
function ingestRefusal(
  tx: ParsedLedgerTx,
  index: ReadonlyMap<string, DbOutput>,
  created: ReadonlyMap<string, DbOutput>,
  spentNow: ReadonlyMap<string, string>,
): string | null {
  if (tx.outputs.some((o) => o.op === 'deploy+mint'))
    return 'a deploy: the token is deployed once, and the database has its own';
  let totalIn = 0n;
  for (const input of tx.inputs) {
    const spent = index.get(input) ?? created.get(input);
    if (spent === undefined) continue;
    if (spent.op === 'burn') return `input ${input}: a burned output`;
    const other = spent.spentBy ?? spentNow.get(input) ?? null;
    if (other !== null && other !== tx.txid)
      return `input ${input}: the index has it spent by ${other}; settle that transaction first`;
    totalIn += spent.amount;
  }
  if (totalIn === 0n) return 'it spends no token output the index holds';
  const totalOut = tx.outputs.reduce((sum, o) => sum + o.amount, 0n);
  if (totalIn !== totalOut)
    return `amounts: the inputs the index holds carry ${totalIn}, the outputs ${totalOut}`;
  return null;
}

/** Parents before children (among the given transactions); otherwise in the given order. */
function ordered<T extends { tx: ParsedLedgerTx }>(items: readonly T[]): T[] {
  const byTxid = new Map(items.map((i) => [i.tx.txid, i]));
  const done = new Set<string>();
  const out: T[] = [];
  const visit = (item: T, depth: number): void => {
    if (done.has(item.tx.txid) || depth > items.length) return;
    for (const input of item.tx.inputs) {
      const parent = byTxid.get(input.slice(0, input.lastIndexOf('_')));
      if (parent !== undefined) visit(parent, depth + 1);
    }
    if (done.has(item.tx.txid)) return;
    done.add(item.tx.txid);
    out.push(item);
  };
  for (const item of items) visit(item, 0);
  return out;
}

/** True when nothing differs. */
export function reconciled(r: Pick<Reconciliation, 'differences'>): boolean {
  return r.differences.length === 0;
}
