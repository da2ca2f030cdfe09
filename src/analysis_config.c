/* analysis_config.c: every NCCL_* and TORCH_* setting the logs show (table
 * config) and an audit of them against data/config-knowledge.tsv: settings
 * that do nothing (not a variable at all, IB settings on a Socket network),
 * deprecated names, tuner and transport overrides worth checking when a job
 * is slow, and settings whose value differs between hosts.
 *
 * What was *set* (NCCL's "set by environment to" lines, environment dumps,
 * PyTorch's deprecation warnings) is audited; what PyTorch merely reports
 * ("ProcessGroupNCCL environments:", the option lines of old versions, which
 * list defaults too) only counts when values are compared between hosts. */
#include "analysis_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "findings.h"
#include "knowledge.h"
#include "util.h"

#define SET_ORIGINS "('NCCL env line','environment dump','deprecation warning')"

static const char fill_sql[] =
	"INSERT INTO config(host, rank, name, value, origin, event_id)\n"
	"  SELECT host, rank, name, value, origin, min(event_id) FROM (\n"
	"    SELECT host, rank, field(fields, 'name') AS name, field(fields, 'value') AS value,\n"
	"      CASE kind WHEN 'nccl_env' THEN 'NCCL env line' WHEN 'nccl_env_set' THEN 'NCCL env line'\n"
	"        WHEN 'sys_env_setting' THEN 'environment dump' WHEN 'pg_init_option' THEN 'init options'\n"
	"        ELSE 'deprecation warning' END AS origin, event_id\n"
	"    FROM events WHERE kind IN ('nccl_env','nccl_env_set','sys_env_setting','pg_init_option','torch_env_deprecated'))\n"
	"  WHERE name GLOB 'NCCL_*' OR name GLOB 'TORCH_*'\n"
	"  GROUP BY host, rank, name, value, origin;\n";

static const char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? s : "";
}

