-- 047: a proposal made for a request with an Idempotency-Key keeps the key: the same request sent
-- again, to any instance, answers the proposal the first one made instead of making another
-- (approvers could otherwise approve, and so execute, one mint twice). The unique index is the
-- arbiter across processes; rows made before this migration and requests without a key have none.
ALTER TABLE proposals
  ADD COLUMN idempotency_api_key_id text,
  ADD COLUMN idempotency_key text,
  ADD COLUMN idempotency_request_hash bytea;
CREATE UNIQUE INDEX proposals_by_idempotency_key ON proposals (idempotency_api_key_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
