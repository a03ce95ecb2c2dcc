-- 049: a funding output's lease owner is no longer indexed, so that leasing an output, renewing
-- its lease and giving it back are HOT updates (issue 33, goal 2: an update that changes an
-- indexed column writes an entry in every index of the table and cannot stay on its page). The
-- index served two reads by owner: the renewal, which now names the outputs it renews (the
-- process holds them in memory: store/funding/funding-leases.ts), and the give-back of an
-- orderly stop or of an earlier run's leases at start, once a run, which now reads the pool's
-- available outputs (funding_outputs_available).
DROP INDEX funding_outputs_by_lease_owner;
