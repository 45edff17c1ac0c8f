-- agent_schedule's updates are HOT (decision 129). PostgreSQL updates a row in place on its page,
-- adding no index entry, only when the update changes no indexed column (the columns of a partial
-- index's predicate count too) and the page has room for the new version. Every update a turn
-- makes (notification, grant, renewal, end, outbox delivered) changed a column of one of these
-- five indexes, so none was HOT and each wrote an entry into all eight indexes. Their queries now
-- scan the table, as stats and the pool scaler's backlog already did: the lease rescuer's expired
-- leases, the outbox sweeper's owing agents, the leases by runner of the metrics sampler and the
-- pool scaler, the listing's pages and the explain view's ranks (docs/performance.md,
-- "agent_schedule: what each index serves").
drop index agent_schedule_lease_expires_idx;
drop index agent_schedule_lease_runner_idx;
drop index agent_schedule_unread_idx;
drop index agent_schedule_stalest_idx;
drop index agent_schedule_outbox_idx;

-- The lease rescuer's rows to rebuild (RowRebuild.pending): only the marked ones, in its order.
drop index agent_schedule_rebuild_idx;
create index agent_schedule_rebuild_idx on agent_schedule (agent_id) where rebuild;

-- Room on every page for new versions of its rows. Inserts leave it from now on; the full pages of
-- an existing table gain it as updates move rows off them and vacuum reclaims the space (VACUUM
-- FULL agent_schedule gives it at once, under an exclusive lock).
alter table agent_schedule set (fillfactor = 80);
