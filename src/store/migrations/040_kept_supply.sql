-- 040: the sum of the kept balances, kept as well (docs/adr/0004-balances-kept-per-address.md),
-- for a supply read whose cost does not grow with the number of outputs. supply() sums every row
-- of token_outputs, a cost that grows with the ledger's history; keptSupply
-- (store/wallets/kept-supply.ts) reads the split from this total, the kept balances of the mint
-- and burn addresses, the burn outputs and the seized outputs instead.
--
-- kept_balance_total holds sum(address_balances.balance) in one row. Statement-level triggers on
-- address_balances (transition tables) add each statement's net change to it, so every write of
-- address_balances keeps it: the fold's INSERT ... ON CONFLICT DO UPDATE (its inserted rows reach
-- the INSERT trigger, its updated rows the UPDATE trigger, each once), an operator's rebuild, a
-- manual fix, a TRUNCATE. A statement that changes nothing (a fold that lost the turn) leaves the
-- row alone, so it never waits on the row lock of the fold that holds the turn. The total
-- spendable supply is this row plus the pending changes of address_balance_changes, read in one
-- statement.
CREATE TABLE kept_balance_total (
  id     boolean PRIMARY KEY DEFAULT true CHECK (id),  -- one row
  total  numeric(78, 0) NOT NULL
);

CREATE FUNCTION address_balances_total_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  delta numeric;
BEGIN
  SELECT coalesce(sum(balance), 0) INTO delta FROM inserted;
  IF delta <> 0 THEN
    UPDATE kept_balance_total SET total = total + delta;
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION address_balances_total_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  delta numeric;
BEGIN
  SELECT coalesce((SELECT sum(balance) FROM after_update), 0)
       - coalesce((SELECT sum(balance) FROM before_update), 0) INTO delta;
  IF delta <> 0 THEN
    UPDATE kept_balance_total SET total = total + delta;
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION address_balances_total_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  delta numeric;
BEGIN
  SELECT coalesce(sum(balance), 0) INTO delta FROM deleted;
  IF delta <> 0 THEN
    UPDATE kept_balance_total SET total = total - delta;
  END IF;
  RETURN NULL;
END;
$$;

-- TRUNCATE fires no DELETE trigger: it empties the table, so the total is zero.
CREATE FUNCTION address_balances_total_truncated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE kept_balance_total SET total = 0;
  RETURN NULL;
END;
$$;

-- One trigger per event: PostgreSQL allows transition tables only on single-event triggers.
-- Creating them locks address_balances against writes (folds included) until this migration
-- commits, so the opening total below misses no fold and counts none twice.
CREATE TRIGGER address_balances_total_inserted AFTER INSERT ON address_balances
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION address_balances_total_inserted();
CREATE TRIGGER address_balances_total_updated AFTER UPDATE ON address_balances
  REFERENCING OLD TABLE AS before_update NEW TABLE AS after_update
  FOR EACH STATEMENT EXECUTE FUNCTION address_balances_total_updated();
CREATE TRIGGER address_balances_total_deleted AFTER DELETE ON address_balances
  REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION address_balances_total_deleted();
CREATE TRIGGER address_balances_total_truncated AFTER TRUNCATE ON address_balances
  FOR EACH STATEMENT EXECUTE FUNCTION address_balances_total_truncated();

INSERT INTO kept_balance_total (total) SELECT coalesce(sum(balance), 0) FROM address_balances;

-- The burn outputs' sum (they are never spendable, so no kept balance holds them) read from an
-- index that holds only them: burns are rare, and ordinary transfers add no entry to it.
CREATE INDEX token_outputs_burns ON token_outputs (txid, vout) INCLUDE (amount) WHERE op = 'burn';
