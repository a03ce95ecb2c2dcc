-- 043: a seized output says so on its own row. A transfer screened before a seizure committed
-- (the submission's look-ups found the outpoint unseized) reached the claim that reserves its
-- inputs with nothing there to refuse it: the seizure locked the output's row but wrote nothing
-- to it, and the claim, once that lock was released, read seized_outputs in its own older
-- snapshot. Now the seizure's transaction marks the row, and the claim reserves only unseized
-- rows: a claim that waited for the seizure re-checks the row's new version (PostgreSQL's
-- re-check of an updated row under READ COMMITTED) and leaves it, one that started after sees it.
-- The trigger marks the row whichever version's code records the seizure.
ALTER TABLE token_outputs ADD COLUMN seized boolean NOT NULL DEFAULT false;

CREATE FUNCTION seized_outputs_mark() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE token_outputs SET seized = true WHERE txid = NEW.txid AND vout = NEW.vout;
    RETURN NEW;
  END IF;
  UPDATE token_outputs SET seized = false WHERE txid = OLD.txid AND vout = OLD.vout;
  RETURN OLD;
END $$;

CREATE TRIGGER seized_outputs_mark AFTER INSERT OR DELETE ON seized_outputs
  FOR EACH ROW EXECUTE FUNCTION seized_outputs_mark();

UPDATE token_outputs o SET seized = true FROM seized_outputs s WHERE o.txid = s.txid AND o.vout = s.vout;
