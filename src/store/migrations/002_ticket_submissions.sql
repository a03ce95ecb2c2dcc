-- 002: a ticket remembers the txid of the transaction as the wallet submitted it (before the
-- service cosigned it), so the same submission answers with the same ticket.
ALTER TABLE tickets ADD COLUMN submitted_txid text;
CREATE UNIQUE INDEX tickets_submitted_txid ON tickets (submitted_txid) WHERE submitted_txid IS NOT NULL;
-- Tickets spending a given transaction's outputs are found through token_outputs.spent_by.
CREATE INDEX tickets_status ON tickets (status);
