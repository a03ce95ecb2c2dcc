-- 001_init: the service's tables. PostgreSQL dialect that PGlite runs too.
-- Conventions: token amounts NUMERIC(78,0) (bigint in code), satoshis BIGINT, txids as
-- lower-case hex text, times timestamptz, ticket ids UUIDv7 made by the application.
-- States are checked text values; a new state is a new migration.

-- Change-feed score (see src/store/feed/score.ts and docs/adr/0001-change-feed-score.md).
-- Drawn only through nextScores(), under an advisory lock held to commit.
CREATE SEQUENCE change_score_seq AS bigint START WITH 1;

-- The change feed: one record per token transaction, as GET/POST /v1/sync serve it.
-- Every insert or state change (seen, mined, reorged out, failed) gives it a new score.
CREATE TABLE transactions (
  txid        text PRIMARY KEY,
  raw_tx      bytea NOT NULL,                 -- final (cosigned) transaction
  senders     text[] NOT NULL DEFAULT '{}',   -- owners of its token inputs, each once
  receivers   text[] NOT NULL DEFAULT '{}',   -- owners of its token outputs, each once
  outs        int[] NOT NULL DEFAULT '{}',    -- indices of its token outputs
  state       text NOT NULL CHECK (state IN ('unconfirmed', 'mined', 'failed')),
  height      int NOT NULL DEFAULT 0,         -- 0 unless mined
  idx         int NOT NULL DEFAULT 0,         -- position in block, 0 unless mined
  blk_hash    text NOT NULL DEFAULT '',
  blk_time    bigint NOT NULL DEFAULT 0,      -- block time, unix seconds
  score       bigint NOT NULL UNIQUE,         -- its latest change; the sync cursor
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Who a transaction concerns (senders and receivers), for POST /v1/sync by address.
-- score mirrors transactions.score: the writer updates both in the same transaction.
CREATE TABLE transaction_addresses (
  address  text NOT NULL,
  txid     text NOT NULL REFERENCES transactions (txid) ON DELETE CASCADE,
  score    bigint NOT NULL,
  PRIMARY KEY (address, txid)
);
CREATE INDEX transaction_addresses_by_address_score ON transaction_addresses (address, score);
CREATE INDEX transaction_addresses_by_txid ON transaction_addresses (txid);

-- Tickets: the tracking record of a submitted transfer (GET /v2/ticket).
CREATE TABLE tickets (
  id                   uuid PRIMARY KEY,       -- UUIDv7
  txid                 text NOT NULL UNIQUE,   -- same transaction submitted twice: same ticket
  raw_tx               bytea NOT NULL,         -- final cosigned transaction
  status               text NOT NULL,          -- BROADCASTING, SUCCESS, MINED, FAILED
  status_rank          int NOT NULL,           -- numbered with gaps (ARC style), for ordering
  callback_url         text,
  callback_secret_enc  bytea,                  -- the submitter's callback_secret, encrypted
  api_key_id           text,
  errors               text,                   -- why it FAILED
  attempts             int NOT NULL DEFAULT 0, -- broadcast / status checks made
  next_check_at        timestamptz,            -- when the tracker looks again; NULL: never (terminal)
  lease_until          timestamptz,            -- a tracker holds it until then
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tickets_due ON tickets (next_check_at) WHERE next_check_at IS NOT NULL;

-- Token outputs (UTXOs of the token): created by a transaction, spent by a later one,
-- or reserved by a live ticket that spends them.
CREATE TABLE token_outputs (
  txid         text NOT NULL REFERENCES transactions (txid) ON DELETE CASCADE,
  vout         int NOT NULL,
  owner        text NOT NULL,                  -- address
  amount       numeric(78, 0) NOT NULL CHECK (amount >= 0),
  op           text NOT NULL CHECK (op IN ('deploy+mint', 'transfer', 'burn')),
  script       bytea NOT NULL,                 -- locking script
  satoshis     bigint NOT NULL,
  state        text NOT NULL CHECK (state IN ('unconfirmed', 'confirmed')),
  spent_by     text,                           -- txid of the transaction that spends it
  reserved_by  uuid REFERENCES tickets (id) ON DELETE SET NULL, -- live ticket spending it
  score        bigint NOT NULL,                -- score of the creating transaction (kept equal to it)
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (txid, vout)
);
-- Spendable outputs of an owner in score order, and their sum (index-only, via INCLUDE).
CREATE INDEX token_outputs_spendable_by_owner ON token_outputs (owner, score, txid, vout)
  INCLUDE (amount) WHERE spent_by IS NULL AND reserved_by IS NULL;
CREATE INDEX token_outputs_reserved_by ON token_outputs (reserved_by) WHERE reserved_by IS NOT NULL;
CREATE INDEX token_outputs_spent_by ON token_outputs (spent_by) WHERE spent_by IS NOT NULL;

-- The service's own satoshi outputs that pay transfer fees (the funding pool).
CREATE TABLE funding_outputs (
  txid         text NOT NULL,
  vout         int NOT NULL,
  satoshis     bigint NOT NULL CHECK (satoshis > 0),
  script       bytea NOT NULL,
  state        text NOT NULL CHECK (state IN ('available', 'reserved', 'spent')),
  reserved_by  uuid REFERENCES tickets (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (txid, vout)
);
-- "The smallest available output of at least N satoshis".
CREATE INDEX funding_outputs_available ON funding_outputs (satoshis, txid, vout) WHERE state = 'available';
CREATE INDEX funding_outputs_reserved_by ON funding_outputs (reserved_by) WHERE reserved_by IS NOT NULL;

-- Callback outbox: one event per ticket status change, delivered in seq order per ticket.
CREATE TABLE events (
  id               bigserial PRIMARY KEY,
  ticket_id        uuid NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
  webhook_id       text NOT NULL UNIQUE,       -- Standard Webhooks webhook-id, stable per event
  seq              int NOT NULL,               -- order within the ticket
  payload          jsonb NOT NULL,             -- the Ticket object as sent
  state            text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed', 'dead')),
  attempts         int NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  lease_owner      text,                       -- deliverer holding it
  lease_until      timestamptz,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz,
  UNIQUE (ticket_id, seq)
);
CREATE INDEX events_due ON events (next_attempt_at) WHERE state = 'pending';

-- One row per delivery attempt of an event (for operators and metrics).
CREATE TABLE delivery_attempts (
  id            bigserial PRIMARY KEY,
  event_id      bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  attempted_at  timestamptz NOT NULL DEFAULT now(),
  status_code   int,                           -- HTTP status, NULL when no answer
  latency_ms    int NOT NULL,
  error         text
);
CREATE INDEX delivery_attempts_by_event ON delivery_attempts (event_id, attempted_at);

-- API keys: stored only as hashes; scopes among read, submit, admin.
CREATE TABLE api_keys (
  id                  text PRIMARY KEY,
  name                text NOT NULL,
  key_hash            bytea NOT NULL UNIQUE,
  scopes              text[] NOT NULL,
  webhook_secret_enc  bytea NOT NULL,          -- the key's whsec_ signing secret, encrypted
  created_at          timestamptz NOT NULL DEFAULT now(),
  last_used_at        timestamptz,
  revoked_at          timestamptz
);

-- Idempotency-Key: the first answer to a request, replayed to its retries.
CREATE TABLE idempotency_keys (
  api_key_id       text NOT NULL,              -- '' for anonymous callers
  key              text NOT NULL,
  request_hash     bytea NOT NULL,             -- a retry with another body is refused
  response_status  int NOT NULL,
  response_body    text NOT NULL,
  content_type     text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (api_key_id, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

-- Facts of this deployment: token id, public keys, genesis, and the like.
CREATE TABLE settings (
  key         text PRIMARY KEY,
  value       jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
