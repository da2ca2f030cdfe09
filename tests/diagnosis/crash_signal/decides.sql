-- Eight processes of one host, ranks 0-7 by the launcher's failure report,
-- each printed UCX's crash handler line: signal 11 in the same call. Every
-- process of the job crashed alike: all are named.
INSERT INTO ranks(rank, host, local_rank, pid) VALUES
  (0, 'node-a', 0, 222), (1, 'node-a', 1, 223), (2, 'node-a', 2, 224), (3, 'node-a', 3, 225),
  (4, 'node-a', 4, 226), (5, 'node-a', 5, 227), (6, 'node-a', 6, 228), (7, 'node-a', 7, 229);
INSERT INTO procs(host, pid, rank, local_rank) SELECT host, pid, rank, local_rank FROM ranks;
INSERT INTO rank_status(rank, host, local_rank, events) SELECT rank, host, local_rank, 1 FROM ranks;
INSERT INTO events(event_id, source_id, line_no, kind, class, time_us, fields)
SELECT 10 + rank, 1, 100 + rank, 'crash_signal', 'signal', NULL,
  '{"host":"node-a","pid":"' || pid || '","signal":"11","signame":"Segmentation fault","detail":"address not mapped to object at address 0x28"}'
FROM ranks;
