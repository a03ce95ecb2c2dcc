// The History response (spec 2.7), computed from POST /v1/sync records exactly as the reference
// client's `recentTxHistory` / `recentTxHistories` (@mnee/ts-sdk 1.1.2: `S`, `getMneeSyncs`,
// `getRecentTxHistory`, `getRecentTxHistories`) computes it, quirks included:
// - records not naming the address among senders or receivers are dropped;
// - type "send" when the address is a sender, else "receive"; "confirmed" when height > 0;
// - token outputs are read with the COMPACTED `$` owner list indexed by output index;
// - a fee output (the first output owned by the fee address) counts as `fee` only when the
//   address is the first sender; otherwise it goes to the fee address's tally;
// - a sender's counterparties are the tallies net of what came back to the first sender, other
//   than the address and the fee address, that are positive; a receiver's single counterparty
//   is the first sender (undefined when there is none) with what the address received;
// - nextScore is the score of the last entry before slicing to `limit`, else fromScore or 0.
// Amounts are exact bigint; the client sums JS numbers from parseInt, equal within 2^53.
// Where the client would throw on a record, so does this (DomainError INVALID_TX). Pure.

import {
  type ClientChunk,
  type ClientTokenConfig,
  clientCosigns,
  clientInscriptionContent,
  clientParseInt,
  clientUtf8,
  jsonField,
} from './client-script-reading.js';
import { readClientTransaction } from './client-transaction.js';
import { DomainError } from './domain-error.js';

/** A POST /v1/sync record, as far as history reads it. */
export interface HistorySyncRecord {
  readonly txid: string;
  /** The raw transaction; empty bytes (the wire's `rawtx: ""`) give no entry. */
  readonly rawtx: Uint8Array;
  readonly senders: readonly string[];
  readonly receivers: readonly string[];
  readonly height: number;
  readonly score: bigint;
}

export type HistoryConfig = Pick<ClientTokenConfig, 'tokenId' | 'feeAddress'>;

export interface Counterparty {
  /** undefined where the client's own reading yields no address (JSON: the key is left out). */
  readonly address: string | undefined;
  readonly amount: bigint;
}

export interface TxHistoryEntry {
  readonly txid: string;
  readonly height: number;
  readonly type: 'send' | 'receive';
  readonly status: 'confirmed' | 'unconfirmed';
  readonly amount: bigint;
  readonly fee: bigint;
  readonly score: bigint;
  readonly counterparties: readonly Counterparty[];
}

export interface HistoryResponse {
  readonly address: string;
  readonly history: readonly TxHistoryEntry[];
  readonly nextScore: bigint;
}

export type HistoryOrder = 'asc' | 'desc';

export interface HistoryQuery {
  readonly fromScore?: bigint;
  /** A positive integer; undefined for no limit. */
  readonly limit?: number;
  readonly order?: HistoryOrder;
}

export interface HistoryParams extends HistoryQuery {
  readonly address: string;
}

/** The POST /v1/sync request the client makes for a history query. */
export interface SyncSelection {
  /** Score read up to, excluded: asc reads above it, desc below it (0: from the newest). */
  readonly from: bigint;
  /** Per-address maximum; 0 = all. */
  readonly limit: number;
  readonly order: HistoryOrder;
}

/** The sync request behind `recentTxHistory(address, fromScore, limit, order)`. */
export function historySelection(query: HistoryQuery): SyncSelection {
  return { from: query.fromScore ?? 0n, limit: query.limit ?? 0, order: query.order ?? 'asc' };
}

/**
 * The single form, `recentTxHistory`: `records` are what POST /v1/sync answers for
 * `[address]` with historySelection(query), in that order.
 */
export function historyFor(
  address: string,
  records: readonly HistorySyncRecord[],
  config: HistoryConfig,
  query: HistoryQuery = {},
): HistoryResponse {
  return respond(address, records, config, query, false);
}

/** One POST /v1/sync request of `recentTxHistories`, and the parameters it answers. */
export interface HistoryGroup {
  readonly selection: SyncSelection;
  readonly addresses: readonly string[];
  readonly params: readonly HistoryParams[];
}

/**
 * The multi form groups parameters by (fromScore, limit or 100, order) in first-seen order and
 * answers group after group: that is the order of its results, not the request order.
 */
export function historyGroups(params: readonly HistoryParams[]): HistoryGroup[] {
  const groups = new Map<string, { selection: SyncSelection; params: HistoryParams[] }>();
  for (const p of params) {
    const selection: SyncSelection = {
      from: p.fromScore ?? 0n,
      limit: p.limit || 100,
      order: p.order ?? 'asc',
    };
    const key = `${selection.from}:${selection.limit}:${p.order ?? 'default'}`;
    const group = groups.get(key) ?? { selection, params: [] };
    group.params.push(p);
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => ({ ...g, addresses: g.params.map((p) => p.address) }));
}

