-- 011: the index of spendable outputs carries the whole spendable condition (store/wallet-
-- queries.ts: not spent, not reserved, not a burn). Its predicate lacked `op <> 'burn'`, so
-- PostgreSQL had to visit the table row of every output to test it: a balance, a sum over the
-- owner's outputs that the index holds the amounts of (INCLUDE), read one heap page per output
-- instead of the index alone. Measured on 100,000 outputs, 2,149 of them summed: 6.1 -> 1.6 ms
-- per balance call, 1,657 -> 46 buffers (2026-11-25); in bench:load the balance read was the
-- largest share of PostgreSQL's time. Same name, same columns: the stricter predicate still
-- never matches the free-row tests of the submission claims (store/submissions/submission-claims.ts).
DROP INDEX token_outputs_spendable_by_owner;
CREATE INDEX token_outputs_spendable_by_owner ON token_outputs (owner, score, txid, vout)
  INCLUDE (amount) WHERE spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn';
