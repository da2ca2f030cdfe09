-- Untimed watchdog rows at call 7 of one group: three ranks in ALLREDUCE of
-- 1024 elements, rank 2 in BROADCAST: rank 2 called another collective.
INSERT INTO ranks(rank, host, local_rank) VALUES (0, 'node-a', 0), (1, 'node-a', 1), (2, 'node-b', 0), (3, 'node-b', 1);
INSERT INTO rank_status(rank, host, local_rank, events) SELECT rank, host, local_rank, 3 FROM ranks;
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields)
SELECT 10 + rank, 1, 100 + rank, 'pg_watchdog_timeout', 'timeout', NULL, rank,
  CASE rank WHEN 2 THEN '{"numel_in":1024,"op":"BROADCAST","seq":7,"timeout_ms":600000,"pg_desc":"dp"}'
  ELSE '{"numel_in":1024,"op":"ALLREDUCE","seq":7,"timeout_ms":600000,"pg_desc":"dp"}' END FROM ranks;
