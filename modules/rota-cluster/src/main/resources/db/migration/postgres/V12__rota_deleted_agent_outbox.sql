-- What a deregistered agent still owes others: its agent_schedule row is
-- deleted with it, but its outbox (and the failed replies to the calls left in
-- its inbox) is still delivered by its entity (decision 121). The outbox sweeper
-- reads this table beside agent_schedule.outbox, so a deleted agent whose node
-- died before it delivered is woken too. A row goes when its count reaches zero,
-- or back into agent_schedule when the agent is registered again.
create table agent_outbox_after_delete (
  agent_id varchar(128) primary key,
  outbox int not null,
  seq_nr bigint not null,
  updated_at timestamp with time zone not null
);
