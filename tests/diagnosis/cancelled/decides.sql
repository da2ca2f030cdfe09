-- Slurm cancelled the job at its time limit; the ranks had logged NCCL's init
-- and no failure before it. The lines have no times: confidence low.
INSERT INTO ranks(rank, host, local_rank) VALUES (0, 'node-a', 0), (1, 'node-b', 0);
INSERT INTO rank_status(rank, host, local_rank, events) VALUES (0, 'node-a', 0, 3), (1, 'node-b', 0, 3);
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 10, 'nccl_comm_init', 'init', NULL, 0, '{"comm_rank":"0","nranks":"2","state":"COMPLETE"}'),
  (2, 1, 11, 'nccl_comm_init', 'init', NULL, 1, '{"comm_rank":"1","nranks":"2","state":"COMPLETE"}'),
  (3, 1, 90, 'slurm_cancelled', 'signal', NULL, NULL,
   '{"entity":"JOB","job":"4211","host":"node-a","at":"2026-11-29T10:11:12","reason":"TIME LIMIT"}'),
  (4, 1, 91, 'launcher_killing', 'signal', NULL, NULL, '{"pid":"4946"}');
