-- 042: callback events by state, kept as tickets by status are (migration 041,
-- docs/adr/0021-counts-kept-per-connection.md). Events are kept for good too, and the
-- tokenproxy_outbox_events gauge counted them by state at every scrape with a scan of the whole
-- table, payloads and all: about 290 ms a million events on PostgreSQL, growing for as long as
-- the service runs.
--
-- event_state_counts holds signed changes of each state's count, one row per database
-- connection (backend, the writer's pg_backend_pid()); statement-level triggers on events add
-- each statement's net change to the row of the connection that ran it. A statement that moves
-- no state (a lease, a retry's schedule) writes no row. Rows of connections that have ended are
-- folded into backend 0 (store/db/kept-counts.ts).
CREATE TABLE event_state_counts (
  backend    integer PRIMARY KEY,  -- pg_backend_pid() of the connection that wrote it; 0: folded
  pending    bigint NOT NULL DEFAULT 0,
  delivered  bigint NOT NULL DEFAULT 0,
  failed     bigint NOT NULL DEFAULT 0,
  dead       bigint NOT NULL DEFAULT 0
);

-- Inserted events count up, deleted ones (their ticket's delete cascades) down; the transition
-- table is `changed` for both.
CREATE FUNCTION events_counted_inserted_or_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  direction CONSTANT int := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
  INSERT INTO event_state_counts AS c (backend, pending, delivered, failed, dead)
  SELECT pg_backend_pid(), direction * count(*) FILTER (WHERE state = 'pending'),
         direction * count(*) FILTER (WHERE state = 'delivered'), direction * count(*) FILTER (WHERE state = 'failed'),
         direction * count(*) FILTER (WHERE state = 'dead')
    FROM changed HAVING count(*) > 0
  ON CONFLICT (backend) DO UPDATE SET pending = c.pending + EXCLUDED.pending,
    delivered = c.delivered + EXCLUDED.delivered, failed = c.failed + EXCLUDED.failed, dead = c.dead + EXCLUDED.dead;
  RETURN NULL;
END;
$$;

CREATE FUNCTION events_counted_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO event_state_counts AS c (backend, pending, delivered, failed, dead)
  SELECT pg_backend_pid(), p, d, f, x
    FROM (SELECT coalesce(sum(n) FILTER (WHERE state = 'pending'), 0) AS p,
                 coalesce(sum(n) FILTER (WHERE state = 'delivered'), 0) AS d,
                 coalesce(sum(n) FILTER (WHERE state = 'failed'), 0) AS f,
                 coalesce(sum(n) FILTER (WHERE state = 'dead'), 0) AS x
            FROM (SELECT state, 1 AS n FROM after_update UNION ALL SELECT state, -1 FROM before_update) s) t
   WHERE p <> 0 OR d <> 0 OR f <> 0 OR x <> 0
  ON CONFLICT (backend) DO UPDATE SET pending = c.pending + EXCLUDED.pending,
    delivered = c.delivered + EXCLUDED.delivered, failed = c.failed + EXCLUDED.failed, dead = c.dead + EXCLUDED.dead;
  RETURN NULL;
END;
$$;

-- TRUNCATE (of events, or of tickets ... CASCADE) fires no DELETE trigger: every count is
-- zero, held by backend 0's row.
CREATE FUNCTION events_counted_truncated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM event_state_counts;
  INSERT INTO event_state_counts (backend) VALUES (0);
  RETURN NULL;
END;
$$;

-- Creating the triggers locks events against writes until this migration commits, so the
-- opening counts below miss no change and count none twice.
CREATE TRIGGER events_counted_inserted AFTER INSERT ON events
  REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION events_counted_inserted_or_deleted();
CREATE TRIGGER events_counted_updated AFTER UPDATE ON events
  REFERENCING OLD TABLE AS before_update NEW TABLE AS after_update
  FOR EACH STATEMENT EXECUTE FUNCTION events_counted_updated();
CREATE TRIGGER events_counted_deleted AFTER DELETE ON events
  REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION events_counted_inserted_or_deleted();
CREATE TRIGGER events_counted_truncated AFTER TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_counted_truncated();

INSERT INTO event_state_counts (backend, pending, delivered, failed, dead)
SELECT 0, count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'delivered'),
       count(*) FILTER (WHERE state = 'failed'), count(*) FILTER (WHERE state = 'dead')
  FROM events;
