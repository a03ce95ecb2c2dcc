-- The freeze list (issue 12): addresses whose outputs the service refuses to cosign.
-- `address_freezes` is the current set; `address_freeze_events` the append-only record of
-- every freeze and unfreeze, with who (the admin key id) and why.
CREATE TABLE address_freezes (
  address    text PRIMARY KEY,
  reason     text NOT NULL,
  frozen_by  text NOT NULL,
  frozen_at  timestamptz NOT NULL
);

CREATE TABLE address_freeze_events (
  id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  address  text NOT NULL,
  action   text NOT NULL CHECK (action IN ('freeze', 'unfreeze')),
  reason   text NOT NULL,
  actor    text NOT NULL,
  at       timestamptz NOT NULL
);
CREATE INDEX address_freeze_events_by_address ON address_freeze_events (address, id);

-- Append-only: an UPDATE or DELETE of the record fails.
CREATE FUNCTION address_freeze_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'address_freeze_events is append-only';
END;
$$;
CREATE TRIGGER address_freeze_events_append_only
  BEFORE UPDATE OR DELETE ON address_freeze_events
  FOR EACH ROW EXECUTE FUNCTION address_freeze_events_append_only();
