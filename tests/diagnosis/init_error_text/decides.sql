-- A paste: PyTorch's bare "NCCL error in: ..., unhandled system error" and
-- NCCL's trace from its bootstrap, no rank named, nothing ran.
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 3, 'nccl_error_return', 'info', NULL, NULL, '{"file":"misc/socket.cc","line":"564","code":"2"}'),
  (2, 1, 4, 'nccl_error_return', 'info', NULL, NULL, '{"file":"bootstrap.cc","line":"270","code":"2"}'),
  (3, 1, 9, 'nccl_error_in', 'error', NULL, NULL,
   '{"where":"../torch/csrc/distributed/c10d/NCCLUtils.hpp:121","what":"unhandled system error","version":"2.10.3"}');
