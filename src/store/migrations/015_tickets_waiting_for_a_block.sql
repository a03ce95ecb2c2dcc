-- 015: SUCCESS tickets wait for a block (docs/adr/0008). A ticket in the mempool is no longer
-- looked at every poll: a new block makes the waiting tickets due (a walk of this index in
-- submission order, a page at a time), and each poll the tracker asks about a few of them (the
-- canaries: the oldest, and the newest submitted a while ago) to find the blocks that nobody
-- pushes. Built while writes to `tickets` wait, once; the index holds only the tickets in the
-- mempool, so it stays as small as the mempool.
CREATE INDEX tickets_waiting_for_a_block ON tickets (created_at, id) WHERE status = 'SUCCESS';
