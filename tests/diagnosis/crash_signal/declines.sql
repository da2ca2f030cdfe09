-- Rank 1 timed out in a collective, then its process caught SIGABRT: PyTorch's
-- watchdog taking it down after the timeout, not a crash of its own.
INSERT INTO ranks(rank, host, local_rank, pid) VALUES (0, 'node-a', 0, 222), (1, 'node-a', 1, 223);
INSERT INTO procs(host, pid, rank, local_rank) SELECT host, pid, rank, local_rank FROM ranks;
INSERT INTO rank_status(rank, host, local_rank, events, first_timeout_time_us, watchdog_abort) VALUES
  (0, 'node-a', 0, 5, NULL, 0), (1, 'node-a', 1, 5, 1796000060000000, 1);
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 10, 'pg_watchdog_timeout', 'timeout', 1796000060000000, 1, '{"seq":"7","op":"ALLREDUCE"}'),
  (2, 1, 20, 'crash_signal', 'signal', NULL, NULL, '{"host":"node-a","pid":"223","signal":"6","signame":"Aborted"}');
