-- outbox: how many sends and replies the agent owes others and has not yet
-- delivered (its entity keeps them). An agent whose node died with items owed
-- is woken from here by the outbox sweeper, so delivery survives the node.
alter table agent_schedule add column outbox int not null default 0;
create index agent_schedule_outbox_idx on agent_schedule (outbox);
