-- Counter slots of the journal's writers. Each writer of each node start takes a new slot from
-- this sequence and adds its counts to that slot's rota_counter rows only, so no two nodes (nor a
-- frozen node and its replacement) ever update the same counter row; readers sum over slots.
-- It starts above every partition and writer number the rows were keyed by before.
-- Identical for H2 and PostgreSQL.
create sequence rota_counter_slot start with 1000000;
