-- The projections read events by tag, from their offset on
-- (dev.rota.cluster.readmodel.TagIndexReadJournalDao): this index makes that
-- a range scan of the tag's own rows. The plugin's primary key
-- (event_id, tag) serves only lookups by event, so the plugin's own query
-- read every partition's events to find one partition's.
create index event_tag_tag_idx on event_tag (tag, event_id);
