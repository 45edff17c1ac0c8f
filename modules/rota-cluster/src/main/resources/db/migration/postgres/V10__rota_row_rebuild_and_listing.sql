-- rebuild: the projection skipped an event of this agent (rota_skipped_event), so
-- the row may be wrong; the lease rescuer rewrites it from the agent entity and
-- clears the flag. A skipped event that found no row inserts a placeholder row
-- with the flag, so coordinators and the rescuer still see the agent.
alter table agent_schedule add column rebuild boolean not null default false;
-- The agent's whole configuration (AgentConfig as JSON) and its lease's grant
-- time, so GET /v1/agents lists agents from this table alone instead of asking
-- (and recovering) every listed entity. Null in rows written before: those are
-- listed from their entity until their next registration or update.
alter table agent_schedule add column config text;
alter table agent_schedule add column lease_granted_at timestamp with time zone;
create index agent_schedule_rebuild_idx on agent_schedule (rebuild);
