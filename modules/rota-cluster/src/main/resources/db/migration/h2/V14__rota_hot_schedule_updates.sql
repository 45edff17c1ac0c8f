-- The indexes postgres/V13__rota_hot_schedule_updates.sql drops so that a turn's updates of
-- agent_schedule are HOT (decision 129). H2 has no HOT, but the same queries then read the same
-- way on both databases, and an H2 update no longer moves entries in these indexes either. H2 has
-- neither partial indexes nor a fillfactor: agent_schedule_rebuild_idx stays as V10 made it.
drop index agent_schedule_lease_expires_idx;
drop index agent_schedule_lease_runner_idx;
drop index agent_schedule_unread_idx;
drop index agent_schedule_stalest_idx;
drop index agent_schedule_outbox_idx;
