-- 014: the tracker watches blocks, not tickets (docs/adr/0006). A MINED ticket that is not yet
-- final gets only a late backstop look of its own; the block it is mined in gets a row here,
-- looked at every poll through one of its transactions (the probe). When the block is final,
-- one statement settles its tickets; when it left the chain, one statement makes them due.
-- The tickets watched one by one before this migration keep their schedules: the sweep's next
-- look at each moves it to its block's row.
CREATE TABLE watched_blocks (
  blk_hash       text PRIMARY KEY,
  height         int NOT NULL,
  probe_txid     text NOT NULL,          -- a transaction recorded as mined in this block
  next_check_at  timestamptz NOT NULL,   -- when the tracker looks again
  lease_until    timestamptz,            -- a tracker holds it until then
  failures       int NOT NULL DEFAULT 0  -- failed looks in a row (the back-off)
);
CREATE INDEX watched_blocks_due ON watched_blocks (next_check_at);

-- The records mined in a block, for the statements that settle or recheck its tickets.
CREATE INDEX transactions_by_mined_block ON transactions (blk_hash) WHERE state = 'mined';
