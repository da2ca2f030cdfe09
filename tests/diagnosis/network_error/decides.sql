-- Rank 3's proxy thread reported an IB completion with error 12 (retries
-- exceeded); nobody died, no watchdog timed out (the job was cancelled at its
-- time limit much later): a network error on rank 3's path, its peers waiting.
INSERT INTO ranks(rank, host, local_rank) VALUES (0, 'node-a', 0), (1, 'node-a', 1), (2, 'node-b', 0), (3, 'node-b', 1);
INSERT INTO rank_status(rank, host, local_rank, events) SELECT rank, host, local_rank, 4 FROM ranks;
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 700, 'nccl_ib_completion_error', 'network', NULL, 3, '{"status_num":"12","opcode":"1","len":"0","vendor_err":"129"}'),
  (2, 1, 790, 'slurm_cancelled', 'signal', NULL, NULL, '{"entity":"JOB","job":"77","reason":"TIME LIMIT"}');
