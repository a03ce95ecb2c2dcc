-- 004: operating the service (issue #6).
-- An API key may carry its own rate limit (requests per window); NULL: the configured
-- rateLimitPerKey.
ALTER TABLE api_keys ADD COLUMN rate_limit int CHECK (rate_limit IS NULL OR rate_limit > 0);

-- When a ticket first reached MINED: the time-to-mined histogram is observed once per ticket
-- (a ticket reorged out and mined again is not observed twice).
ALTER TABLE tickets ADD COLUMN first_mined_at timestamptz;
UPDATE tickets SET first_mined_at = updated_at WHERE status = 'MINED';

-- The funding reserve: outputs of the funding key that the pool refill splits, largest first.
-- It was one output in the `funding_reserve` setting; that output moves here. Sources: the
-- deploy's change, a split's change, an operator's payment (POST /v2/admin/funding/payments),
-- the former setting. `refused`: the ledger refused a split spending it (spent elsewhere).
CREATE TABLE funding_reserve (
  txid        text NOT NULL,
  vout        int NOT NULL CHECK (vout >= 0),
  satoshis    bigint NOT NULL CHECK (satoshis > 0),
  source      text NOT NULL CHECK (source IN ('deploy', 'split', 'payment', 'setting')),
  state       text NOT NULL DEFAULT 'available' CHECK (state IN ('available', 'spent', 'refused')),
  spent_by    text,
  error       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (txid, vout)
);
CREATE INDEX funding_reserve_available ON funding_reserve (satoshis DESC, txid, vout) WHERE state = 'available';
INSERT INTO funding_reserve (txid, vout, satoshis, source, created_at)
SELECT value->>'txid', (value->>'vout')::int, (value->>'satoshis')::bigint, 'setting', updated_at
  FROM settings
 WHERE key = 'funding_reserve' AND (value->>'satoshis')::bigint > 0;
DELETE FROM settings WHERE key = 'funding_reserve';
