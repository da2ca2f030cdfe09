-- The same error after a training step was logged: the communicators were up.
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 2, 'app_step', 'step', NULL, NULL, '{"step":"12"}'),
  (2, 1, 9, 'nccl_error_in', 'error', NULL, NULL, '{"what":"unhandled system error"}');