/* "NCCL version: 2.28.9, TORCH_NCCL_ASYNC_ERROR_HANDLING: 3, ..." -> rows */
static void fill_pg_environments(sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT host, rank, field(fields, 'env'), event_id FROM events WHERE kind = 'pg_environments'");
	sqlite3_stmt *ins = db_prepare(db,
		"INSERT INTO config(host, rank, name, value, origin, event_id) SELECT ?1, ?2, ?3, ?4,"
		" 'ProcessGroupNCCL environments', ?5 WHERE NOT EXISTS (SELECT 1 FROM config WHERE host IS ?1 AND"
		" rank IS ?2 AND name = ?3 AND value IS ?4 AND origin = 'ProcessGroupNCCL environments')");
	while (sqlite3_step(st) == SQLITE_ROW) {
		char *env = xstrdup(col(st, 2));
		for (char *item = env; item && *item;) {
			char *next = strstr(item, ", ");
			if (next)
				*next = '\0';
			char *colon = strstr(item, ": ");
			if (colon) {
				*colon = '\0';
				const char *name = item, *value = colon + 2;
				if (str_starts(name, "NCCL_") || str_starts(name, "TORCH_")) {
					sqlite3_bind_value(ins, 1, sqlite3_column_value(st, 0));
					sqlite3_bind_value(ins, 2, sqlite3_column_value(st, 1));
					sqlite3_bind_text(ins, 3, name, -1, SQLITE_STATIC);
					sqlite3_bind_text(ins, 4, value, -1, SQLITE_STATIC);
					sqlite3_bind_int64(ins, 5, sqlite3_column_int64(st, 3));
					db_step_done(ins);
				}
			}
			item = next ? next + 2 : NULL;
		}
		free(env);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
}

/* A "a, b, c" list of hosts as a summary says it: whole up to HOSTS_ALL
 * names, else the first HOSTS_NAMED and how many more (a job of thousands of
 * hosts would otherwise spell them all in one sentence). */
enum { HOSTS_ALL = 8, HOSTS_NAMED = 4 };

static void append_hosts(struct buf *out, const char *joined)
{
	size_t n = 1;
	for (const char *p = strstr(joined, ", "); p; p = strstr(p + 2, ", "))
		n++;
	if (n <= HOSTS_ALL) {
		buf_puts(out, joined);
		return;
	}
	const char *end = joined;
	for (int i = 0; i < HOSTS_NAMED; i++)
		end = strstr(end, ", ") + (i + 1 < HOSTS_NAMED ? 2 : 0);
	buf_printf(out, "%.*s and %zu more hosts", (int)(end - joined), joined, n - HOSTS_NAMED);
}

/* JSON arrays of the hosts and ranks where name was set, and "a, b" lists */
struct where {
	struct buf hosts_json, ranks_json, hosts, values;
};

static void where_set(sqlite3 *db, const char *name, const char *origins, struct where *w)
{
	char *sql = sqlite3_mprintf(
		"SELECT (SELECT json_group_array(host) FROM (SELECT DISTINCT host FROM config WHERE name = %Q"
		"   AND origin IN %s AND host IS NOT NULL ORDER BY host)),"
		" (SELECT json_group_array(rank) FROM (SELECT rank FROM config WHERE name = %Q"
		"   AND origin IN %s AND rank IS NOT NULL UNION SELECT r.rank FROM ranks r JOIN config c ON c.host = r.host"
		"   WHERE c.name = %Q AND c.origin IN %s AND c.rank IS NULL ORDER BY 1)),"
		" (SELECT group_concat(host, ', ') FROM (SELECT DISTINCT host FROM config WHERE name = %Q"
		"   AND origin IN %s AND host IS NOT NULL ORDER BY host)),"
		" (SELECT group_concat(value, ', ') FROM (SELECT DISTINCT value FROM config WHERE name = %Q"
		"   AND origin IN %s AND value IS NOT NULL ORDER BY value))",
		name, origins, name, origins, name, origins, name, origins, name, origins);
	sqlite3_stmt *st = db_prepare(db, sql);
	sqlite3_free(sql);
	memset(w, 0, sizeof(*w));
	if (sqlite3_step(st) == SQLITE_ROW) {
		buf_puts(&w->hosts_json, col(st, 0));
		buf_puts(&w->ranks_json, col(st, 1));
		append_hosts(&w->hosts, col(st, 2));
		buf_puts(&w->values, col(st, 3));
	}
	sqlite3_finalize(st);
}

static void where_free(struct where *w)
{
	buf_free(&w->hosts_json);
	buf_free(&w->ranks_json);
	buf_free(&w->hosts);
	buf_free(&w->values);
}

/* cites the first line per host (at most four) where name was seen */
static void cite(sqlite3 *db, int64_t f, const char *name, const char *origins, const char *note)
{
	char *sql = sqlite3_mprintf("SELECT min(event_id) FROM config WHERE name = %Q AND origin IN %s"
				    " GROUP BY host ORDER BY host LIMIT 4", name, origins);
	sqlite3_stmt *st = db_prepare(db, sql);
	sqlite3_free(sql);
	while (sqlite3_step(st) == SQLITE_ROW)
		evidence_add(db, f, sqlite3_column_int64(st, 0), note);
	sqlite3_finalize(st);
}

/* true when every process NCCL shows on the hosts where name was set chose Socket */
static bool socket_only(sqlite3 *db, const char *name)
{
	char *sql = sqlite3_mprintf(
		"SELECT count(*), sum(n.network = 'Socket') FROM network n WHERE n.comm_id IS NULL AND n.network IS NOT NULL"
		" AND (n.host IN (SELECT host FROM config WHERE name = %Q AND origin IN " SET_ORIGINS ")"
		"  OR EXISTS (SELECT 1 FROM config WHERE name = %Q AND origin IN " SET_ORIGINS " AND host IS NULL))",
		name, name);
	sqlite3_stmt *st = db_prepare(db, sql);
	sqlite3_free(sql);
	bool yes = false;
	if (sqlite3_step(st) == SQLITE_ROW)
		yes = sqlite3_column_int64(st, 0) > 0 && sqlite3_column_int64(st, 0) == sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return yes;
}

static void audit_setting(sqlite3 *db, const char *name, const char *status, const char *replacement,
			  const char *explanation)
{
	struct where w;
	where_set(db, name, SET_ORIGINS, &w);
	struct buf sum = {0}, hint = {0}, setting = {0};
	const char *on = w.hosts.len ? w.hosts.data : "the job";
	/* "NCCL_ALGO=Ring (set on a, b)" or "NCCL_ALGO (set to Ring, Tree on a, b)" */
	if (w.values.len && strstr(w.values.data, ", "))
		buf_printf(&setting, "%s (set to %s on %s)", name, w.values.data, on);
	else if (w.values.len)
		buf_printf(&setting, "%s=%s (set on %s)", name, w.values.data, on);
	else
		buf_printf(&setting, "%s (set on %s)", name, on);
	const char *kind = NULL, *severity = "info";
	if (!strcmp(status, "unknown")) {
		kind = "config_unknown";
		severity = "warning";
		buf_printf(&sum, "%s does nothing: %s.", setting.data, explanation);
		if (replacement[0])
			buf_printf(&hint, "remove %s and use %s instead", name, replacement);
		else
			buf_printf(&hint, "remove %s: it does not do what it seems to", name);
	} else if (!strcmp(status, "deprecated")) {
		kind = "config_deprecated";
		buf_printf(&sum, "%s is a deprecated name", setting.data);
		if (replacement[0])
			buf_printf(&sum, "; use %s", replacement);
		buf_printf(&sum, " (%s).", explanation);
		if (replacement[0])
			buf_printf(&hint, "rename %s to %s", name, replacement);
	} else if (!strcmp(status, "ignored-on-socket")) {
		if (!socket_only(db, name))
			goto out;
		kind = "config_ignored";
		severity = "warning";
		buf_printf(&sum, "%s does nothing: NCCL chose the Socket network there and it is %s.", setting.data,
			   explanation);
		buf_printf(&hint, "remove %s, or, if the job should use InfiniBand, find out why NCCL found no IB device"
				  " there (the NET/IB lines of NCCL_DEBUG=INFO)", name);
	} else if (!strcmp(status, "tuner-override") || !strcmp(status, "transport-override")) {
		kind = "config_tuner";
		buf_printf(&sum, "%s %s: worth checking when the job is slow.", setting.data, explanation);
		buf_printf(&hint, "if the job is slow, run without %s and compare", name);
	}
	if (kind) {
		int64_t f = finding_add(db, kind, severity, w.ranks_json.data, w.hosts_json.data, sum.data,
					hint.len ? hint.data : NULL);
		cite(db, f, name, SET_ORIGINS, "where it is set");
	}
out:
	buf_free(&sum);
	buf_free(&hint);
	buf_free(&setting);
	where_free(&w);
}

/* the knowledge rows for name: its exact rows, else the prefix rows it matches */
static sqlite3_stmt *knowledge_of(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT status, coalesce(replacement,''), coalesce(explanation,'') FROM temp.kb_config k WHERE"
		" (k.name = ?1) OR (k.name LIKE '%*' AND ?1 GLOB k.name"
		"  AND NOT EXISTS (SELECT 1 FROM temp.kb_config x WHERE x.name = ?1)) ORDER BY rowid");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	return st;
}

