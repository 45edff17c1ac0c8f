-- Rota's read model, maintained by the projection from tagged agent events
-- (DESIGN §3) and read by coordinator start-up, lease rescue, admin listings
-- and stats.
-- payload: H2's TEXT is a CLOB; an unbounded VARCHAR (up to 1,000,000
-- characters) reads like PostgreSQL's text. Otherwise identical to
-- postgres/V3__rota_read_model.sql.

-- One row per registered agent: what the scheduler needs to know about it.
create table agent_schedule (
  agent_id varchar(128) primary key,
  partition_id int not null,
  name varchar(256),
  -- required capabilities, sorted, comma-separated
  capabilities varchar(4000) not null default '',
  priority int not null default 0,
  unread int not null default 0,
  oldest_unread_at timestamp with time zone,
  last_activated_at timestamp with time zone,
  activation_count bigint not null default 0,
  min_activation_interval_seconds bigint not null default 0,
  lease_id varchar(512),
  lease_runner_id varchar(256),
  -- inbox | exploration
  lease_kind varchar(32),
  lease_expires_at timestamp with time zone,
  paused boolean not null default false,
  snoozed_until timestamp with time zone,
  dead_letters int not null default 0,
  -- sequence number of the agent's last event reflected in this row
  seq_nr bigint not null,
  updated_at timestamp with time zone not null
);

create index agent_schedule_partition_idx on agent_schedule (partition_id);
create index agent_schedule_lease_expires_idx on agent_schedule (lease_expires_at);
create index agent_schedule_stalest_idx on agent_schedule (last_activated_at, agent_id);
create index agent_schedule_unread_idx on agent_schedule (unread);

-- Notifications that ran out of attempts or were cancelled/discarded,
-- visible to admins and re-drivable.
create table dead_letter (
  id varchar(600) primary key,
  agent_id varchar(128) not null,
  notification_id varchar(128) not null,
  type varchar(256),
  payload varchar,
  attempts int not null,
  reason varchar(2000),
  dead_at timestamp with time zone not null
);

create index dead_letter_agent_idx on dead_letter (agent_id, dead_at);
