-- 012: balances kept per address as token outputs change (docs/adr/0004-balances-kept-per-address.md).
-- A balance was the sum of the owner's spendable outputs, read on every `POST /v2/balance`: a
-- hot address's sum grows with its outputs (3.2-3.7 ms a call in bench:load, 40% of
-- PostgreSQL's statement time). Now every statement that changes token_outputs appends, per
-- owner, what it changed of the spendable sum (statement-level triggers, transition tables) to
-- address_balance_changes, which only ever receives INSERTs: writers take no lock on a shared
-- balance row, so batches of several processes cannot deadlock on balances. A folder moves the
-- changes into address_balances (store/wallets/address-balances.ts), deleting and adding them in one
-- statement. A balance is address_balances' row plus the owner's pending changes, read in one
-- statement: one snapshot sees a fold entirely or not at all.
--
-- Spendable is the condition of store/wallets/spendable.ts: not spent, not reserved, not a burn. The
-- functions resolve table names in the schema they were created in, whatever the writer's
-- search_path.

CREATE TABLE address_balances (
  owner    text PRIMARY KEY,
  balance  numeric(78, 0) NOT NULL
);

CREATE TABLE address_balance_changes (
  owner   text NOT NULL,
  amount  numeric(78, 0) NOT NULL  -- signed: what one statement changed of the owner's balance
);
CREATE INDEX address_balance_changes_by_owner ON address_balance_changes (owner);

CREATE FUNCTION token_outputs_balance_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO address_balance_changes (owner, amount)
  SELECT owner, sum(amount) FROM inserted
   WHERE spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn'
   GROUP BY owner;
  RETURN NULL;
END;
$$;

CREATE FUNCTION token_outputs_balance_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO address_balance_changes (owner, amount)
  SELECT owner, sum(amount) FROM (
      SELECT owner, amount FROM after_update
       WHERE spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn'
      UNION ALL
      SELECT owner, -amount FROM before_update
       WHERE spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn') c
   GROUP BY owner
  HAVING sum(amount) <> 0;
  RETURN NULL;
END;
$$;

CREATE FUNCTION token_outputs_balance_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO address_balance_changes (owner, amount)
  SELECT owner, -sum(amount) FROM deleted
   WHERE spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn'
   GROUP BY owner;
  RETURN NULL;
END;
$$;

-- One trigger per event: PostgreSQL allows transition tables only on single-event triggers.
-- Creating them locks token_outputs against writes until this migration commits, so the
-- opening balances below miss no change and count none twice.
CREATE TRIGGER token_outputs_balance_inserted AFTER INSERT ON token_outputs
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION token_outputs_balance_inserted();
CREATE TRIGGER token_outputs_balance_updated AFTER UPDATE ON token_outputs
  REFERENCING OLD TABLE AS before_update NEW TABLE AS after_update
  FOR EACH STATEMENT EXECUTE FUNCTION token_outputs_balance_updated();
CREATE TRIGGER token_outputs_balance_deleted AFTER DELETE ON token_outputs
  REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION token_outputs_balance_deleted();

INSERT INTO address_balances (owner, balance)
SELECT owner, sum(amount) FROM token_outputs
 WHERE spent_by IS NULL AND reserved_by IS NULL AND op <> 'burn'
 GROUP BY owner;
