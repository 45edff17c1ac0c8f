-- Settings a store cannot change once written, recorded by the first node that
-- starts on it and required by every later one (dev.rota.server.Database
-- requireSetting): rota.partitions, because agents' events are tagged and
-- their read-model rows keyed by partition. The column is "setting_value"
-- because VALUE is a reserved word in H2.
-- Identical to postgres/V6__rota_settings.sql.
create table rota_setting (
  name varchar(64) not null primary key,
  setting_value varchar(255) not null
);
