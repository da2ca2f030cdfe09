-- One all_reduce_perf run of 16 GPUs on 2 hosts printed its rows and its
-- summary; at 1 MiB, 12 elements came back wrong out of place.
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, fields)
VALUES (1, 1, 40, 'nccl_tests_row', 'bandwidth', NULL, '{}'),
       (2, 1, 41, 'nccl_tests_row', 'bandwidth', NULL, '{}'),
       (3, 1, 45, 'nccl_tests_oob', 'bandwidth', NULL, '{"oob":"12","status":"FAILED"}'),
       (4, 1, 46, 'nccl_tests_avg_busbw', 'bandwidth', NULL, '{"avg_busbw":"40.5"}');
INSERT INTO bandwidth(run, source_id, line_no, event_id, collective, size_bytes, count, dtype, redop, placement,
  busbw_gbs, wrong, is_peak, gpus, hosts, avg_busbw_gbs, oob)
VALUES (1, 1, 40, 1, 'all_reduce', 1048576, 262144, 'float', 'sum', 'out-of-place', 30.1, 12, 0, 16,
        '["node-a","node-b"]', 40.5, 12),
       (1, 1, 41, 2, 'all_reduce', 1073741824, 268435456, 'float', 'sum', 'out-of-place', 95.2, 0, 1, 16,
        '["node-a","node-b"]', 40.5, 12);
