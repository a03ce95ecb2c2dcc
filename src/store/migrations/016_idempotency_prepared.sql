-- 016: the transaction an admin write (mint, burn) built under an Idempotency-Key, kept before it
-- is submitted. The answer is kept only after the ticket commits and the broadcast settles; a
-- process killed in between keeps no answer, and a retry that built a new transaction would mint
-- twice. A retry submits the kept transaction again instead: the ticket it already has, or the
-- first time now. Purged with idempotency_keys.
CREATE TABLE idempotency_prepared (
  api_key_id    text NOT NULL,              -- '' for anonymous callers
  key           text NOT NULL,
  request_hash  bytea NOT NULL,             -- a retry with another body is refused
  raw_tx        bytea NOT NULL,             -- the transaction as built and signed, before cosigning
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (api_key_id, key)
);
CREATE INDEX idempotency_prepared_by_age ON idempotency_prepared (created_at);
