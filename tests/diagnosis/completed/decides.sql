-- Two ranks logged 10 steps each and the launcher saw its workers finish:
-- the job completed, no rank to blame.
INSERT INTO rank_status(rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us, last_step,
  last_step_time_us, init_complete, has_dump, sigterm_by_launcher, watchdog_abort)
VALUES (0, 'node-a', 0, 40, 1796000000000000, 1796000100000000, 1796000100000000, 9, 1796000090000000, 1, 0, 0, 0),
       (1, 'node-a', 1, 40, 1796000000000000, 1796000100000000, 1796000100000000, 9, 1796000090000000, 1, 0, 0, 0);
INSERT INTO events(event_id, source_id, line_no, kind, class, host, time_us, fields)
VALUES (1, 1, 1, 'torchrun_group_finished', 'launcher', 'node-a', 1796000101000000, '{}');
