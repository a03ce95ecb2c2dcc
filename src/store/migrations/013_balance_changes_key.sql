-- 013: address_balance_changes gets a primary key, as every other table has one. Logical
-- replication (a publication FOR ALL TABLES, say for an online upgrade) refuses a DELETE on a
-- table without a replica identity, and every fold deletes from this one. The key (owner, id)
-- also serves a balance read's look-up by owner, so it replaces the owner index.
ALTER TABLE address_balance_changes ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE address_balance_changes ADD PRIMARY KEY (owner, id);
DROP INDEX address_balance_changes_by_owner;
