-- 031: SPV. The merkle path (BRC-74 BUMP) of a mined transaction, kept per transaction and block:
-- a reorg that mines it in another block gets a row of its own, and the block the transaction is
-- in now says which row is served. The headers (height, hash, merkle root) of the blocks those
-- paths belong to: the service's view for a chain tracker, the block it last saw at a height
-- `current`.
CREATE TABLE merkle_proofs (
  txid        text NOT NULL,
  block_hash  text NOT NULL,
  height      int NOT NULL,
  bump        bytea NOT NULL,
  seen_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (txid, block_hash)
);
CREATE TABLE block_headers (
  hash         text PRIMARY KEY,
  height       int NOT NULL,
  merkle_root  text NOT NULL,
  current      boolean NOT NULL DEFAULT true,
  seen_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX block_headers_current_height ON block_headers (height) WHERE current;
