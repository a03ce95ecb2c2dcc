-- The issuer's controls (issue 32), beside the freeze list of 009: the pause (one row, read by
-- every submission batch's look-ups), the blacklist (current set; an address on it can neither
-- send nor receive), seizures (an order's frozen outpoints, never cosigned again, their value
-- reissued to the address the order names), and control_events: the append-only record of every
-- control change, with the admin key that made it.
CREATE TABLE issuer_pause (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  paused      boolean NOT NULL,
  reason      text NOT NULL,
  changed_by  text NOT NULL,
  changed_at  timestamptz NOT NULL
);
INSERT INTO issuer_pause (paused, reason, changed_by, changed_at) VALUES (false, '', 'migration', now());

CREATE TABLE address_blacklist (
  address    text PRIMARY KEY,
  reason     text NOT NULL,
  listed_by  text NOT NULL,
  listed_at  timestamptz NOT NULL
);

CREATE TABLE seizures (
  id          uuid PRIMARY KEY,
  reference   text NOT NULL UNIQUE,              -- the order's number or hash: one seizure per order
  reason      text NOT NULL,
  reissue_to  text NOT NULL,
  amount      numeric(78, 0) NOT NULL CHECK (amount > 0),
  reissue_txid text,                             -- the mint to reissue_to, once broadcast
  actor       text NOT NULL,
  at          timestamptz NOT NULL
);

-- An outpoint is seized once; the lookups of every submission batch refuse to cosign it.
CREATE TABLE seized_outputs (
  txid        text NOT NULL,
  vout        int NOT NULL,
  seizure_id  uuid NOT NULL REFERENCES seizures (id),
  owner       text NOT NULL,
  amount      numeric(78, 0) NOT NULL,
  PRIMARY KEY (txid, vout)
);

CREATE TABLE control_events (
  id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  action   text NOT NULL,                        -- pause, unpause, blacklist, unblacklist, seize, screening-deny
  subject  text NOT NULL,                        -- an address, a seizure reference, '' for the pause
  reason   text NOT NULL,
  actor    text NOT NULL,
  at       timestamptz NOT NULL,
  detail   jsonb NOT NULL DEFAULT '{}'
);

CREATE FUNCTION control_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'control_events is append-only';
END;
$$;
CREATE TRIGGER control_events_append_only
  BEFORE UPDATE OR DELETE ON control_events
  FOR EACH ROW EXECUTE FUNCTION control_events_append_only();
