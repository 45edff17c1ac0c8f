-- Schedules (an agent's cron fires): the earliest fire of the agent's schedules
-- that no turn has served yet, null when none is coming. A coordinator that
-- loads its partition makes the agent due for a scheduled turn from then on,
-- so a fire missed while the cluster was down is served after the restart.
alter table agent_schedule add column next_fire_at timestamp with time zone;