static void audit(sqlite3 *db)
{
	/* each setting that was set, against what is known of it */
	sqlite3_stmt *names = db_prepare(db,
		"SELECT DISTINCT name FROM config WHERE origin IN " SET_ORIGINS " ORDER BY name");
	while (sqlite3_step(names) == SQLITE_ROW) {
		char name[128];
		snprintf(name, sizeof(name), "%s", col(names, 0));
		sqlite3_stmt *k = knowledge_of(db, name);
		bool deprecated = false, known = false;
		while (sqlite3_step(k) == SQLITE_ROW) {
			known = true;
			deprecated |= !strcmp(col(k, 0), "deprecated");
			audit_setting(db, name, col(k, 0), col(k, 1), col(k, 2));
		}
		sqlite3_finalize(k);
		/* PyTorch said it is deprecated and the knowledge file does not know it */
		if (!deprecated && !known) {
			char repl[128] = "";
			sqlite3_stmt *q = db_prepare(db,
				"SELECT field(e.fields, 'replacement') FROM config c JOIN events e USING(event_id)"
				" WHERE c.name = ? AND c.origin = 'deprecation warning' LIMIT 1");
			sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
			if (sqlite3_step(q) == SQLITE_ROW) {
				snprintf(repl, sizeof(repl), "%s", col(q, 0));
				audit_setting(db, name, "deprecated", repl, "PyTorch warns that the old name will stop working");
			}
			sqlite3_finalize(q);
		}
	}
	sqlite3_finalize(names);

	/* settings whose value differs between hosts */
	names = db_prepare(db,
		"SELECT c.name, count(DISTINCT c.host), count(DISTINCT c.value) FROM config c"
		" WHERE c.host IS NOT NULL AND c.value IS NOT NULL AND c.origin <> 'deprecation warning'"
		" AND NOT EXISTS (SELECT 1 FROM temp.kb_config k WHERE k.status IN ('per-host','interface')"
		"   AND (k.name = c.name OR (k.name LIKE '%*' AND c.name GLOB k.name)))"
		" GROUP BY c.name HAVING count(DISTINCT c.host) > 1 AND count(DISTINCT c.value) > 1 ORDER BY c.name");
	while (sqlite3_step(names) == SQLITE_ROW) {
		const char *name = col(names, 0);
		struct buf sum = {0}, hint = {0};
		sqlite3_stmt *v = db_prepare(db,
			"SELECT value, group_concat(host, ', '), count(*) FROM (SELECT DISTINCT value, host FROM config WHERE name = ?"
			" AND host IS NOT NULL AND value IS NOT NULL ORDER BY value, host) GROUP BY value ORDER BY count(*) DESC, value");
		sqlite3_bind_text(v, 1, name, -1, SQLITE_STATIC);
		buf_printf(&sum, "%s differs between hosts:", name);
		char common[128] = "";
		int nv = 0, top = 0, second = 0;
		while (sqlite3_step(v) == SQLITE_ROW) {
			int n = sqlite3_column_int(v, 2);
			if (!nv) {
				snprintf(common, sizeof(common), "%s", col(v, 0));
				top = n;
			} else if (nv == 1) {
				second = n;
			}
			buf_printf(&sum, "%s %s on ", nv ? ";" : "", col(v, 0));
			append_hosts(&sum, col(v, 1));
			nv++;
		}
		sqlite3_finalize(v);
		buf_putc(&sum, '.');
		if (top > second)
			buf_printf(&hint, "set %s the same on every host (most have %s)", name, common);
		else
			buf_printf(&hint, "set %s the same on every host", name);
		struct where w;
		where_set(db, name, "('NCCL env line','environment dump','init options','ProcessGroupNCCL environments')", &w);
		int64_t f = finding_add(db, "config_differs", "warning", w.ranks_json.data, w.hosts_json.data, sum.data,
					hint.data);
		cite(db, f, name, "('NCCL env line','environment dump','init options','ProcessGroupNCCL environments')",
		     "the value on that host");
		where_free(&w);
		buf_free(&sum);
		buf_free(&hint);
	}
	sqlite3_finalize(names);
}

void analysis_config(sqlite3 *db)
{
	static const char *const cols[] = {"name", "status", "replacement", "explanation", "source"};
	db_exec(db, fill_sql);
	fill_pg_environments(db);
	if (knowledge_load(db, "config-knowledge.tsv", "kb_config", cols, (int)ARRAY_LEN(cols)) < 0)
		return;
	audit(db);
}
