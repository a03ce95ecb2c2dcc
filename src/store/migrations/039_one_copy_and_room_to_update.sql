-- 039: one copy of each transaction, and room on the write path's pages for the next row version
-- (docs/adr/0018-one-copy-of-each-transaction.md).
--
-- A submission's ticket no longer stores the transaction: its change-feed record, written in the
-- same database transaction, holds the same bytes, and ticket reads take them from there
-- (store/tickets/ticket-row.ts, ticketRawTx). Tickets written before keep their copy, as does the
-- deploy's ticket; nothing is rewritten here.
ALTER TABLE tickets ALTER COLUMN raw_tx DROP NOT NULL;

-- Every row below is updated on its way from the submission to MINED (a ticket's status, a
-- record mined and its address rows rescored, an input reserved and spent, a funding output
-- leased, reserved and spent). With full pages each new row version goes to another page: two
-- pages written and the whole row in the WAL (a record's and, before this migration, a ticket's
-- transaction bytes each time). With room on its page the new version stays there: the WAL carries
-- only the bytes that changed, and an update that changes no indexed column is HOT (no index
-- entries). Rows of a page are mostly updated together (one batch, one block), so the pages that
-- hold several updates a row are filled to half. Pages written from now on only; the rows already
-- stored stay where they are.
ALTER TABLE transactions SET (fillfactor = 50);
ALTER TABLE transaction_addresses SET (fillfactor = 50);
ALTER TABLE tickets SET (fillfactor = 50);
ALTER TABLE funding_outputs SET (fillfactor = 50);
ALTER TABLE token_outputs SET (fillfactor = 70);

-- An address row is found by its address and score (the address's feed) or by its transaction
-- (the verdicts lock and rescore a record's rows): two indexes were enough for that, and there
-- were three. Keyed (txid, address) the primary key serves the second, and every new row or
-- rescored row version adds one index entry fewer (an entry is a txid and an address, about 200
-- bytes of WAL). Uniqueness is the same pair's. The key is rebuilt here, under the migration's
-- lock of the table.
ALTER TABLE transaction_addresses DROP CONSTRAINT transaction_addresses_pkey;
ALTER TABLE transaction_addresses ADD CONSTRAINT transaction_addresses_pkey PRIMARY KEY (txid, address);
DROP INDEX transaction_addresses_by_txid;

-- An input is reserved by its ticket (reserved_by) and spent by its transaction (spent_by) in one
-- update, and released (reserved_by cleared) when the network takes the transaction. The release
-- changed an indexed column (the index of reserved outputs, the spendable index's predicate), so
-- it was never HOT. Since every write that sets reserved_by sets spent_by too, "not spent" already
-- excludes every reserved output: the spendable index's predicate leaves reserved_by out (queries
-- keep testing it; their condition still implies the predicate), reserved outputs are found by
-- their spender's txid (token_outputs_spent_by), and the key to tickets goes: the one path that
-- deletes tickets (a batch's losers) releases their inputs first. The release is then HOT when its
-- page has room.
DROP INDEX token_outputs_reserved_by;
ALTER TABLE token_outputs DROP CONSTRAINT token_outputs_reserved_by_fkey;
DROP INDEX token_outputs_spendable_by_owner;
CREATE INDEX token_outputs_spendable_by_owner ON token_outputs (owner, score, txid, vout)
  INCLUDE (amount) WHERE spent_by IS NULL AND op <> 'burn';
