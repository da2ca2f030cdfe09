-- Flight recorder: rank 0 completed broadcast #3 of group 1 (its root, the
-- message in NCCL's buffers) and then made #7 of group 0; rank 1 never
-- enqueued #3 of group 1 (its last there is #2) and yet made #7 of group 0:
-- it went past #3. Both then timed out in #8 of group 0.
INSERT INTO rank_status(rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us,
  first_error_time_us, first_error_kind, first_timeout_time_us, init_complete, has_dump, sigterm_by_launcher,
  watchdog_abort)
VALUES (0, 'node-a', 0, 40, 1796000000000000, 1796000700000000, 1796000050000000, 1796000650000000,
        'pg_watchdog_timeout', 1796000650000000, 1, 1, 0, 0),
       (1, 'node-b', 0, 40, 1796000000000000, 1796000700000000, 1796000050000000, 1796000650000000,
        'pg_watchdog_timeout', 1796000650000000, 1, 1, 0, 0);
INSERT INTO events(event_id, source_id, line_no, kind, class, rank, time_us, fields)
VALUES (1, 1, 0, 'fr_entry', 'flight_recorder', 0, 1796000010000000, '{}'),
       (2, 1, 0, 'fr_entry', 'flight_recorder', 0, 1796000020000000, '{}'),
       (3, 1, 0, 'fr_entry', 'flight_recorder', 1, 1796000020000000, '{}');
INSERT INTO fr_entries(event_id, rank, record_id, pg_id, pg_name, seq, is_p2p, op, state, time_created_us)
VALUES (1, 0, 1, 1, '1', 3, 0, 'BROADCAST', 'completed', 1796000010000000);
INSERT INTO collectives(rank, pg, seq, op, state, time_created_us, evidence, event_id)
VALUES (0, '1', 3, 'BROADCAST', 'completed', 1796000010000000, 'flight recorder', 1),
       (0, '0', 7, 'ALLREDUCE', 'completed', 1796000020000000, 'flight recorder', 2),
       (1, '0', 7, 'ALLREDUCE', 'completed', 1796000020000000, 'flight recorder', 3),
       (0, '0', 8, 'ALLREDUCE', 'timed_out', 1796000030000000, 'flight recorder', NULL),
       (1, '0', 8, 'ALLREDUCE', 'timed_out', 1796000030000000, 'flight recorder', NULL);
INSERT INTO pg_status(rank, pg, last_enqueued, last_started, last_completed, time_us, evidence)
VALUES (0, '1', 3, 3, 3, 1796000640000000, 'flight-recorder pg_status'),
       (1, '1', 2, 2, 2, 1796000640000000, 'flight-recorder pg_status'),
       (0, '0', 8, 8, 7, 1796000640000000, 'flight-recorder pg_status'),
       (1, '0', 8, 8, 7, 1796000640000000, 'flight-recorder pg_status');
INSERT INTO pg_members(pg, rank, pg_rank) VALUES ('0', 0, 0), ('0', 1, 1), ('1', 0, 0), ('1', 1, 1);
