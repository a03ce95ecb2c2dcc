-- The writer's registry row kept its bearer token in clear, so any role that could read
-- `settings` could call the writer. The token is now derived from the approver key and the
-- row holds only its hash (src/writer/writer-token.ts); a row written the old way is dropped
-- (its writer re-registers within seconds, or its lease lapses).
DELETE FROM settings WHERE key = 'writer' AND value ? 'token';
