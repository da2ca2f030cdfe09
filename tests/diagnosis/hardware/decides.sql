-- Rank 1's GPU fell off the bus (Xid 79) two seconds before rank 0 timed out
-- waiting for it: the GPU fault is the cause.
INSERT INTO rank_status(rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us,
  first_error_time_us, first_error_kind, first_timeout_time_us, init_complete, has_dump, sigterm_by_launcher,
  watchdog_abort)
VALUES (0, 'node-a', 0, 40, 1796000000000000, 1796000700000000, 1796000050000000, 1796000650000000,
        'pg_watchdog_timeout', 1796000650000000, 1, 0, 0, 0),
       (1, 'node-b', 0, 20, 1796000000000000, 1796000648000000, 1796000050000000, NULL, NULL, NULL, 1, 0, 0, 0);
INSERT INTO sysmsgs(sysmsg_id, host, time_us, kind, device, code, rank, text, event_id)
VALUES (1, 'node-b', 1796000648000000, 'xid', '0000:17:00', '79', 1,
        'NVRM: Xid (PCI:0000:17:00): 79, GPU has fallen off the bus.', NULL);
