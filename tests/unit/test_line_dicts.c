/* Unit tests of the line blocks' dictionaries: blocks of sources that share
 * a name (up to digits) are compressed with the first one's dictionary, read
 * back the same, and take less room; others are compressed alone. */
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
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

/* What the load's writer does with a block: stores the dictionary it made;
 * returns the dict_id the block row names (0: none). */
struct writer {
	struct line_dict_writer *w;
	sqlite3_stmt *ins;
	int64_t ids[DICT_SLOTS_MAX + 1];
	void *zctx;
};

static int64_t compress(struct writer *wr, int64_t source_id, bool first, const struct buf *payload, struct buf *z)
{
	int made_slot;
	size_t made_len;
	int slot = line_dict_writer_compress(wr->w, source_id, first, payload->data, payload->len, wr->zctx, z,
					     &made_slot, &made_len);
	if (made_slot)
		wr->ids[made_slot] = line_dict_store(wr->ins, line_dict_writer_name(wr->w, made_slot), payload->data,
						     made_len);
	return slot ? wr->ids[slot] : 0;
}

static void test_shared_dictionary(void **state)
{
	(void)state;
	sqlite3 *db = new_case();
	struct writer wr = {.w = line_dict_writer_new(1), .zctx = block_zctx_new(),
			    .ins = db_prepare(db, "INSERT INTO line_dicts(name, data) VALUES(?, ?)")};
	struct buf payload = {0}, z = {0}, alone = {0};
	const char *paths[] = {"job/node01/attempt_0/0/stdout.log", "job/node02/attempt_0/1/stdout.log",
			       "job/node03/attempt_0/2/stdout.log", "job/node01/notes.txt"};
	for (int i = 0; i < 4; i++)
		line_dict_writer_source(wr.w, i + 1, paths[i], strlen(paths[i]));
	/* the first of a name is compressed alone and gives the dictionary */
	make_block(0, 400, &payload);
	assert_int_equal(compress(&wr, 1, true, &payload, &z), 0);
	/* its likes use it, and need less room than alone */
	make_block(1, 400, &payload);
	int64_t id = compress(&wr, 2, true, &payload, &z);
	assert_true(id > 0);
	block_compress(payload.data, payload.len, 1, wr.zctx, &alone);
	fprintf(stderr, "with dictionary %zu bytes, alone %zu\n", z.len, alone.len);
	assert_true(z.len * 4 < alone.len * 3);
	struct line_dict_reader *r = line_dict_reader_new(db);
	assert_string_equal(line_dict_column(r), "dict_id");
	check_roundtrip(r, &z, id, 1, 400);
	make_block(2, 300, &payload);
	assert_int_equal(compress(&wr, 3, true, &payload, &z), id);
	check_roundtrip(r, &z, id, 2, 300);
	/* another name: no dictionary of its own yet */
	make_block(3, 10, &payload);
	assert_int_equal(compress(&wr, 4, true, &payload, &z), 0);
	check_roundtrip(r, &z, 0, 3, 10);
	/* a dictionary the case lacks is an error, not a crash */
	struct decoded_block d;
	struct errbuf err;
	make_block(1, 400, &payload);
	id = compress(&wr, 2, false, &payload, &z);
	assert_int_equal(line_dict_decode(r, z.data, z.len, id + 100, &d, &err), -1);
	assert_non_null(strstr(err.msg, "dictionary"));
	assert_int_equal(db_int(db, "SELECT count(*) FROM line_dicts", -1), 2);
	line_dict_reader_free(r);
	line_dict_writer_free(wr.w);
	block_zctx_free(wr.zctx);
	sqlite3_finalize(wr.ins);
	buf_free(&payload);
	buf_free(&z);
	buf_free(&alone);
	sqlite3_close(db);
}

/* A source compressed before the first of its name has said whether it
 * gives the dictionary waits for it (the load's threads work on members
 * in any order; the dictionary is the one a serial load makes); a first
 * source without blocks gives none, and the next one does. */
struct later_arg {
	struct line_dict_writer *w;
	struct buf payload, z;
	int slot;
	void *zctx;
};

static void *compress_later(void *arg)
{
	struct later_arg *a = arg;
	int made_slot;
	size_t made_len;
	a->slot = line_dict_writer_compress(a->w, 3, true, a->payload.data, a->payload.len, a->zctx, &a->z, &made_slot,
					    &made_len);
	return NULL;
}

static void test_waits_for_earlier_sources(void **state)
{
	(void)state;
	struct line_dict_writer *w = line_dict_writer_new(1);
	const char *paths[] = {"n0/stdout.log", "n1/stdout.log", "n2/stdout.log"};
	for (int i = 0; i < 3; i++)
		line_dict_writer_source(w, i + 1, paths[i], strlen(paths[i]));
	struct later_arg a = {.w = w, .slot = -1, .zctx = block_zctx_new()};
	make_block(2, 200, &a.payload);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, compress_later, &a), 0);
	usleep(50000);
	assert_int_equal(__atomic_load_n(&a.slot, __ATOMIC_SEQ_CST), -1); /* still waiting for sources 1 and 2 */
	line_dict_writer_done(w, 1);                                        /* source 1: no blocks */
	usleep(20000);
	assert_int_equal(__atomic_load_n(&a.slot, __ATOMIC_SEQ_CST), -1); /* source 2 has not said */
	struct buf payload = {0}, z = {0};
	make_block(1, 200, &payload);
	int made_slot;
	size_t made_len;
	void *zctx = block_zctx_new();
	assert_int_equal(line_dict_writer_compress(w, 2, true, payload.data, payload.len, zctx, &z, &made_slot, &made_len),
			 0);
	assert_true(made_slot > 0 && made_len > 0); /* source 2's first block made it */
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(a.slot, made_slot); /* and source 3 used it */
	line_dict_writer_free(w);
	block_zctx_free(zctx);
	block_zctx_free(a.zctx);
	buf_free(&payload);
	buf_free(&z);
	buf_free(&a.payload);
	buf_free(&a.z);
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
		cmocka_unit_test(test_waits_for_earlier_sources),
		cmocka_unit_test(test_no_dictionary_column),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
