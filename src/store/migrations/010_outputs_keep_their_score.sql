-- 010: a token output keeps the score its transaction had when the output was recorded
-- (docs/adr/0003-outputs-keep-their-score.md). Mining, or a reorg, rescores the transaction's
-- change-feed record and its address rows, no longer its outputs: those row updates were most
-- of a block's settlement, made while holding the score lock. UTXO lists stay in score order,
-- now an order that a mined block does not reshuffle under a wallet paging through it.
-- The output's confirmation state was written and never read: a UTXO answer takes its
-- transaction's height from the change-feed record. It goes.
ALTER TABLE token_outputs DROP COLUMN state;
