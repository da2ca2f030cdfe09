-- A job of four ranks (group dp0 of size 4) whose rank 3 left no line in the
-- bundle; before anyone failed, the ranks with logs were asked for their
-- flight-recorder dumps from rank 3 (it timed out first), then timed out.
INSERT INTO rank_status(rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us,
  first_error_time_us, first_error_kind, first_timeout_time_us, init_complete, has_dump, sigterm_by_launcher,
  watchdog_abort)
VALUES (0, 'node-a', 0, 40, 1796000000000000, 1796000700000000, 1796000050000000, 1796000650000000,
        'pg_watchdog_timeout', 1796000650000000, 1, 1, 0, 0),
       (1, 'node-a', 1, 40, 1796000000000000, 1796000700000000, 1796000050000000, 1796000650000000,
        'pg_watchdog_timeout', 1796000650000000, 1, 1, 0, 0),
       (2, 'node-b', 0, 40, 1796000000000000, 1796000700000000, 1796000050000000, 1796000650000000,
        'pg_watchdog_timeout', 1796000650000000, 1, 1, 0, 0);
INSERT INTO process_groups(pg, name, desc, size, ranks) VALUES ('0', '0', 'default_pg', 4, '[0,1,2,3]');
INSERT INTO pg_members(pg, rank, pg_rank) VALUES ('0', 0, 0), ('0', 1, 1), ('0', 2, 2), ('0', 3, 3);
INSERT INTO events(event_id, source_id, line_no, kind, class, host, rank, time_us, fields)
VALUES (1, 1, 5, 'pg_dump_signal', 'watchdog', 'node-a', 0, 1796000640000000, '{"from_rank":3}'),
       (2, 1, 6, 'pg_dump_signal', 'watchdog', 'node-b', 2, 1796000640100000, '{"from_rank":3}');
