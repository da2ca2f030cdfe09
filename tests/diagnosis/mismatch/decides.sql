-- Three ranks of group tp0 timed out at #5; ranks 0 and 1 called ALLREDUCE
-- there, rank 2 ALLGATHER: the majority says rank 2 deviated.
INSERT INTO rank_status(rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us, last_step,
  last_step_time_us, first_error_time_us, first_error_kind, first_timeout_time_us, init_complete, has_dump,
  sigterm_by_launcher, watchdog_abort)
VALUES (0, 'node-a', 0, 40, 1796000000000000, 1796000700000000, 1796000050000000, 4, 1796000040000000,
        1796000650000000, 'pg_watchdog_timeout', 1796000650000000, 1, 0, 0, 0),
       (1, 'node-a', 1, 40, 1796000000000000, 1796000700000000, 1796000050000000, 4, 1796000040000000,
        1796000650000000, 'pg_watchdog_timeout', 1796000650000000, 1, 0, 0, 0),
       (2, 'node-b', 0, 40, 1796000000000000, 1796000700000000, 1796000050000000, 4, 1796000040000000,
        1796000650000000, 'pg_watchdog_timeout', 1796000650000000, 1, 0, 0, 0);
INSERT INTO collectives(rank, pg, seq, op, numel_in, numel_out, dtype, state, time_created_us, evidence, event_id)
VALUES (0, 'tp0', 5, 'ALLREDUCE', 1024, 1024, 'Float', 'timed_out', 1796000050000000, 'watchdog', NULL),
       (1, 'tp0', 5, 'ALLREDUCE', 1024, 1024, 'Float', 'timed_out', 1796000050000000, 'watchdog', NULL),
       (2, 'tp0', 5, 'ALLGATHER', 1024, 3072, 'Float', 'timed_out', 1796000050000000, 'watchdog', NULL);
INSERT INTO pg_members(pg, rank, pg_rank) VALUES ('tp0', 0, 0), ('tp0', 1, 1), ('tp0', 2, 2);
