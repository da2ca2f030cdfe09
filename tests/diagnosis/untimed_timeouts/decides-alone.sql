-- Rank 0 alone timed out in ALLREDUCE 1 (no times on the lines), while ranks
-- 1-3 printed that they had finished: it called what they did not.
INSERT INTO ranks(rank) VALUES (0), (1), (2), (3);
INSERT INTO rank_status(rank, events) SELECT rank, 1 FROM ranks;
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 2, 'app_rank_done', 'exit', NULL, 1, '{"rank":1}'),
  (2, 1, 3, 'app_rank_done', 'exit', NULL, 2, '{"rank":2}'),
  (3, 1, 4, 'app_rank_done', 'exit', NULL, 3, '{"rank":3}'),
  (4, 1, 5, 'pg_watchdog_timeout', 'timeout', NULL, 0, '{"op":"ALLREDUCE","pg_rank":0,"seq":1,"timeout_ms":10000}');
