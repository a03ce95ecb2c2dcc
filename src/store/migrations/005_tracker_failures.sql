-- The tracker's backoff follows the failures in a row of one ticket's looks (the ledger
-- unavailable, an error), not every look it ever had: `attempts` counts all looks, so a ticket
-- watched for a while waited the longest backoff after a single failure. A successful look
-- (any status written) sets it back to 0.
ALTER TABLE tickets ADD COLUMN failures int NOT NULL DEFAULT 0;
