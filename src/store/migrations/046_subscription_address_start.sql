-- 046: an address added to a subscription starts at the feed's bound when it is added, as a
-- registration does: without a start of its own, every record between the dispatcher's cursor
-- and the addition became an event for it (changes made before anyone asked about the address).
-- Rows made before this migration start at 0: the subscription's own start_score bounds them.
ALTER TABLE subscription_addresses ADD COLUMN start_score bigint NOT NULL DEFAULT 0;
