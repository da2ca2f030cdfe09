-- Rank 1 died of SIGKILL (-9), its launcher reported it, and only then did
-- rank 0 lose its connection: rank 1's death came first.
INSERT INTO rank_status(rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us, last_step,
  last_step_time_us, first_error_time_us, first_error_kind, exit_code, exit_signal, exit_time_us, init_complete,
  has_dump, sigterm_by_launcher, watchdog_abort)
VALUES (0, 'node-a', 0, 40, 1796000000000000, 1796000200000000, 1796000100000000, 6, 1796000090000000,
        1796000120000000, 'nccl_socket_closed', NULL, NULL, NULL, 1, 0, 0, 0),
       (1, 'node-b', 0, 40, 1796000000000000, 1796000100000000, 1796000100000000, 6, 1796000090000000,
        NULL, NULL, -9, 'SIGKILL', 1796000110000000, 1, 0, 0, 0);
INSERT INTO events(event_id, source_id, line_no, kind, class, host, rank, time_us, fields)
VALUES (1, 1, 10, 'app_step', 'progress', 'node-b', 1, 1796000090000000, '{"step":6}');
