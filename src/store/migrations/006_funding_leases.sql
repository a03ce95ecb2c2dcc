-- 006: funding outputs are leased to a process ahead of demand (docs/adr/0002-batched-write-path.md).
-- An available output with a live lease (lease_until in the future) belongs to the process named
-- lease_owner: only it picks the output for a transfer, in memory, and reserves it in its batch.
-- A lease outlives no crash: it expires (the owner renews it while it runs), and an expired lease
-- is free for any process to take.
ALTER TABLE funding_outputs ADD COLUMN lease_owner text;
ALTER TABLE funding_outputs ADD COLUMN lease_until timestamptz;
CREATE INDEX funding_outputs_by_lease_owner ON funding_outputs (lease_owner) WHERE lease_owner IS NOT NULL;
