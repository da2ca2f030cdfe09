/* Unit tests of the processes the loaded events name (event_keys): each
 * distinct (source, host, pid, rank, local rank, NCCL) once, with its first
 * event, in first-event order; NULLs kept apart from values; the events
 * inserted in SQL after the load added; many keys past the first table size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "case_db.h"
#include "event_keys.h"

static sqlite3 *new_db(void)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	db_exec(db, "CREATE TABLE events(event_id INTEGER PRIMARY KEY, source_id, kind, host, rank, local_rank, pid)");
	return db;
}

static void test_distinct_in_order(void **state)
{
	(void)state;
	sqlite3 *db = new_db();
	struct event_keys *k = event_keys_new();
	event_keys_add(k, 1, 7, "node1", 5, 100, -1, 0, true);
	event_keys_add(k, 2, 7, "node1", 5, 100, -1, 0, true);   /* the same */
	event_keys_add(k, 3, 7, NULL, 0, 100, -1, 0, true);      /* no host */
	event_keys_add(k, 4, 7, "node1xx", 5, 100, -1, 0, true); /* host by its length: the same */
	event_keys_add(k, 5, 7, "node1", 5, 100, 3, 0, false);
	event_keys_add(k, 6, 7, "node1", 5, 100, -1, 0, true);   /* seen before */
	db_exec(db, "INSERT INTO events VALUES(7, 8, 'nccl_warn', 'node2', 1, 1, 200),"
		    " (8, 8, 'app_step', 'node2', 1, 1, 200), (9, 8, 'nccl_init', 'node2', 1, 1, 200)");
	event_keys_write(k, db);
	sqlite3_stmt *st = db_prepare(db, "SELECT group_concat(first_event || ':' || coalesce(host, '-') || ':' ||"
					  " coalesce(rank, '-') || ':' || nccl, ' ') FROM (SELECT * FROM temp.event_keys"
					  " ORDER BY rowid)");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "1:node1:-:1 3:-:-:1 5:node1:3:0 7:node2:1:1 8:node2:1:0");
	sqlite3_finalize(st);
	event_keys_free(k);
	sqlite3_close(db);
}

static void test_many_keys_and_no_load(void **state)
{
	(void)state;
	sqlite3 *db = new_db();
	struct event_keys *k = event_keys_new();
	for (int i = 0; i < 5000; i++)
		for (int rep = 0; rep < 3; rep++)
			event_keys_add(k, i * 3 + rep + 1, i % 17, "h", 1, i, i, -1, false);
	event_keys_write(k, db);
	assert_int_equal(db_int(db, "SELECT count(*) FROM temp.event_keys", -1), 5000);
	assert_int_equal(db_int(db, "SELECT count(*) FROM temp.event_keys WHERE first_event % 3 <> 1", -1), 0);
	event_keys_free(k);
	/* a case loaded earlier: every event's key from the table */
	db_exec(db, "INSERT INTO events VALUES(1, 1, 'nccl_x', 'a', 0, 0, 9), (2, 1, 'nccl_x', 'a', 0, 0, 9),"
		    " (3, 2, 'app', NULL, NULL, NULL, NULL)");
	event_keys_write(NULL, db);
	assert_int_equal(db_int(db, "SELECT count(*) FROM temp.event_keys", -1), 2);
	assert_int_equal(db_int(db, "SELECT sum(nccl) FROM temp.event_keys", -1), 1);
	sqlite3_close(db);
}

static void test_nccl_kind(void **state)
{
	(void)state;
	assert_true(event_keys_nccl_kind("nccl_coll"));
	assert_true(event_keys_nccl_kind("NCCL_x"));
	assert_false(event_keys_nccl_kind("nccl"));
	assert_false(event_keys_nccl_kind("app_step"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distinct_in_order),
		cmocka_unit_test(test_many_keys_and_no_load),
		cmocka_unit_test(test_nccl_kind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
