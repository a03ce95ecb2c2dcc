-- 045: the raw bytes of the funding key's own splits. A transfer's funding input spends a split,
-- which is no record of the change feed: the Atomic BEEF of an unmined transfer needs the
-- split's bytes, and ARC serves raw transactions only from the memory of the process that
-- broadcast them. Kept when the split is recorded; one row a split (hundreds to thousands of
-- pool outputs each), so the table stays small.
CREATE TABLE funding_transactions (
  txid        text PRIMARY KEY,
  raw_tx      bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
