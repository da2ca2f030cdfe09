-- No dumps: ranks 0 and 1 timed out; rank 2 never did, yet it was alive (it
-- logged a heartbeat line after they had failed): it was stuck in host code.
INSERT INTO rank_status(rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us, last_step,
  last_step_time_us, first_error_time_us, first_error_kind, first_timeout_time_us, init_complete, has_dump,
  sigterm_by_launcher, watchdog_abort)
VALUES (0, 'node-a', 0, 40, 1796000000000000, 1796000700000000, 1796000050000000, 4, 1796000040000000,
        1796000650000000, 'pg_watchdog_timeout', 1796000650000000, 1, 0, 0, 0),
       (1, 'node-a', 1, 40, 1796000000000000, 1796000700000000, 1796000050000000, 4, 1796000040000000,
        1796000650000000, 'pg_watchdog_timeout', 1796000650000000, 1, 0, 0, 0),
       (2, 'node-b', 0, 30, 1796000000000000, 1796000660000000, 1796000040000000, 3, 1796000030000000,
        NULL, NULL, NULL, 1, 0, 0, 0);
INSERT INTO events(event_id, source_id, line_no, kind, class, host, rank, time_us, fields)
VALUES (1, 1, 10, 'pg_watchdog_timeout', 'watchdog', 'node-a', 0, 1796000650000000,
        '{"pg":"0","seq":5,"op":"ALLREDUCE","ran_ms":600000,"timeout_ms":600000}'),
       (2, 1, 11, 'pg_watchdog_timeout', 'watchdog', 'node-a', 1, 1796000650000000,
        '{"pg":"0","seq":5,"op":"ALLREDUCE","ran_ms":600000,"timeout_ms":600000}'),
       (3, 2, 20, 'app_log', 'app', 'node-b', 2, 1796000655000000, '{"msg":"heartbeat"}');
INSERT INTO collectives(rank, pg, seq, op, state, evidence, event_id)
VALUES (0, '0', 5, 'ALLREDUCE', 'timed_out', 'watchdog', 1), (1, '0', 5, 'ALLREDUCE', 'timed_out', 'watchdog', 2);
INSERT INTO pg_members(pg, rank, pg_rank) VALUES ('0', 0, 0), ('0', 1, 1), ('0', 2, 2);
