/* kind_summary.c: the `kinds` table (see kind_summary.h). */
#include "kind_summary.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "json_field.h"
#include "util.h"

#define KIND_MAX_KEYS 64

struct kind_entry {
	char *kind;
	char *class_name;
	char *keys[KIND_MAX_KEYS];
	size_t key_len[KIND_MAX_KEYS];
	int nkeys;
};

struct kind_summary {
	struct kind_entry *items;
	size_t n, cap;
	size_t last; /* events come in runs of one kind: the entry of the last one */
};

struct kind_summary *kind_summary_new(void)
{
	return xcalloc(1, sizeof(struct kind_summary));
}

void kind_summary_free(struct kind_summary *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->n; i++) {
		free(ks->items[i].kind);
		free(ks->items[i].class_name);
		for (int k = 0; k < ks->items[i].nkeys; k++)
			free(ks->items[i].keys[k]);
	}
	free(ks->items);
	free(ks);
}

static struct kind_entry *entry_for(struct kind_summary *ks, const char *kind, const char *class_name)
{
	if (ks->last < ks->n && strcmp(ks->items[ks->last].kind, kind) == 0)
		return &ks->items[ks->last];
	for (size_t i = 0; i < ks->n; i++)
		if (strcmp(ks->items[i].kind, kind) == 0) {
			ks->last = i;
			return &ks->items[i];
		}
	xgrow(&ks->items, &ks->cap, ks->n + 1, sizeof(*ks->items));
	struct kind_entry *e = &ks->items[ks->n];
	memset(e, 0, sizeof(*e));
	e->kind = xstrdup(kind);
	e->class_name = xstrdup(class_name);
	ks->last = ks->n++;
	return e;
}

static bool has_key(const struct kind_entry *e, const char *key, size_t len, int hint)
{
	if (hint < e->nkeys && e->key_len[hint] == len && memcmp(e->keys[hint], key, len) == 0)
		return true;
	for (int k = 0; k < e->nkeys; k++)
		if (e->key_len[k] == len && memcmp(e->keys[k], key, len) == 0)
			return true;
	return false;
}

void kind_summary_add(struct kind_summary *ks, const char *kind, const char *class_name, const char *fields,
		      size_t len)
{
	struct kind_entry *e = entry_for(ks, kind, class_name);
	struct json_member m[KIND_MAX_KEYS];
	int n = json_members(fields, len, m, KIND_MAX_KEYS);
	/* the keys come in the same order event after event: the i-th key is
	 * checked against the i-th known one first */
	for (int i = 0; i < n; i++) {
		if (m[i].key_escaped || has_key(e, m[i].key, m[i].key_len, i) || e->nkeys == KIND_MAX_KEYS)
			continue;
		e->keys[e->nkeys] = xstrndup(m[i].key, m[i].key_len);
		e->key_len[e->nkeys++] = m[i].key_len;
	}
}

void kind_summary_write(const struct kind_summary *ks, sqlite3 *db)
{
	/* the counts from the kind index (the events as they ended up: console
	 * copies dropped), the class and fields from the summary */
	db_exec(db, "DELETE FROM kinds;"
		    "INSERT INTO kinds(kind, events) SELECT kind, count(*) FROM events GROUP BY kind;");
	sqlite3_stmt *up = db_prepare(db, "UPDATE kinds SET class = ?2, fields = ?3 WHERE kind = ?1");
	struct buf b = {0};
	for (size_t i = 0; i < ks->n; i++) {
		const struct kind_entry *e = &ks->items[i];
		buf_clear(&b);
		for (int k = 0; k < e->nkeys; k++) {
			if (k)
				buf_putc(&b, ' ');
			buf_append(&b, e->keys[k], e->key_len[k]);
		}
		sqlite3_bind_text(up, 1, e->kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 2, e->class_name, -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 3, b.data ? b.data : "", (int)b.len, SQLITE_STATIC);
		db_step_done(up);
	}
	sqlite3_finalize(up);
	buf_free(&b);
}
