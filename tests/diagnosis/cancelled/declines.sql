-- A rank timed out in a collective before Slurm's time limit cancelled the
-- job: it had hung first; the cancel is the cascade's.
INSERT INTO ranks(rank, host, local_rank) VALUES (0, 'node-a', 0), (1, 'node-b', 0);
INSERT INTO rank_status(rank, host, local_rank, events) VALUES (0, 'node-a', 0, 3), (1, 'node-b', 0, 3);
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 50, 'pg_watchdog_timeout', 'timeout', NULL, 1, '{"seq":"9","op":"ALLREDUCE"}'),
  (2, 1, 90, 'slurm_cancelled', 'signal', NULL, NULL,
   '{"entity":"JOB","job":"4211","host":"node-a","at":"2026-11-29T10:11:12","reason":"TIME LIMIT"}');
