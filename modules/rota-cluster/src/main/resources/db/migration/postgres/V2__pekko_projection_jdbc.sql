-- Offset store and management tables of pekko-projection-jdbc 1.0.0, as its
-- PostgresDialect creates them (default table names, use-lowercase-schema = true).

create table if not exists pekko_projection_offset_store (
  projection_name varchar(255) not null,
  projection_key varchar(255) not null,
  current_offset varchar(255) not null,
  manifest varchar(4) not null,
  mergeable boolean not null,
  last_updated bigint not null,
  primary key(projection_name, projection_key)
);

create index if not exists projection_name_index on pekko_projection_offset_store (projection_name);

create table if not exists pekko_projection_management (
  projection_name varchar(255) not null,
  projection_key varchar(255) not null,
  paused boolean not null,
  last_updated bigint not null,
  primary key(projection_name, projection_key)
);
