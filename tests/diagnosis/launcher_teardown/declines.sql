-- The launcher's kills, but rank 2 timed out first in the lines: the rules
-- that name ranks judge.
INSERT INTO ranks(rank, host, local_rank) VALUES (2, 'node-a', 0);
INSERT INTO rank_status(rank, host, local_rank, events, first_error_time_us, first_timeout_time_us)
  VALUES (2, 'node-a', 0, 3, 1796000060000000, 1796000060000000);
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 5, 'pg_watchdog_timeout', 'timeout', 1796000060000000, 2, '{"seq":"4","op":"ALLREDUCE"}'),
  (2, 1, 9, 'launcher_killing', 'signal', NULL, NULL, '{"pid":"250621"}');