/**
 * The multi form's answers for one group: `records` are what POST /v1/sync answers for
 * `group.addresses` with `group.selection`. Entries are de-duplicated by txid.
 */
export function groupHistories(
  group: HistoryGroup,
  records: readonly HistorySyncRecord[],
  config: HistoryConfig,
): HistoryResponse[] {
  // An address asked again in the group gets the same answer: worked out once (each answer
  // parses every record of the address).
  const answered = new Map<string, HistoryResponse>();
  return group.addresses.map((address) => {
    let answer = answered.get(address);
    if (answer === undefined) {
      const first = group.params.find((p) => p.address === address);
      answer = respond(address, records, config, first ?? {}, true);
      answered.set(address, answer);
    }
    return answer;
  });
}

function respond(
  address: string,
  records: readonly HistorySyncRecord[],
  config: HistoryConfig,
  query: HistoryQuery,
  dedupe: boolean,
): HistoryResponse {
  const fallbackScore = query.fromScore || 0n;
  const mine = records.filter((r) => r.senders.includes(address) || r.receivers.includes(address));
  const history: TxHistoryEntry[] = [];
  const seen = new Set<string>();
  for (const record of mine) {
    const entry = historyEntry(record, address, config);
    if (entry === null || (dedupe && seen.has(entry.txid))) continue;
    seen.add(entry.txid);
    history.push(entry);
  }
  const nextScore = history.length > 0 ? history[history.length - 1]!.score : fallbackScore;
  const { limit } = query;
  return { address, history: limit && history.length > limit ? history.slice(0, limit) : history, nextScore };
}

/** The client's `S`: the history entry of one sync record for `address`, null without rawtx. */
export function historyEntry(
  record: HistorySyncRecord,
  address: string,
  config: HistoryConfig,
): TxHistoryEntry | null {
  const type = record.senders.includes(address) ? 'send' : 'receive';
  const status = record.height > 0 ? 'confirmed' : 'unconfirmed';
  if (record.rawtx.length === 0) return null;
  const scripts = readClientTransaction(record.rawtx).outputs.map((o) => o.lockingScript);
  try {
    return tallyEntry(record, address, config, scripts, type, status);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new DomainError(
      'INVALID_TX',
      `the reference client cannot read transaction ${record.txid}: ${reason}`,
    );
  }
}

function tallyEntry(
  record: HistorySyncRecord,
  address: string,
  config: HistoryConfig,
  scripts: readonly (readonly ClientChunk[])[],
  type: 'send' | 'receive',
  status: 'confirmed' | 'unconfirmed',
): TxHistoryEntry {
  const owners = clientCosigns(scripts).map((c) => c.address);
  const contents = scripts.map((script) => clientInscriptionContent(script));
  const feeIndex = owners.indexOf(config.feeAddress);
  const firstSender = record.senders[0];
  let fee = 0n;
  const tallies = new Map<string | undefined, bigint>();
  contents.forEach((content, n) => {
    if (!content) return;
    const text = clientUtf8(content);
    if (!text) return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return; // the client logs "Failed to parse inscription JSON" and skips the output
    }
    if (json === null) throw new TypeError("Cannot read properties of null (reading 'p')");
    if (jsonField(json, 'p') !== 'bsv-20' || jsonField(json, 'id') !== config.tokenId) return;
    const amount = clientParseInt(jsonField(json, 'amt'), 10);
    if (amount === null) return;
    if (feeIndex === n && firstSender === address) {
      fee += amount;
      return;
    }
    const owner = owners[n];
    tallies.set(owner, (tallies.get(owner) ?? 0n) + amount);
  });
  const received = tallies.get(address) ?? 0n;
  if (type === 'send') tallies.set(firstSender, (tallies.get(firstSender) ?? 0n) - received);
  const counterparties: Counterparty[] =
    type === 'receive'
      ? [{ address: firstSender, amount: received }]
      : [...tallies.entries()]
          .map(([owner, amount]) => ({ address: owner, amount }))
          .filter((c) => c.address !== address && c.address !== config.feeAddress && c.amount > 0n);
  const amount = counterparties.reduce((sum, c) => sum + c.amount, 0n);
  return {
    txid: record.txid,
    height: record.height,
    type,
    status,
    amount,
    fee,
    score: record.score,
    counterparties,
  };
}
