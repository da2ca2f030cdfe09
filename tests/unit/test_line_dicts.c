/* Unit tests of the line blocks' dictionaries: blocks of sources that share
 * a name (up to digits) are compressed with the first one's dictionary, read
 * back the same, and take less room; others are compressed alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "case_db.h"
#include "case_schema.h"
#include "line_dicts.h"
#include "line_store.h"

static sqlite3 *new_case(void)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	case_register(db);
	db_exec(db, case_schema_ingest_sql);
	return db;
}

/* a block of lines like a rank's log: the same text, its rank's numbers */
static void make_block(int rank, int n_lines, struct buf *payload)
{
	struct block_builder b;
	block_init(&b, 1 << 20);
	char line[256];
	for (int i = 0; i < n_lines; i++) {
		int len = snprintf(line, sizeof(line),
				   "[rank%d]: step %d loss 0.%04d step_time 0.2%02d NCCL INFO AllReduce: opCount %x comm 0x%x",
				   rank, i, (i * 37 + rank) % 10000, i % 100, i, 0x5500 + rank);
		struct line_meta m = {.has_time = true, .t_us = 1000000 * (int64_t)i, .rank = rank, .local_rank = -1,
				      .pid = 4000 + rank};
		block_add(&b, i + 1, line, (size_t)len, &m);
	}
	struct block_info info;
	buf_clear(payload);
	block_take(&b, payload, &info);
	block_free(&b);
}

static void check_roundtrip(struct line_dict_reader *r, const struct buf *z, int64_t dict_id, int rank, int n_lines)
{
	struct decoded_block d;
	struct errbuf err;
	assert_int_equal(line_dict_decode(r, z->data, z->len, dict_id, &d, &err), 0);
	assert_int_equal(d.n_lines, (uint32_t)n_lines);
	char want[256];
	int len = snprintf(want, sizeof(want), "[rank%d]: step %d loss", rank, n_lines - 1);
	assert_memory_equal(d.lines[n_lines - 1].text, want, (size_t)len);
	assert_int_equal(d.lines[n_lines - 1].meta.rank, rank);
	decoded_block_free(&d);
}

static void test_shared_dictionary(void **state)
{
	(void)state;
	sqlite3 *db = new_case();
	struct line_dict_writer *w = line_dict_writer_new(db, 1);
	void *zctx = block_zctx_new();
	struct buf payload = {0}, z = {0}, alone = {0};
	const char *paths[] = {"job/node01/attempt_0/0/stdout.log", "job/node02/attempt_0/1/stdout.log",
			       "job/node03/attempt_0/2/stdout.log", "job/node01/notes.txt"};
	for (int i = 0; i < 4; i++)
		line_dict_writer_source(w, i + 1, paths[i], strlen(paths[i]));
	/* the first of a name is compressed alone and gives the dictionary */
	make_block(0, 400, &payload);
	assert_int_equal(line_dict_writer_compress(w, 1, payload.data, payload.len, zctx, &z), 0);
	/* its likes use it, and need less room than alone */
	make_block(1, 400, &payload);
	int64_t id = line_dict_writer_compress(w, 2, payload.data, payload.len, zctx, &z);
	assert_true(id > 0);
	block_compress(payload.data, payload.len, 1, zctx, &alone);
	fprintf(stderr, "with dictionary %zu bytes, alone %zu\n", z.len, alone.len);
	assert_true(z.len * 4 < alone.len * 3);
	struct line_dict_reader *r = line_dict_reader_new(db);
	assert_string_equal(line_dict_column(r), "dict_id");
	check_roundtrip(r, &z, id, 1, 400);
	make_block(2, 300, &payload);
	assert_int_equal(line_dict_writer_compress(w, 3, payload.data, payload.len, zctx, &z), id);
	check_roundtrip(r, &z, id, 2, 300);
	/* another name: no dictionary of its own yet */
	make_block(3, 10, &payload);
	assert_int_equal(line_dict_writer_compress(w, 4, payload.data, payload.len, zctx, &z), 0);
	check_roundtrip(r, &z, 0, 3, 10);
	/* a dictionary the case lacks is an error, not a crash */
	struct decoded_block d;
	struct errbuf err;
	make_block(1, 400, &payload);
	id = line_dict_writer_compress(w, 2, payload.data, payload.len, zctx, &z);
	assert_int_equal(line_dict_decode(r, z.data, z.len, id + 100, &d, &err), -1);
	assert_non_null(strstr(err.msg, "dictionary"));
	assert_int_equal(sqlite3_changes(db) >= 0, 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM line_dicts", -1), 2);
	line_dict_reader_free(r);
	line_dict_writer_free(w);
	block_zctx_free(zctx);
	buf_free(&payload);
	buf_free(&z);
	buf_free(&alone);
	sqlite3_close(db);
}

static void test_no_dictionary_column(void **state)
{
	(void)state;
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	db_exec(db, "CREATE TABLE line_blocks(source_id, block_no, first_line, n_lines, raw_bytes, data)");
	struct line_dict_reader *r = line_dict_reader_new(db);
	assert_string_equal(line_dict_column(r), "NULL");
	line_dict_reader_free(r);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_dictionary),
		cmocka_unit_test(test_no_dictionary_column),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
