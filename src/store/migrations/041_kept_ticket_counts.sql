-- 041: tickets by status, kept (docs/adr/0021-counts-kept-per-connection.md). Tickets are
-- kept for good, so counting them (the tokenproxy_tickets gauge at every scrape,
-- GET /v2/admin/status, the console) read an index entry of every ticket ever made: tens of
-- milliseconds a million tickets (npm run bench:kept-counts), growing for as long as the
-- service runs.
--
-- ticket_status_counts holds signed changes of the count of each status, one row per database
-- connection (backend, the writer's pg_backend_pid()); a status's count is the sum of its column.
-- Statement-level triggers on tickets (transition tables) add each statement's net change to its
-- own connection's row, so every write keeps the counts (the service's, an older version's, a
-- manual fix's), and no two transactions ever write the same row: a connection runs one
-- transaction at a time, so kept counts add no lock wait between writers. A statement that moves
-- no status (most of the tracker's: schedules, leases) writes no row; one that does writes one,
-- a HOT update. Rows of connections that have ended are folded into backend 0
-- (store/db/kept-counts.ts).
CREATE TABLE ticket_status_counts (
  backend       integer PRIMARY KEY,  -- pg_backend_pid() of the connection that wrote it; 0: folded
  broadcasting  bigint NOT NULL DEFAULT 0,
  success       bigint NOT NULL DEFAULT 0,
  mined         bigint NOT NULL DEFAULT 0,
  failed        bigint NOT NULL DEFAULT 0
);

-- Each trigger adds one statement's net changes to this connection's row; a statement that
-- changed nothing writes nothing. Inserted tickets count up, deleted ones down (the transition
-- table is `changed` for both).
CREATE FUNCTION tickets_counted_inserted_or_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  direction CONSTANT int := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
  INSERT INTO ticket_status_counts AS c (backend, broadcasting, success, mined, failed)
  SELECT pg_backend_pid(), direction * count(*) FILTER (WHERE status = 'BROADCASTING'),
         direction * count(*) FILTER (WHERE status = 'SUCCESS'), direction * count(*) FILTER (WHERE status = 'MINED'),
         direction * count(*) FILTER (WHERE status = 'FAILED')
    FROM changed HAVING count(*) > 0
  ON CONFLICT (backend) DO UPDATE SET broadcasting = c.broadcasting + EXCLUDED.broadcasting,
    success = c.success + EXCLUDED.success, mined = c.mined + EXCLUDED.mined, failed = c.failed + EXCLUDED.failed;
  RETURN NULL;
END;
$$;

CREATE FUNCTION tickets_counted_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO ticket_status_counts AS c (backend, broadcasting, success, mined, failed)
  SELECT pg_backend_pid(), b, s, m, f
    FROM (SELECT coalesce(sum(n) FILTER (WHERE status = 'BROADCASTING'), 0) AS b,
                 coalesce(sum(n) FILTER (WHERE status = 'SUCCESS'), 0) AS s,
                 coalesce(sum(n) FILTER (WHERE status = 'MINED'), 0) AS m,
                 coalesce(sum(n) FILTER (WHERE status = 'FAILED'), 0) AS f
            FROM (SELECT status, 1 AS n FROM after_update UNION ALL SELECT status, -1 FROM before_update) d) t
   WHERE b <> 0 OR s <> 0 OR m <> 0 OR f <> 0
  ON CONFLICT (backend) DO UPDATE SET broadcasting = c.broadcasting + EXCLUDED.broadcasting,
    success = c.success + EXCLUDED.success, mined = c.mined + EXCLUDED.mined, failed = c.failed + EXCLUDED.failed;
  RETURN NULL;
END;
$$;

-- TRUNCATE fires no DELETE trigger: it empties the table, so every count is zero (backend 0's
-- row, always there, holds the zeros).
CREATE FUNCTION tickets_counted_truncated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM ticket_status_counts;
  INSERT INTO ticket_status_counts (backend) VALUES (0);
  RETURN NULL;
END;
$$;

-- One trigger per event: PostgreSQL allows transition tables only on single-event triggers.
-- Creating them locks tickets against writes until this migration commits, so the opening
-- counts below miss no change and count none twice.
CREATE TRIGGER tickets_counted_inserted AFTER INSERT ON tickets
  REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION tickets_counted_inserted_or_deleted();
CREATE TRIGGER tickets_counted_updated AFTER UPDATE ON tickets
  REFERENCING OLD TABLE AS before_update NEW TABLE AS after_update
  FOR EACH STATEMENT EXECUTE FUNCTION tickets_counted_updated();
CREATE TRIGGER tickets_counted_deleted AFTER DELETE ON tickets
  REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION tickets_counted_inserted_or_deleted();
CREATE TRIGGER tickets_counted_truncated AFTER TRUNCATE ON tickets
  FOR EACH STATEMENT EXECUTE FUNCTION tickets_counted_truncated();

INSERT INTO ticket_status_counts (backend, broadcasting, success, mined, failed)
SELECT 0, count(*) FILTER (WHERE status = 'BROADCASTING'), count(*) FILTER (WHERE status = 'SUCCESS'),
       count(*) FILTER (WHERE status = 'MINED'), count(*) FILTER (WHERE status = 'FAILED')
  FROM tickets;
