-- Two ranks of a training job, and no nccl-tests run: not a benchmark.
INSERT INTO rank_status(rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us, last_step,
  last_step_time_us, init_complete, has_dump, sigterm_by_launcher, watchdog_abort)
VALUES (0, 'node-a', 0, 40, 1796000000000000, 1796000100000000, 1796000100000000, 9, 1796000090000000, 1, 0, 0, 0),
       (1, 'node-a', 1, 40, 1796000000000000, 1796000100000000, 1796000100000000, 9, 1796000090000000, 1, 0, 0, 0);
