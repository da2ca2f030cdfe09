-- Rank 1 died of SIGTERM sent by its launcher, after rank 0 had failed:
-- the launcher's doing, a consequence.
INSERT INTO rank_status(rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us, last_step,
  last_step_time_us, first_error_time_us, first_error_kind, exit_code, exit_signal, exit_time_us, init_complete,
  has_dump, sigterm_by_launcher, watchdog_abort)
VALUES (0, 'node-a', 0, 40, 1796000000000000, 1796000200000000, 1796000100000000, 6, 1796000090000000,
        1796000120000000, 'py_exception', 1, NULL, 1796000121000000, 1, 0, 0, 0),
       (1, 'node-b', 0, 40, 1796000000000000, 1796000130000000, 1796000100000000, 6, 1796000090000000,
        NULL, NULL, -15, 'SIGTERM', 1796000130000000, 1, 0, 1, 0);
