-- Four ranks' watchdogs timed out in ALLGATHER 1 of group 0, in lines with
-- no time (PyTorch before 2.3): every rank had entered the call.
INSERT INTO ranks(rank, host, local_rank) VALUES (0, 'node-a', 0), (1, 'node-a', 1), (2, 'node-b', 0), (3, 'node-b', 1);
INSERT INTO rank_status(rank, host, local_rank, events) SELECT rank, host, local_rank, 3 FROM ranks;
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields)
SELECT 10 + rank, 1, 100 + rank, 'pg_watchdog_timeout', 'timeout', NULL, rank,
  '{"numel_in":1,"numel_out":4,"op":"ALLGATHER","ran_ms":120008,"seq":1,"timeout_ms":120000}' FROM ranks;
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields)
SELECT 20 + rank, 1, 120 + rank, 'pg_timeout_at_work', 'timeout', NULL, rank, '{"last_enqueued":1,"pg_id":0,"seq":1}' FROM ranks;
