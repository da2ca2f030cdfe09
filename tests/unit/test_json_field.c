/* Unit tests of the one-pass JSON member lookup and of the SQL function
 * field(json, key), checked against SQLite's own json_extract. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "json_field.h"
#include "sql_functions.h"

static const char *value_of(const char *json, const char *key, enum json_kind *kind)
{
	static char out[256];
	struct json_value v;
	bool found = json_field_find(json, strlen(json), key, strlen(key), &v);
	*kind = v.kind;
	if (!found)
		return NULL;
	size_t n = v.kind == JSON_STRING && v.escaped ? json_unescape(v.start, v.len, out) : v.len;
	if (!(v.kind == JSON_STRING && v.escaped))
		memcpy(out, v.start, v.len);
	out[n] = '\0';
	return out;
}

static void test_find(void **state)
{
	(void)state;
	enum json_kind k;
	const char *j = "{\"a\":1,\"b\":\"two\",\"c\":null,\"d\":true,\"e\":false,\"f\":[1,{\"g\":\"}\"}],\"h\":-2.5e3}";
	assert_string_equal(value_of(j, "a", &k), "1");
	assert_int_equal(k, JSON_NUMBER);
	assert_string_equal(value_of(j, "b", &k), "two");
	assert_int_equal(k, JSON_STRING);
	assert_non_null(value_of(j, "c", &k));
	assert_int_equal(k, JSON_NULL);
	value_of(j, "d", &k);
	assert_int_equal(k, JSON_TRUE);
	value_of(j, "e", &k);
	assert_int_equal(k, JSON_FALSE);
	assert_string_equal(value_of(j, "f", &k), "[1,{\"g\":\"}\"}]");
	assert_int_equal(k, JSON_NESTED);
	assert_string_equal(value_of(j, "h", &k), "-2.5e3");
	assert_null(value_of(j, "g", &k)); /* not a top-level key */
	assert_int_equal(k, JSON_ABSENT);
	assert_null(value_of(j, "", &k));
}

static void test_strings(void **state)
{
	(void)state;
	enum json_kind k;
	/* a key's name inside a value is not the key */
	const char *j = "{ \"msg\" : \"say \\\"x\\\":1\" , \"x\" : 2 }";
	assert_string_equal(value_of(j, "msg", &k), "say \"x\":1");
	assert_string_equal(value_of(j, "x", &k), "2");
	assert_string_equal(value_of("{\"p\":\"a\\\\\",\"q\":3}", "q", &k), "3");
	assert_string_equal(value_of("{\"p\":\"a\\\\\",\"q\":3}", "p", &k), "a\\");
	assert_string_equal(value_of("{\"u\":\"\\u00e9\\ud83d\\ude00\\n\"}", "u", &k), "\xc3\xa9\xf0\x9f\x98\x80\n");
	assert_string_equal(value_of("{\"k\\u0065y\":5}", "key", &k), "5");
}

static void test_malformed(void **state)
{
	(void)state;
	enum json_kind k;
	const char *bad[] = {"", "[1,2]", "{", "{\"a\"", "{\"a\":", "{\"a\":\"x", "{\"a\":[1,2", "{\"a\":nope}", "{a:1}"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_null(value_of(bad[i], "a", &k));
	/* members before the damage are still found */
	assert_string_equal(value_of("{\"a\":1,\"b\":", "a", &k), "1");
}

static void test_object(void **state)
{
	(void)state;
	struct json_object o = {0};
	const char *j = "{\"name\":\"NCCL_IB_HCA\",\"n\":7,\"t\":true,\"z\":null,\"s\":\"a\\tb\"}";
	json_object_load(&o, j, strlen(j));
	assert_string_equal(json_object_str(&o, "name"), "NCCL_IB_HCA");
	assert_string_equal(json_object_str(&o, "s"), "a\tb");
	assert_string_equal(json_object_str(&o, "s"), "a\tb"); /* asked twice */
	assert_string_equal(json_object_str(&o, "t"), "1");
	assert_string_equal(json_object_str(&o, "z"), "");
	assert_string_equal(json_object_str(&o, "missing"), "");
	assert_int_equal(json_object_int(&o, "n", -1), 7);
	assert_int_equal(json_object_int(&o, "z", -1), -1);
	assert_int_equal(json_object_int(&o, "missing", -1), -1);
	assert_int_equal(json_object_int(&o, "name", -1), -1);
	json_object_load(&o, NULL, 0);
	assert_string_equal(json_object_str(&o, "name"), "");
	json_object_free(&o);
}

/* field() gives what json_extract gives, value and type, on every shape */
static void test_sql_field_matches_json_extract(void **state)
{
	(void)state;
	sqlite3 *db;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	sql_functions_register(db);
	const char *sql =
		"WITH j(t) AS (VALUES ('{\"a\":1}'), ('{\"a\":\"1\"}'), ('{\"a\":-7,\"b\":2}'), ('{\"b\":1,\"a\":2.5}'),"
		" ('{\"a\":null}'), ('{\"a\":true}'), ('{\"a\":false}'), ('{\"a\":[1,2]}'), ('{\"a\":{\"b\":1}}'),"
		" ('{\"a\":\"x\\\"y\"}'), ('{\"a\":\"\\u00e9\"}'), ('{}'), ('{\"b\":1}'), ('{\"a\":1e2}'),"
		" ('{\"a\":123456789012}'), ('{\"a\":\"\"}'), ('{\"a\":1,\"a\":2}'), (NULL)),"
		" k(k) AS (VALUES ('a'), ('b'), ('c'))"
		" SELECT count(*) FROM j, k WHERE json_extract(t, '$.' || k) IS NOT field(t, k)"
		"  OR typeof(json_extract(t, '$.' || k)) <> typeof(field(t, k))";
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_object),
		cmocka_unit_test(test_sql_field_matches_json_extract),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
