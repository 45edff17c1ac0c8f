-- Events the read-model projection could not apply (a value the table cannot
-- hold, a bug): each is skipped so that its partition keeps moving, and
-- recorded here, in the projection's own transaction, for admins
-- (GET /admin/stats readModel.skippedEvents) and for repair.
create table rota_skipped_event (
  persistence_id varchar(255) not null,
  seq_nr bigint not null,
  partition_id int not null,
  event_type varchar(128) not null,
  reason varchar(2000) not null,
  skipped_at timestamp with time zone not null,
  primary key (persistence_id, seq_nr)
);
