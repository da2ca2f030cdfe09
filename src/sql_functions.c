/* sql_functions.c: see sql_functions.h. */
#include "sql_functions.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_field.h"
#include "line_prefix.h"
#include "timestamp.h"
#include "util.h"

static void fn_iso_time(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	char out[40];
	ts_format_iso(sqlite3_value_int64(argv[0]), out, sizeof(out));
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

static void fn_iso_time_us(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	char out[40];
	ts_format_iso_us(sqlite3_value_int64(argv[0]), out, sizeof(out));
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

void pci_from_bus_id(const char *bus_id, char *out, size_t n)
{
	/* NCCL turns "0000:18:00.0" into an integer by dropping the separators
	 * ("000018000" read as hex) and prints it with %lx ("18000"). Undo that:
	 * pad the hex digits to nine, then cut them as dddd:bb:dd(.f). */
	if (bus_id[0] == '0' && (bus_id[1] == 'x' || bus_id[1] == 'X'))
		bus_id += 2;
	size_t len = strlen(bus_id);
	char pad[10] = "000000000";
	if (len > 9)
		bus_id += len - 9, len = 9;
	memcpy(pad + 9 - len, bus_id, len);
	for (char *p = pad; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	snprintf(out, n, "%.4s:%.2s:%.2s", pad, pad + 4, pad + 6);
}

static void fn_pci_from_bus_id(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	if (!s || !*s)
		return;
	char out[32];
	pci_from_bus_id(s, out, sizeof(out));
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* line_body(text): the line without its wrappers ([default0]:, [rank3]:, srun labels) */
static void fn_line_body(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	if (!s)
		return;
	struct line_parts lp;
	line_parts_parse(s, (size_t)sqlite3_value_bytes(argv[0]), false, &lp);
	sqlite3_result_text(ctx, lp.body, (int)lp.body_len, SQLITE_TRANSIENT);
}

/* norm_op(name): one spelling for a collective across PyTorch OpType,
 * flight-recorder profiling names and NCCL COLL lines. */
static void fn_norm_op(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	if (!s)
		return;
	char buf[64];
	size_t n = 0;
	if (strncmp(s, "nccl:", 5) == 0)
		s += 5;
	for (; *s && n + 1 < sizeof(buf); s++) {
		if (*s == '_' || *s == ' ')
			continue;
		if (*s == '-' && s[1] == '>')
			break; /* "send 1->2" */
		buf[n++] = (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s);
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == ' ' || (buf[n - 1] >= '0' && buf[n - 1] <= '9')))
		buf[--n] = '\0'; /* "SEND 1" */
	static const struct {
		const char *in, *out;
	} map[] = {
		{"ALLGATHERBASE", "ALLGATHER"}, {"ALLGATHERINTOTENSOR", "ALLGATHER"},
		{"ALLGATHERINTOTENSORCOALESCED", "COALESCED"}, {"REDUCESCATTERBASE", "REDUCESCATTER"},
		{"REDUCESCATTERTENSOR", "REDUCESCATTER"}, {"REDUCESCATTERTENSORCOALESCED", "COALESCED"},
		{"ALLTOALLBASE", "ALLTOALL"}, {"ALLTOALLV", "ALLTOALL"}, {"ALLREDUCECOALESCED", "COALESCED"},
		{"ALLGATHERCOALESCED", "COALESCED"}, {"SENDRECV", "SEND"},
		{"ALLREDUCEBARRIER", "BARRIER"}, /* the flight recorder's barrier; the watchdog says ALLREDUCE */
	};
	const char *out = buf;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(buf, map[i].in) == 0)
			out = map[i].out;
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* hex_to_int('1e') -> 30 (NCCL prints opCount in hex) */
static void fn_hex_to_int(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *s = (const char *)sqlite3_value_text(argv[0]);
	if (!s || !*s)
		return;
	char *end;
	long long v = strtoll(s, &end, 16);
	if (*end)
		return;
	sqlite3_result_int64(ctx, v);
}

/* field(json, key): json_extract(json, '$.key') for a top-level key. The
 * analyses read several keys of each event in turn, so the members of the
 * last object seen are kept: the next key of the same row is a short scan. */
#define FIELD_CACHE_MEMBERS 64
struct field_cache {
	char *json; /* a copy of the last object */
	size_t len, cap;
	int n;      /* its members, or -1: look each key up in the text */
	struct json_member m[FIELD_CACHE_MEMBERS];
};

static void field_cache_free(void *p)
{
	struct field_cache *c = p;
	free(c->json);
	free(c);
}

static void result_json_value(sqlite3_context *ctx, const struct json_value *v)
{
	switch (v->kind) {
	case JSON_STRING:
		if (!v->escaped) {
			sqlite3_result_text(ctx, v->start, (int)v->len, SQLITE_TRANSIENT);
		} else {
			char *buf = sqlite3_malloc64(v->len + 1);
			if (!buf) {
				sqlite3_result_error_nomem(ctx);
				return;
			}
			size_t n = json_unescape(v->start, v->len, buf);
			sqlite3_result_text(ctx, buf, (int)n, sqlite3_free);
		}
		break;
	case JSON_NUMBER: {
		long long i;
		double d;
		enum json_number_kind k = json_number(v, &i, &d);
		if (k == JSON_NUMBER_INT)
			sqlite3_result_int64(ctx, i);
		else if (k == JSON_NUMBER_REAL)
			sqlite3_result_double(ctx, d);
		break;
	}
	case JSON_TRUE: sqlite3_result_int(ctx, 1); break;
	case JSON_FALSE: sqlite3_result_int(ctx, 0); break;
	case JSON_NESTED: sqlite3_result_text(ctx, v->start, (int)v->len, SQLITE_TRANSIENT); break;
	default: break;
	}
}

static void fn_field(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	struct field_cache *c = sqlite3_user_data(ctx);
	const char *json = (const char *)sqlite3_value_text(argv[0]);
	const char *key = (const char *)sqlite3_value_text(argv[1]);
	if (!json || !key)
		return;
	size_t n = (size_t)sqlite3_value_bytes(argv[0]);
	size_t keylen = (size_t)sqlite3_value_bytes(argv[1]);
	if (!c->json || n != c->len || memcmp(json, c->json, n) != 0) {
		if (n + 1 > c->cap) {
			c->cap = n + 1 > 2 * c->cap ? n + 1 : 2 * c->cap;
			c->json = xrealloc(c->json, c->cap);
		}
		memcpy(c->json, json, n);
		c->json[n] = '\0';
		c->len = n;
		c->n = json_members(c->json, n, c->m, FIELD_CACHE_MEMBERS);
	}
	if (c->n >= 0) {
		const struct json_value *v = json_member_get(c->m, c->n, key, keylen);
		if (v)
			result_json_value(ctx, v);
		return;
	}
	struct json_value v;
	if (json_field_find(c->json, n, key, keylen, &v))
		result_json_value(ctx, &v);
}

static void free_code(void *p)
{
	pcre2_code_free(p);
}

static void fn_regexp(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *pat = (const char *)sqlite3_value_text(argv[0]);
	const char *txt = (const char *)sqlite3_value_text(argv[1]);
	if (!pat || !txt)
		return;
	pcre2_code *code = sqlite3_get_auxdata(ctx, 0);
	if (!code) {
		int ec;
		PCRE2_SIZE eoff;
		code = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, 0, &ec, &eoff, NULL);
		if (!code) {
			PCRE2_UCHAR msg[160];
			pcre2_get_error_message(ec, msg, sizeof(msg));
			char *e = sqlite3_mprintf("regexp: %s at offset %d", (char *)msg, (int)eoff);
			sqlite3_result_error(ctx, e, -1);
			sqlite3_free(e);
			return;
		}
		pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
		sqlite3_set_auxdata(ctx, 0, code, free_code);
		code = sqlite3_get_auxdata(ctx, 0);
		if (!code)
			return;
	}
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	int rc = pcre2_match(code, (PCRE2_SPTR)txt, (PCRE2_SIZE)sqlite3_value_bytes(argv[1]), 0, 0, md, NULL);
	pcre2_match_data_free(md);
	sqlite3_result_int(ctx, rc >= 0);
}

/* offset_text(ms): "+54 ms", "-46.8 s" (the reports' offsets); NULL for NULL. */
static void fn_offset_text(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	int64_t ms = sqlite3_value_int64(argv[0]);
	char t[48];
	t[0] = ms < 0 ? '-' : '+';
	ts_format_span(ms < 0 ? (ms == INT64_MIN ? INT64_MAX : -ms) : ms, t + 1, sizeof(t) - 1);
	sqlite3_result_text(ctx, t, -1, SQLITE_TRANSIENT);
}

void sql_functions_register(sqlite3 *db)
{
	/* innocuous: pure functions of their arguments, so a case's views may
	 * use them where the client distrusts the schema (trusted_schema=OFF) */
	int f = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
	sqlite3_create_function(db, "iso_time", 1, f, NULL, fn_iso_time, NULL, NULL);
	sqlite3_create_function(db, "iso_time_us", 1, f, NULL, fn_iso_time_us, NULL, NULL);
	sqlite3_create_function(db, "pci_from_bus_id", 1, f, NULL, fn_pci_from_bus_id, NULL, NULL);
	sqlite3_create_function(db, "regexp", 2, f, NULL, fn_regexp, NULL, NULL);
	sqlite3_create_function(db, "line_body", 1, f, NULL, fn_line_body, NULL, NULL);
	sqlite3_create_function(db, "norm_op", 1, f, NULL, fn_norm_op, NULL, NULL);
	sqlite3_create_function(db, "hex_to_int", 1, f, NULL, fn_hex_to_int, NULL, NULL);
	sqlite3_create_function(db, "offset_text", 1, f, NULL, fn_offset_text, NULL, NULL);
	sqlite3_create_function_v2(db, "field", 2, f, xcalloc(1, sizeof(struct field_cache)), fn_field, NULL, NULL,
				   field_cache_free);
}
