-- 036: address webhooks (issue 31, part 1). A subscription belongs to the API key that made it:
-- a URL, the event types it wants, a signing secret (sealed like callback secrets) and up to a
-- bound of addresses. Its events are derived from the change feed by one dispatcher at a time
-- (the cursor row, locked FOR UPDATE in the transaction that writes the events and moves it),
-- one row per (subscription, txid, address, status, score): a record's every change is one
-- event, never two. Events are delivered from subscription_events, each attempt logged.
CREATE TABLE subscriptions (
  id               uuid PRIMARY KEY,
  api_key_id       text NOT NULL,
  url              text NOT NULL,
  events           text[] NOT NULL,
  description      text NOT NULL DEFAULT '',
  secret_enc       bytea NOT NULL,
  enabled          boolean NOT NULL DEFAULT true,
  disabled_at      timestamptz,
  disabled_reason  text,
  -- The first failed attempt of the current run of failures (NULL: the last attempt worked).
  failing_since    timestamptz,
  -- Events are made for change-feed records above this score only (the feed's end at creation).
  start_score      bigint NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE INDEX subscriptions_by_key ON subscriptions (api_key_id, created_at);

CREATE TABLE subscription_addresses (
  subscription_id  uuid NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  address          text NOT NULL,
  PRIMARY KEY (subscription_id, address)
);
CREATE INDEX subscription_addresses_by_address ON subscription_addresses (address);

-- The change feed's score up to which events are made (one row).
CREATE TABLE subscription_cursor (
  id     int PRIMARY KEY CHECK (id = 1),
  score  bigint NOT NULL
);
INSERT INTO subscription_cursor (id, score) SELECT 1, COALESCE(max(score), 0) FROM transactions;

CREATE TABLE subscription_events (
  id                bigserial PRIMARY KEY,
  webhook_id        text NOT NULL UNIQUE,
  subscription_id   uuid NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  type              text NOT NULL,
  txid              text,
  address           text,
  status            text,
  score             bigint NOT NULL,
  payload           jsonb NOT NULL,
  -- pending (to send), delivered, failed (the retry window passed), skipped (the subscription
  -- was disabled: sent only when redelivered)
  state             text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'skipped')),
  attempts          int NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz,
  first_attempt_at  timestamptz,
  delivered_at      timestamptz,
  last_error        text,
  lease_owner       text,
  lease_until       timestamptz,
  created_at        timestamptz NOT NULL,
  UNIQUE (subscription_id, txid, address, status, score)
);
CREATE INDEX subscription_events_due ON subscription_events (next_attempt_at) WHERE state = 'pending';
CREATE INDEX subscription_events_by_score ON subscription_events (subscription_id, score, id);

CREATE TABLE subscription_delivery_attempts (
  id           bigserial PRIMARY KEY,          -- logical replication needs a key on every table
  event_id     bigint NOT NULL REFERENCES subscription_events (id) ON DELETE CASCADE,
  at           timestamptz NOT NULL,
  status_code  int,
  latency_ms   int NOT NULL,
  error        text
);
CREATE INDEX subscription_delivery_attempts_by_event ON subscription_delivery_attempts (event_id, at);
