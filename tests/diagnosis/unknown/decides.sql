-- Two ranks timed out at once, in the same call, and nothing else is known:
-- no rank stands out.
INSERT INTO rank_status(rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us,
  first_error_time_us, first_error_kind, first_timeout_time_us, init_complete, has_dump, sigterm_by_launcher,
  watchdog_abort)
VALUES (0, 'node-a', 0, 40, 1796000000000000, 1796000700000000, 1796000050000000, 1796000650000000,
        'pg_watchdog_timeout', 1796000650000000, 1, 1, 0, 0),
       (1, 'node-a', 1, 40, 1796000000000000, 1796000700000000, 1796000050000000, 1796000650000000,
        'pg_watchdog_timeout', 1796000650000000, 1, 1, 0, 0);
