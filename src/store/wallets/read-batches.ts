// The busiest reads (a ticket, balances, a page of unspent outputs) batched: what arrives in the
// same turn of the event loop, or while the reads' earlier statements run, is read in one
// statement. Under load most of a read's cost is the statement's fixed part (a round trip, a
// write and a wake-up on each side, PostgreSQL's parse and plan), which a batch pays once.
// A batch is sent only after its last request arrived, so it sees every write committed
// before any of its requests: a batched read is as fresh as a read of its own.
import { createBatcher } from '../../process/batcher.js';
import { type Db, hotReads } from '../db/db.js';
import { type TicketRecord, ticketsById } from '../tickets/ticket-queries.js';
import { type BalanceReader, balanceIn } from './balance-cache.js';
import { type UnspentOutput, type UnspentQuery, unspentOutputPages } from './wallet-queries.js';

/**
 * Statements of one kind of read at once. Two keep one slow read from holding up the others
 * while still gathering what arrives during a read into the next batch.
 */
const READS_IN_FLIGHT = 2;
/** Requests in one statement at most: the longest lists (utxos, balances) stay a few thousand addresses. */
const MAX_BATCH = 64;
const options = { maxBatch: MAX_BATCH, maxInFlight: READS_IN_FLIGHT, sameTurn: true };

/** Reads a ticket by id (lower case), batched; null when there is none. */
export function batchedTicketReader(db: Db): (id: string) => Promise<TicketRecord | null> {
  const reads = hotReads(db);
  const batcher = createBatcher<string, TicketRecord | null>(async (ids) => {
    const found = await ticketsById(reads, ids);
    return ids.map((id) => found.get(id) ?? null);
  }, options);
  return (id) => batcher.add(id);
}

/**
 * Reads pages of unspent outputs, batched; planned on every run (not among the hot reads planned
 * once): the page statement's generic plan ran 1.8 ms where planning it for each run's values
 * and running it took 0.75 ms in bench:load (docs/adr/0005-hot-reads-planned-once.md).
 */
export function batchedUnspentReader(db: Db): (query: UnspentQuery) => Promise<UnspentOutput[]> {
  const batcher = createBatcher<UnspentQuery, UnspentOutput[]>(
    (queries) => unspentOutputPages(db, queries),
    options,
  );
  return (query) => batcher.add(query);
}

/**
 * `reader` asked once per batch, for every address of the batch's requests. An address the
 * reader's answer lacks fails its batch (MissingBalanceError): absent is not 0.
 */
export function batchedBalanceReader(reader: BalanceReader): BalanceReader {
  const batcher = createBatcher<readonly string[], Map<string, bigint>>(async (lists) => {
    const amounts = await reader([...new Set(lists.flat())]);
    return lists.map((list) => new Map(list.map((address) => [address, balanceIn(amounts, address)])));
  }, options);
  return (addresses) => batcher.add(addresses);
}
