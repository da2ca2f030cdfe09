/* json_field.c: see json_field.h. */
#include "json_field.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* p at the opening quote; returns just past the closing one, or NULL */
static const char *skip_string(const char *p, const char *end, bool *escaped)
{
	const char *s = p + 1;
	for (;;) {
		const char *q = memchr(s, '"', (size_t)(end - s));
		if (!q)
			return NULL;
		const char *b = q;
		while (b > p + 1 && b[-1] == '\\')
			b--;
		if (((q - b) & 1) == 0) {
			if (memchr(p + 1, '\\', (size_t)(q - p - 1)))
				*escaped = true;
			return q + 1;
		}
		s = q + 1; /* an escaped quote */
	}
}

/* an object or array at p: returns just past its end, or NULL */
static const char *skip_nested(const char *p, const char *end)
{
	int depth = 0;
	bool esc;
	while (p < end) {
		char c = *p;
		if (c == '"') {
			p = skip_string(p, end, &esc);
			if (!p)
				return NULL;
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return p + 1;
		p++;
	}
	return NULL;
}

static const char *scan_value(const char *p, const char *end, struct json_value *v)
{
	v->start = p;
	v->escaped = false;
	if (p >= end)
		return NULL;
	const char *q;
	switch (*p) {
	case '"':
		q = skip_string(p, end, &v->escaped);
		if (!q)
			return NULL;
		v->kind = JSON_STRING;
		v->start = p + 1;
		v->len = (size_t)(q - p - 2);
		return q;
	case '{':
	case '[':
		q = skip_nested(p, end);
		if (!q)
			return NULL;
		v->kind = JSON_NESTED;
		v->len = (size_t)(q - p);
		return q;
	default:
		q = p;
		while (q < end && *q != ',' && *q != '}' && *q != ']' && *q != ' ' && *q != '\t' && *q != '\n' &&
		       *q != '\r')
			q++;
		v->len = (size_t)(q - p);
		if (v->len == 4 && memcmp(p, "null", 4) == 0)
			v->kind = JSON_NULL;
		else if (v->len == 4 && memcmp(p, "true", 4) == 0)
			v->kind = JSON_TRUE;
		else if (v->len == 5 && memcmp(p, "false", 5) == 0)
			v->kind = JSON_FALSE;
		else if (v->len > 0 && (*p == '-' || (*p >= '0' && *p <= '9')))
			v->kind = JSON_NUMBER;
		else
			return NULL;
		return q;
	}
}

static bool key_equals(const char *k, size_t klen, bool escaped, const char *key, size_t keylen)
{
	if (!escaped)
		return klen == keylen && memcmp(k, key, keylen) == 0;
	if (klen > 256)
		return false;
	char buf[256];
	size_t n = json_unescape(k, klen, buf);
	return n == keylen && memcmp(buf, key, keylen) == 0;
}

enum json_number_kind json_number(const struct json_value *v, long long *i, double *d)
{
	char num[64];
	if (v->len >= sizeof(num))
		return JSON_NUMBER_BAD;
	memcpy(num, v->start, v->len);
	num[v->len] = '\0';
	char *end;
	errno = 0;
	*i = strtoll(num, &end, 10);
	if (*end == '\0' && errno == 0)
		return JSON_NUMBER_INT;
	*d = strtod(num, NULL);
	return JSON_NUMBER_REAL;
}

int json_members(const char *json, size_t n, struct json_member *out, int max)
{
	const char *end = json + n;
	const char *p = skip_ws(json, end);
	if (p >= end || *p != '{')
		return -1;
	p = skip_ws(p + 1, end);
	int count = 0;
	while (p < end && *p == '"') {
		if (count == max)
			return -1;
		struct json_member *m = &out[count];
		m->key_escaped = false;
		const char *kend = skip_string(p, end, &m->key_escaped);
		if (!kend)
			return -1;
		m->key = p + 1;
		m->key_len = (size_t)(kend - p - 2);
		p = skip_ws(kend, end);
		if (p >= end || *p != ':')
			return -1;
		p = scan_value(skip_ws(p + 1, end), end, &m->value);
		if (!p)
			return -1;
		count++;
		p = skip_ws(p, end);
		if (p < end && *p == ',')
			p = skip_ws(p + 1, end);
		else
			break;
	}
	return count;
}

const struct json_value *json_member_get(const struct json_member *m, int n, const char *key, size_t keylen)
{
	for (int i = 0; i < n; i++)
		if (key_equals(m[i].key, m[i].key_len, m[i].key_escaped, key, keylen))
			return &m[i].value;
	return NULL;
}

bool json_field_find(const char *json, size_t n, const char *key, size_t keylen, struct json_value *out)
{
	const char *end = json + n;
	const char *p = skip_ws(json, end);
	out->kind = JSON_ABSENT;
	if (p >= end || *p != '{')
		return false;
	p = skip_ws(p + 1, end);
	while (p < end && *p == '"') {
		bool kesc = false;
		const char *kend = skip_string(p, end, &kesc);
		if (!kend)
			return false;
		const char *k = p + 1;
		size_t klen = (size_t)(kend - p - 2);
		p = skip_ws(kend, end);
		if (p >= end || *p != ':')
			return false;
		struct json_value v;
		p = scan_value(skip_ws(p + 1, end), end, &v);
		if (!p)
			return false;
		if (key_equals(k, klen, kesc, key, keylen)) {
			*out = v;
			return true;
		}
		p = skip_ws(p, end);
		if (p < end && *p == ',')
			p = skip_ws(p + 1, end);
		else
			break;
	}
	return false;
}

static int hex4(const char *s)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t json_unescape(const char *s, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\' || i + 1 >= n) {
			out[o++] = s[i];
			continue;
		}
		char c = s[++i];
		switch (c) {
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'u': {
			int cp = i + 4 < n ? hex4(s + i + 1) : -1;
			if (cp < 0) {
				out[o++] = 'u';
				break;
			}
			i += 4;
			uint32_t u = (uint32_t)cp;
			if (u >= 0xD800 && u < 0xDC00 && i + 6 < n && s[i + 1] == '\\' && s[i + 2] == 'u') {
				int lo = hex4(s + i + 3);
				if (lo >= 0xDC00 && lo < 0xE000) {
					u = 0x10000 + ((u - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
					i += 6;
				}
			}
			o += put_utf8(u, out + o);
			break;
		}
		default: out[o++] = c; break; /* \" \\ \/ */
		}
	}
	return o;
}

void json_object_load(struct json_object *o, const char *json, size_t n)
{
	o->text = json ? json : "";
	o->len = json ? n : 0;
	o->n = json_members(o->text, o->len, o->m, (int)(sizeof(o->m) / sizeof(o->m[0])));
	o->used = 0;
	memset(o->decoded, 0, sizeof(o->decoded));
	/* every value decodes to at most its own length, plus its NUL */
	size_t need = o->len + 2 * (sizeof(o->m) / sizeof(o->m[0])) + 8;
	if (need > o->cap) {
		o->cap = need;
		o->arena = xrealloc(o->arena, o->cap);
	}
}

/* the member's index in o->m, or -1 (absent, or o->n < 0 and then *v is set) */
static int object_get(const struct json_object *o, const char *key, struct json_value *v)
{
	size_t keylen = strlen(key);
	if (o->n >= 0) {
		for (int i = 0; i < o->n; i++) {
			const struct json_member *m = &o->m[i];
			if (key_equals(m->key, m->key_len, m->key_escaped, key, keylen)) {
				*v = m->value;
				return i;
			}
		}
		v->kind = JSON_ABSENT;
		return -1;
	}
	json_field_find(o->text, o->len, key, keylen, v);
	return -1;
}

const char *json_object_str(struct json_object *o, const char *key)
{
	struct json_value v;
	int i = object_get(o, key, &v);
	if (v.kind == JSON_ABSENT || v.kind == JSON_NULL)
		return "";
	if (v.kind == JSON_TRUE)
		return "1";
	if (v.kind == JSON_FALSE)
		return "0";
	if (i >= 0 && o->decoded[i])
		return o->decoded[i];
	if (o->used + v.len + 1 > o->cap)
		return ""; /* only when an object of over 64 members is asked for a key twice */
	char *out = o->arena + o->used;
	size_t len = v.len;
	if (v.kind == JSON_STRING && v.escaped)
		len = json_unescape(v.start, v.len, out);
	else
		memcpy(out, v.start, v.len);
	out[len] = '\0';
	o->used += len + 1;
	if (i >= 0)
		o->decoded[i] = out;
	return out;
}

long long json_object_int(struct json_object *o, const char *key, long long def)
{
	struct json_value v;
	object_get(o, key, &v);
	if (v.kind == JSON_TRUE || v.kind == JSON_FALSE)
		return v.kind == JSON_TRUE;
	if (v.kind != JSON_NUMBER && v.kind != JSON_STRING)
		return def;
	char num[32];
	if (v.len == 0 || v.len >= sizeof(num))
		return def;
	memcpy(num, v.start, v.len);
	num[v.len] = '\0';
	char *end;
	long long x = strtoll(num, &end, 10);
	if (v.kind == JSON_STRING && *end)
		return def;
	return x;
}

void json_object_free(struct json_object *o)
{
	free(o->arena);
	o->arena = NULL;
	o->cap = o->used = 0;
}
