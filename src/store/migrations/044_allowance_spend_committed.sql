-- 044: an allowance spend says when its mint committed. Two attempts of one mint (the same kept
-- transaction: an Idempotency-Key sent to two processes, a proposal's executor after its lease
-- ran out) share one spend: the second finds it spent already. If the first was then refused
-- (its funding, say) it gave the spend back, although the second's mint had committed: a mint
-- the allowance never paid for. Every attempt whose mint commits now marks the spend, and a
-- refund takes back only an unmarked one: the mark and the refund's delete lock the same row,
-- so whichever comes second sees the first (a mark that finds the spend given back charges it
-- again). Spends recorded before this migration count as committed: none is refunded.
ALTER TABLE mint_allowance_spends ADD COLUMN committed boolean NOT NULL DEFAULT false;
UPDATE mint_allowance_spends SET committed = true;
