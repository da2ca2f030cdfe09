-- Rank 1 reported an IB completion error after rank 0's watchdog timed out:
-- the hang rules judge, with the error as a failure.
INSERT INTO ranks(rank, host, local_rank) VALUES (0, 'node-a', 0), (1, 'node-b', 0);
INSERT INTO rank_status(rank, host, local_rank, events) SELECT rank, host, local_rank, 4 FROM ranks;
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 10, 'pg_watchdog_timeout', 'timeout', 1796000060000000, 0, '{"seq":"5","op":"ALLREDUCE"}'),
  (2, 2, 20, 'nccl_ib_completion_error', 'network', 1796000061000000, 1, '{"status_num":"5"}');
