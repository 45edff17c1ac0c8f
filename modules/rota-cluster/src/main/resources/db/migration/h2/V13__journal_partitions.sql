-- Retention (docs/decisions.md, decision 124). H2's journal stays one table, and retention
-- deletes its old rows in batches; these tables are the same as PostgreSQL's: the ordering
-- sequence's value at times (rows at or below a mark older than the retention may go), and the
-- highest ordering retention may have removed (a reader asking for events after an earlier one is
-- answered 410 gone). PostgreSQL's V13 also partitions its journal.
create table journal_mark (
  taken_at timestamp with time zone not null,
  ordering bigint not null
);
create index journal_mark_taken_at_idx on journal_mark (taken_at);

create table journal_retention (
  id int not null primary key,
  removed_through bigint not null
);
insert into journal_retention (id, removed_through) values (1, 0);
