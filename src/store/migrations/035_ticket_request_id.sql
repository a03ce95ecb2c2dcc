-- The request that created a ticket (its X-Request-Id, or the one the service gave it), so that
-- every log record of the ticket, in whichever process writes it, carries it (docs/operations.md,
-- "Ticket logs"). Null for tickets made before, and for those no request made (mint, burn, deploy).
ALTER TABLE tickets ADD COLUMN request_id text;
