-- A paste of torchrun's lines only: local rank 0 died of SIGKILL, the others
-- were sent SIGTERM; no line names a global rank.
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 1, 'torchrun_sending_signal', 'signal', NULL, NULL, '{"pid":2410413,"signal":"SIGTERM"}'),
  (2, 1, 2, 'torchrun_worker_failed', 'exit', NULL, NULL, '{"exitcode":-9,"local_rank":0,"pid":2410412}');
