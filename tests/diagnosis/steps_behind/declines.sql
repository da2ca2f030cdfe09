-- Four ranks print a line per step (no times); every rank printed 10 step
-- lines; then Slurm cancels the job at its time limit.
INSERT INTO ranks(rank, host, local_rank) VALUES (0, 'node-a', 0), (1, 'node-a', 1), (2, 'node-b', 0), (3, 'node-b', 1);
INSERT INTO rank_status(rank, host, local_rank, events) VALUES (0, 'node-a', 0, 1), (1, 'node-a', 1, 1),
  (2, 'node-b', 0, 1), (3, 'node-b', 1, 1);
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 36, 'app_step', 'step', NULL, 2, '{"rank":"2","step":"10","n":10}'),
  (2, 1, 37, 'app_step', 'step', NULL, 0, '{"rank":"0","step":"10","n":10}'),
  (3, 1, 38, 'app_step', 'step', NULL, 1, '{"rank":"1","step":"10","n":10}'),
  (4, 1, 39, 'app_step', 'step', NULL, 3, '{"rank":"3","step":"10","n":10}'),
  (5, 1, 90, 'slurm_cancelled', 'signal', NULL, NULL,
   '{"entity":"JOB","job":"4211","host":"node-a","at":"2026-11-29T10:11:12","reason":"TIME LIMIT"}');
