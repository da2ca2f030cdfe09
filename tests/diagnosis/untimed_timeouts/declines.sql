-- Lines without times, none of them a watchdog's timeout.
INSERT INTO ranks(rank, host, local_rank) VALUES (0, 'node-a', 0), (1, 'node-b', 0);
INSERT INTO rank_status(rank, host, local_rank, events) SELECT rank, host, local_rank, 2 FROM ranks;
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, rank, fields) VALUES
  (1, 1, 10, 'nccl_comm_init', 'init', NULL, 0, '{"comm_rank":"0","nranks":"2","state":"COMPLETE"}'),
  (2, 1, 11, 'nccl_comm_init', 'init', NULL, 1, '{"comm_rank":"1","nranks":"2","state":"COMPLETE"}');
