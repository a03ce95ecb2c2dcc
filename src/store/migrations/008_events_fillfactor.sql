-- 008: room on the outbox's pages for the deliverer's lease. Leasing an event sets only
-- lease_owner and lease_until, which no index covers: with free space on the row's page
-- PostgreSQL writes the new row version there (a HOT update) and touches none of the five
-- indexes of `events`. Filled pages made every lease a full update (measured: a lease of 256
-- events took 2-3 times as long). Pages written from now on are filled to half; the rest of
-- each page is left for the lease's row versions.
ALTER TABLE events SET (fillfactor = 50);
