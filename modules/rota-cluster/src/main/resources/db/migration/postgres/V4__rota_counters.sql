-- Cluster-wide counters kept by the agent-schedule projection
-- (dev.rota.cluster.readmodel.AgentScheduleProjectionHandler), in the same
-- transaction as the events they count, so they are exactly-once.
-- One row per counter and partition: each partition's projection writes only
-- its own rows, so projections never wait on each other's locks. Readers sum
-- over partitions (ReadModel.stats). The column is "total" because VALUE is a
-- reserved word in H2.
-- Identical to h2/V4__rota_counters.sql.
create table rota_counter (
  name varchar(64) not null,
  partition_id int not null,
  total bigint not null,
  primary key (name, partition_id)
);

-- When the agent was registered: a never-activated agent is stale from here.
alter table agent_schedule add column registered_at timestamp with time zone;

-- The lease a runner holds (GET /admin/runners).
create index agent_schedule_lease_runner_idx on agent_schedule (lease_runner_id);

-- Dead letters across all agents, newest first (GET /admin/dead-letters).
create index dead_letter_dead_at_idx on dead_letter (dead_at);
