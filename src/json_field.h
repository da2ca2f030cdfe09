/* json_field.h: one key of a JSON object, found in a single pass over the
 * text without building a parse tree. Event fields are small flat objects,
 * and the analyses read a few keys of hundreds of thousands of them; this is
 * what the SQL function field(fields, 'key') is built on. */
#ifndef NF_JSON_FIELD_H
#define NF_JSON_FIELD_H

#include <stdbool.h>
#include <stddef.h>

enum json_kind { JSON_ABSENT, JSON_NULL, JSON_STRING, JSON_NUMBER, JSON_TRUE, JSON_FALSE, JSON_NESTED };

struct json_value {
	enum json_kind kind;
	const char *start; /* JSON_STRING: inside the quotes; others: the token */
	size_t len;
	bool escaped;      /* JSON_STRING holds backslash escapes */
};

/* Finds the first top-level member named key (len bytes) in the object at
 * json (n bytes). False, with kind JSON_ABSENT, when there is none or the
 * text is not an object. */
bool json_field_find(const char *json, size_t n, const char *key, size_t keylen, struct json_value *out);

/* All top-level members of the object at json, at most max of them: their
 * count, or -1 when the text is not an object or has more than max. */
struct json_member {
	const char *key;
	size_t key_len;
	bool key_escaped;
	struct json_value value;
};
int json_members(const char *json, size_t n, struct json_member *out, int max);
/* The value of key among n members, or NULL. */
const struct json_value *json_member_get(const struct json_member *m, int n, const char *key, size_t keylen);

/* A JSON_NUMBER's value: JSON_NUMBER_INT with *i when it is an integer that
 * fits in 64 bits, JSON_NUMBER_REAL with *d otherwise, JSON_NUMBER_BAD when
 * it is too long to be a number. */
enum json_number_kind { JSON_NUMBER_BAD, JSON_NUMBER_INT, JSON_NUMBER_REAL };
enum json_number_kind json_number(const struct json_value *v, long long *i, double *d);

/* Decodes the escapes of a JSON string body of n bytes into out (room for n
 * bytes: decoding never grows it). Returns the decoded length. */
size_t json_unescape(const char *s, size_t n, char *out);



/* A JSON object read once, its members then asked for by key as C strings:
 * for code that reads several keys of each row of a query. */
struct json_object {
	const char *text; /* not owned: valid while the object is used */
	size_t len;
	int n;            /* members, or -1: look each key up in the text */
	struct json_member m[64];
	const char *decoded[64]; /* members already handed out */
	char *arena;      /* the decoded values handed out since the last load */
	size_t cap, used;
};
void json_object_load(struct json_object *o, const char *json, size_t n);
/* The value as text ("" when absent or null; numbers as written; true/false
 * as 1/0, as SQLite's json_extract gives them), valid until the next load. */
const char *json_object_str(struct json_object *o, const char *key);
/* The value as an integer, or def when absent, null or not a number. */
long long json_object_int(struct json_object *o, const char *key, long long def);
void json_object_free(struct json_object *o);
#endif
