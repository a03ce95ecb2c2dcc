-- 048: balances kept a row per owner and database connection
-- (docs/adr/0022-balances-kept-per-connection.md). The balance log of migration 012 made four
-- row writes of every transfer's two balance changes, none of them HOT: each statement that
-- changed token_outputs inserted a row per owner into address_balance_changes, and a fold
-- deleted them again and updated address_balances.
--
-- address_balance_parts holds, per owner, signed changes of its spendable sum in one row per
-- connection (backend, the writer's pg_backend_pid()); a balance is the sum of the owner's rows.
-- A connection runs one transaction at a time, so no two transactions in flight ever write the
-- same row: writers take no lock on a shared balance row and cannot deadlock on balances, as with
-- the log. Once a connection has written an owner's row, its later changes to that owner are HOT
-- updates (no indexed column changes). balance_total_parts keeps the sum of the balances the same
-- way, one row per connection. Rows of connections that have ended are folded into backend 0
-- (foldEndedBalanceParts, store/wallets/address-balances.ts), so an owner has at most a row per
-- live connection that changed its balance, and one more.
--
-- The trigger functions of migration 012 keep their triggers and names; their bodies now add to
-- the connection's rows. Spendable is still the condition of store/wallets/spendable.ts.

-- No write of token_outputs between the opening balances below and the new triggers' first
-- change: writers wait for this migration's commit (readers do not).
LOCK TABLE token_outputs IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE address_balance_parts (
  owner    text NOT NULL,
  backend  integer NOT NULL,  -- pg_backend_pid() of the connection that wrote it; 0: folded
  balance  numeric(78, 0) NOT NULL,
  PRIMARY KEY (owner, backend)
) WITH (fillfactor = 70);  -- room on the page for an update to stay HOT
-- The fold finds the connections with rows, and an ended connection's rows, without reading
-- every owner's.
CREATE INDEX address_balance_parts_by_backend ON address_balance_parts (backend);

CREATE TABLE balance_total_parts (
  backend  integer PRIMARY KEY,  -- as address_balance_parts.backend
  total    numeric(78, 0) NOT NULL
);

-- A statement's changes per owner (signed, none zero), added to this connection's rows, owners
-- in order, and their net change to the connection's total row (written whenever an owner's row
-- was, even when the net is zero).
CREATE FUNCTION keep_balance_changes(owners text[], amounts numeric[]) RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
  WITH changes AS (
    SELECT * FROM unnest(owners, amounts) AS c(owner, amount)
  ), parts AS (
    INSERT INTO address_balance_parts AS p (owner, backend, balance)
    SELECT owner, pg_backend_pid(), amount FROM changes ORDER BY owner
    ON CONFLICT (owner, backend) DO UPDATE SET balance = p.balance + EXCLUDED.balance
  )
  INSERT INTO balance_total_parts AS t (backend, total)
  SELECT pg_backend_pid(), sum(amount) FROM changes HAVING count(*) > 0
  ON CONFLICT (backend) DO UPDATE SET total = t.total + EXCLUDED.total;
$$;

CREATE OR REPLACE FUNCTION token_outputs_balance_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM keep_balance_changes(array_agg(owner), array_agg(amount)) FROM (
    SELECT owner, sum(amount) AS amount FROM inserted
     WHERE spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn'
     GROUP BY owner HAVING sum(amount) <> 0) c;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION token_outputs_balance_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM keep_balance_changes(array_agg(owner), array_agg(amount)) FROM (
    SELECT owner, sum(amount) AS amount FROM (
        SELECT owner, amount FROM after_update
         WHERE spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn'
        UNION ALL
        SELECT owner, -amount FROM before_update
         WHERE spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn') d
     GROUP BY owner HAVING sum(amount) <> 0) c;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION token_outputs_balance_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM keep_balance_changes(array_agg(owner), array_agg(amount)) FROM (
    SELECT owner, -sum(amount) AS amount FROM deleted
     WHERE spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn'
     GROUP BY owner HAVING sum(amount) <> 0) c;
  RETURN NULL;
END;
$$;

-- The opening balances and total are the kept ones, carried over as they are (pending changes
-- included): a difference from the outputs that the audit would have found, it still finds.
INSERT INTO address_balance_parts (owner, backend, balance)
SELECT owner, 0, sum(amount) FROM (
    SELECT owner, balance AS amount FROM address_balances
    UNION ALL
    SELECT owner, amount FROM address_balance_changes) kept
 GROUP BY owner;
INSERT INTO balance_total_parts (backend, total)
SELECT 0, (SELECT total FROM kept_balance_total)
        + (SELECT coalesce(sum(amount), 0) FROM address_balance_changes)
 WHERE EXISTS (SELECT 1 FROM kept_balance_total);

DROP TABLE address_balance_changes;
DROP TABLE kept_balance_total;
DROP TABLE address_balances;  -- and the triggers of migration 040 on it
DROP FUNCTION address_balances_total_inserted(), address_balances_total_updated(),
  address_balances_total_deleted(), address_balances_total_truncated();
