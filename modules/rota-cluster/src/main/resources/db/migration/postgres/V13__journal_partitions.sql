-- Retention (docs/decisions.md, decision 124): the journal becomes a table partitioned by range of
-- its ordering, so retention removes whole partitions instead of deleting rows.
--
-- The journal written so far is not copied: it is renamed event_journal_p0 and attached as the
-- first partition, for orderings up to the next multiple of 100,000 above its highest. Attaching
-- checks every row against that range (one scan of the journal, under this migration's lock): on a
-- large journal, migrate with the nodes stopped (docs/operations.md). Two empty partitions are
-- created ahead; the journal's maintenance (dev.rota.cluster.journal.JournalPartitions) keeps
-- creating them. (persistence_id, sequence_number) stays unique within each partition: the old
-- primary key on p0, a unique index of its own on each later one.
do $$
declare
  top bigint;
  lo bigint;
begin
  alter table event_tag drop constraint if exists fk_event_journal;
  alter table event_journal rename to event_journal_p0;
  create table event_journal (like event_journal_p0 including defaults) partition by range (ordering);
  alter sequence event_journal_ordering_seq owned by event_journal.ordering;
  create unique index event_journal_ordering_uq on event_journal (ordering);
  select (coalesce(max(ordering), 0) / 100000 + 1) * 100000 into top from event_journal_p0;
  execute format(
    'alter table event_journal attach partition event_journal_p0 for values from (minvalue) to (%s)',
    top);
  for i in 0..1 loop
    lo := top + i * 100000;
    execute format('create table event_journal_%s (like event_journal including defaults)', lo);
    execute format(
      'create unique index event_journal_%s_pid_seq on event_journal_%s (persistence_id, sequence_number)',
      lo, lo);
    execute format(
      'alter table event_journal attach partition event_journal_%s for values from (%s) to (%s)',
      lo, lo, lo + 100000);
  end loop;
end
$$;

-- What retention needs to know: the ordering sequence's value at times (a partition may go once
-- its range lies below a mark older than the retention), and the highest ordering it may have
-- removed (a reader asking for events after an earlier one is answered 410 gone).
create table journal_mark (
  taken_at timestamptz not null,
  ordering bigint not null
);
create index journal_mark_taken_at_idx on journal_mark (taken_at);

create table journal_retention (
  id int not null primary key,
  removed_through bigint not null
);
insert into journal_retention (id, removed_through) values (1, 0);
