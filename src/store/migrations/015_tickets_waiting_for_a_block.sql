-- 015: SUCCESS tickets wait for a block (docs/adr/0008). A ticket in the mempool is no longer
-- looked at every poll. A block not seen before has the tracker ask about the waiting tickets,
-- at the block sweep's first look at its row, a poll after it was seen (its pushes have settled
-- theirs by then): `seen_at` is when the row was inserted, cleared when that starts. The index walks the
-- waiting tickets in submission order, a page at a time, and gives each poll's canaries (the
-- oldest, and the newest submitted a while ago), which find the blocks that nobody pushes. Built
-- while writes to `tickets` wait, once; it holds only the tickets in the mempool.
ALTER TABLE watched_blocks ADD COLUMN seen_at timestamptz;
CREATE INDEX tickets_waiting_for_a_block ON tickets (created_at, id) WHERE status = 'SUCCESS';
