-- 003: callback delivery (src/callbacks). A ticket whose receiver answered 410 Gone gets no
-- more callbacks until POST /v2/ticket/{id}/redeliver clears the mark; an event remembers
-- when it was first attempted (retries run for 24 h from then); the deliverer finds the
-- first pending event of each ticket through an index (events of one ticket go in seq order).
ALTER TABLE tickets ADD COLUMN callbacks_stopped_at timestamptz;
ALTER TABLE events ADD COLUMN first_attempt_at timestamptz;
CREATE INDEX events_pending_by_ticket ON events (ticket_id, seq) WHERE state = 'pending';
