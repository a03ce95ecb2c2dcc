-- 038: seize and reissue made crash-safe (issue 32). The reissue mint is built and signed first
-- and kept with the order, in the transaction that records the order and its outpoints: a
-- seizure is 'prepared' (its outpoints never cosigned again, its reissue kept, not known to be
-- submitted) until the reissue's ticket is committed and its txid recorded ('reissued'). Every
-- retry, restart or recovery pass submits those same bytes again, so the order is minted once:
-- a second submission of one transaction is answered with its first ticket.
ALTER TABLE seizures ADD COLUMN reissue_raw bytea;   -- the reissue as built and signed, before cosigning
ALTER TABLE seizures ADD COLUMN state text NOT NULL DEFAULT 'reissued';
-- Orders recorded before this migration whose reissue was never recorded: completed by the next
-- retry or recovery pass, which builds their reissue then (they kept none).
UPDATE seizures SET state = 'prepared' WHERE reissue_txid IS NULL;
ALTER TABLE seizures ALTER COLUMN state DROP DEFAULT;
ALTER TABLE seizures ADD CONSTRAINT seizures_state CHECK (
  (state = 'prepared' AND reissue_txid IS NULL) OR (state = 'reissued' AND reissue_txid IS NOT NULL)
);
-- The recovery pass reads the prepared ones, oldest first.
CREATE INDEX seizures_prepared ON seizures (at) WHERE state = 'prepared';
