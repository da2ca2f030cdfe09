/* diagnosis_checks.c: what PyTorch's own collective checks said
 * (TORCH_DISTRIBUTED_DEBUG=DETAIL). Before each collective every rank of the
 * group meets the others in a barrier over gloo and compares the
 * collective's fingerprint (operation, input shape, element type) with
 * theirs; a difference stops the job with "Detected mismatch between
 * collectives" on every rank of the group, before NCCL ever sees the call.
 * The lines name group ranks of a group they do not name: the group is the
 * one (of the flight recorder's groups or NCCL's communicators) in which
 * every reporting rank has the group rank it reports for itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "diagnosis.h"
#include "verdict_vocab.h"

enum { MAX_GROUP = 1 << 16 }; /* members of one group, at most */

/* The name of the group of every rank in their order, where nothing else
 * names the group a check ran in. */
#define CHECK_WORLD "(all ranks)"

/* check_groups(grp, rank, grank, size, named), a table of the case: the members of the
 * groups the checks may have run in, the flight recorder's groups (named)
 * and NCCL's communicators (named where the comms analysis matched them to
 * a group), else the group of every rank, indexed for the lookups of a
 * rank's group rank (thousands of reports at thousands of ranks). */
static void check_groups_table(struct diagnosis *d)
{
	db_exec(d->db,
		"DELETE FROM check_groups;"
		"INSERT INTO check_groups SELECT p.pg AS grp, p.rank, p.pg_rank AS grank, s.n AS size, 1 AS named"
		"  FROM pg_members p JOIN (SELECT pg, count(*) AS n FROM pg_members GROUP BY pg) s USING(pg)"
		"  UNION ALL SELECT coalesce(pg, comm_id), rank, comm_rank, nranks, pg IS NOT NULL FROM comms;"
		/* nothing names the groups (no dump, no NCCL INFO lines), but every
		 * rank reported a check with its group rank equal to its own: a
		 * group of every rank in their order (the default group, or one
		 * like it) */
		"INSERT INTO check_groups SELECT '" CHECK_WORLD "', rank, rank, (SELECT count(*) FROM ranks), 0 FROM ranks"
		"  WHERE NOT EXISTS (SELECT 1 FROM check_groups)"
		"  AND EXISTS (SELECT 1 FROM events WHERE kind = 'pg_check_waited' AND rank IS NOT NULL)"
		"  AND NOT EXISTS (SELECT 1 FROM events WHERE kind = 'pg_check_waited' AND rank IS NOT NULL"
		"   AND field(fields, 'group_rank') IS NOT rank)"
		"  AND NOT EXISTS (SELECT 1 FROM events WHERE kind = 'pg_check_absent' AND rank IS NOT NULL"
		"   AND field(fields, 'root') IS NOT rank)"
		"  AND (SELECT count(DISTINCT rank) FROM events WHERE kind IN ('pg_check_waited', 'pg_check_absent'))"
		"   = (SELECT count(*) FROM ranks);");
}

/* One rank's collective as its fingerprint describes it. */
struct print {
	bool known;
	char op[32];
	int64_t numel; /* -1: none given (a call without tensors) */
	char dtype[24];
	int64_t event_id; /* its own report, 0 if only a peer reported it */
};

static int64_t shape_numel(const char *shape)
{
	if (!shape || !*shape)
		return -1;
	int64_t n = 1;
	for (const char *p = shape; *p;) {
		char *end;
		long long v = strtoll(p, &end, 10);
		if (end == p)
			break;
		n *= v;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return n;
}

static bool print_eq(const struct print *a, const struct print *b)
{
	return strcmp(a->op, b->op) == 0 && a->numel == b->numel && strcmp(a->dtype, b->dtype) == 0;
}

/* Whether a call is the one a group's history predicts (op, input size and
 * element type, the last two where both sides know them). */
static bool print_fits(const struct print *p, const char *op, int64_t numel, const char *dtype)
{
	return strcmp(p->op, op) == 0 && (numel < 0 || p->numel < 0 || p->numel == numel) &&
	       (!dtype[0] || !p->dtype[0] || strcmp(p->dtype, dtype) == 0);
}

/* "ALLREDUCE of 4096 Float elements" */
static void print_text(const struct print *p, struct buf *out)
{
	buf_puts(out, p->op);
	if (p->numel >= 0)
		buf_printf(out, " of %lld%s%s elements", (long long)p->numel, p->dtype[0] ? " " : "", p->dtype);
}

static void col_copy(sqlite3_stmt *st, int c, char *out, size_t n)
{
	const char *s = (const char *)sqlite3_column_text(st, c);
	snprintf(out, n, "%s", s ? s : "");
}

static void set_print(struct print *p, sqlite3_stmt *st, int c, int64_t ev)
{
	if (p->known && (p->event_id || !ev))
		return;
	col_copy(st, c, p->op, sizeof(p->op));
	p->numel = shape_numel((const char *)sqlite3_column_text(st, c + 1));
	col_copy(st, c + 2, p->dtype, sizeof(p->dtype));
	p->known = true;
	p->event_id = ev;
}

/* The groups the reports were made in, earliest report first, into
 * *groups: for each report the group (or communicator) in which the most
 * reporting ranks have the group rank they report for themselves, the
 * smallest of those (every rank of the group raises, so a group of two
 * reported by two ranks is theirs, not the whole job's where they happen to
 * be ranks 0 and 1 too), the flight recorder's names before NCCL's
 * communicators. Their number. */
static size_t check_groups_of_reports(struct diagnosis *d, char (**groups)[128])
{
	sqlite3_stmt *st = db_prepare(d->db,
		"WITH r AS (SELECT event_id, time_us, rank, field(fields, 'self_rank') AS s,"
		"   field(fields, 'other_rank') AS o FROM events WHERE kind = 'pg_check_mismatch' AND rank IS NOT NULL),"
		" c AS (SELECT r.event_id, r.time_us, r.rank, m.grp, m.size, m.named FROM r JOIN check_groups m"
		"   ON m.rank = r.rank AND m.grank = r.s AND m.size > r.o),"
		" g AS (SELECT grp, count(DISTINCT rank) AS n FROM c GROUP BY grp),"
		" best AS (SELECT c.time_us, c.grp, row_number() OVER (PARTITION BY c.event_id"
		"   ORDER BY g.n DESC, c.size, c.named DESC, c.grp) AS k FROM c JOIN g USING(grp))"
		" SELECT grp FROM best WHERE k = 1 GROUP BY grp ORDER BY min(time_us IS NULL), min(time_us), grp");
	size_t n = 0, cap = 0;
	*groups = NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(groups, &cap, n + 1, sizeof(**groups));
		snprintf((*groups)[n++], sizeof(**groups), "%s", (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return n;
}

/* The members of group key (check_groups) by group rank (-1:
 * unknown), into *member; the group's size, 0 if none. For key "" (no known
 * group fits: no flight-recorder dump, NCCL's INFO lines off), the reporting
 * ranks themselves: every rank of the group raises, each giving its own
 * group rank. */
static int group_map(struct diagnosis *d, const char *key, int **member)
{
	int size = key[0] ? (int)q_int(d->db, 0, "SELECT max(size) FROM check_groups WHERE grp = %Q", key)
			   : (int)q_int(d->db, 0,
					"SELECT max(max(field(fields, 'self_rank')), max(field(fields, 'other_rank'))) + 1"
					" FROM events WHERE kind = 'pg_check_mismatch' AND rank IS NOT NULL");
	if (size <= 1 || size > MAX_GROUP)
		return 0;
	*member = xmalloc((size_t)size * sizeof(**member));
	for (int i = 0; i < size; i++)
		(*member)[i] = -1;
	sqlite3_stmt *st = db_prepare(d->db, key[0]
		? "SELECT grank, rank FROM check_groups WHERE grp = ?1 ORDER BY rank DESC"
		: "SELECT field(fields, 'self_rank'), rank FROM events WHERE kind = 'pg_check_mismatch'"
		  " AND rank IS NOT NULL ORDER BY event_id DESC");
	if (key[0])
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int g = sqlite3_column_int(st, 0);
		if (g >= 0 && g < size)
			(*member)[g] = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	return size;
}

/* " (ranks 1, 3, 5)": the members of a group as the map has them */
static void group_members(const int *member, int size, struct buf *out)
{
	int *r = xmalloc((size_t)(size > 0 ? size : 1) * sizeof(*r));
	size_t n = 0;
	for (int i = 0; i < size; i++)
		if (member[i] >= 0)
			r[n++] = member[i];
	if (n) {
		xqsort(r, n, sizeof(*r), cmp_int);
		buf_puts(out, " (ranks ");
		fmt_rank_list(r, n, out);
		buf_putc(out, ')');
	}
	free(r);
}

/* One group whose check failed: each member's call by group rank, and who
 * deviated from what. */
struct check_site {
	const char *key;    /* the group ("": the reporting ranks themselves) */
	int *member;        /* group rank -> rank, -1 unknown */
	int size;
	struct print *fp;   /* group rank -> its call */
	int64_t first_ev, first_t;
	long check_seq;     /* the check's own count, -1 unknown */
	long seq;           /* the call's seq in the group as the case counts it, -1 unknown */
	struct print expect; /* the call the others made, where how says so */
	const char *how;    /* how the deviation was told, NULL: it could not be */
};

/* The reports of the group: each rank's own call, and the call of the rank
 * it found different from its own. */
static void site_load(struct diagnosis *d, struct check_site *c)
{
	c->fp = xcalloc((size_t)c->size, sizeof(*c->fp));
	c->first_ev = 0;
	c->first_t = T_NONE;
	c->check_seq = -1;
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT e.event_id, e.time_us, field(e.fields, 'self_rank'), norm_op(field(e.fields, 'self_op')),"
		" field(e.fields, 'self_shape'), field(e.fields, 'self_dtype'), field(e.fields, 'other_rank'),"
		" norm_op(field(e.fields, 'other_op')), field(e.fields, 'other_shape'), field(e.fields, 'other_dtype'),"
		" field(e.fields, 'self_seq')"
		", e.rank FROM events e WHERE e.kind = 'pg_check_mismatch' AND e.rank IS NOT NULL"
		" AND (?1 = '' OR e.rank IN (SELECT rank FROM check_groups WHERE grp = ?1))"
		" ORDER BY e.time_us IS NULL, e.time_us, e.event_id");
	sqlite3_bind_text(st, 1, c->key, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int self = sqlite3_column_int(st, 2), other = sqlite3_column_int(st, 6);
		/* a report of this group: its rank is the member it says it is */
		if (self < 0 || self >= c->size || other < 0 || other >= c->size ||
		    c->member[self] != sqlite3_column_int(st, 11))
			continue;
		int64_t ev = sqlite3_column_int64(st, 0);
		if (!c->first_ev) {
			c->first_ev = ev;
			c->first_t = sqlite3_column_type(st, 1) == SQLITE_NULL ? T_NONE : sqlite3_column_int64(st, 1);
			c->check_seq = sqlite3_column_type(st, 10) == SQLITE_NULL ? -1 : (long)sqlite3_column_int64(st, 10);
		}
		set_print(&c->fp[self], st, 3, ev);
		set_print(&c->fp[other], st, 7, 0);
	}
	sqlite3_finalize(st);
	/* the call the group was at: one past the last NCCL or the flight
	 * recorder saw of it, where they saw it at all */
	long seq = c->key[0] ? (long)q_int(d->db, 0, "SELECT max(seq) FROM collectives WHERE pg = %Q", c->key) : 0;
	c->seq = seq > 0 ? seq + 1 : -1;
}

/* Who deviated: the majority of the known calls (counted per distinct
 * call: a few in a group of thousands), else the group's history. */
static void site_judge(struct diagnosis *d, struct check_site *c)
{
	int best = -1, best_n = 0, known = 0, nd = 0;
	bool tie = false;
	int *distinct = xmalloc((size_t)c->size * sizeof(*distinct)), *count = xcalloc((size_t)c->size, sizeof(*count));
	for (int i = 0; i < c->size; i++) {
		if (!c->fp[i].known)
			continue;
		known++;
		int k = 0;
		while (k < nd && !print_eq(&c->fp[i], &c->fp[distinct[k]]))
			k++;
		if (k == nd)
			distinct[nd++] = i;
		count[k]++;
	}
	for (int k = 0; k < nd; k++) {
		if (count[k] > best_n)
			best = distinct[k], best_n = count[k], tie = false;
		else if (count[k] == best_n)
			tie = true;
	}
	free(distinct);
	free(count);
	c->how = NULL;
	if (best >= 0 && !tie && 2 * best_n > known) {
		c->expect = c->fp[best];
		c->how = "the majority of the group";
		return;
	}
	char op[32] = "", dtype[24] = "";
	int64_t numel = -1;
	if (c->seq <= 0 || !diag_predict_call(d, c->key, c->seq, op, sizeof(op), &numel, dtype, sizeof(dtype)))
		return;
	int matching = 0, first_match = -1;
	for (int i = 0; i < c->size; i++)
		if (c->fp[i].known && print_fits(&c->fp[i], op, numel, dtype)) {
			matching++;
			if (first_match < 0)
				first_match = i;
		}
	if (matching > 0 && matching < known) {
		c->expect = c->fp[first_match];
		c->how = "the group's own history";
	}
}

/* The verdict of the first group whose check failed; deviant is the group
 * rank of its first deviating member. */
static void site_write(struct diagnosis *d, const struct check_site *c, int deviant)
{
	struct verdict *v = &d->v;
	v->outcome = OUTCOME(crash);
	v->cause = CAUSE(collective_mismatch);
	v->confidence = c->how ? CONFIDENCE(high) : CONFIDENCE(low);
	v->first_failure_t = c->first_t != T_NONE ? c->first_t : d->t0;
	if (c->key[0])
		diag_pg_name(d, c->key, v->pg, sizeof(v->pg)); /* with its members below */
	v->seq = c->seq;
	snprintf(v->op, sizeof(v->op), "%s", c->how ? c->expect.op : c->fp[deviant].op);
	struct buf who = {0}, call = {0};
	rank_desc(d, v->culprits[0], &who);
	print_text(&c->fp[deviant], &call);
	buf_printf(&v->summary, "PyTorch's collective check (TORCH_DISTRIBUTED_DEBUG=DETAIL) stopped the job: %s called %s",
		   who.data, call.data);
	if (v->nculprits > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, " (ranks %s deviated)", l.data);
		buf_free(&l);
	}
	buf_printf(&v->summary, " as its next collective of %s%s", v->pg[0] ? "group " : "the group", v->pg);
	group_members(c->member, c->size, &v->summary);
	if (c->seq > 0)
		buf_printf(&v->summary, ", #%ld", c->seq);
	if (c->check_seq >= 0)
		buf_printf(&v->summary, " (the check's own count %ld)", c->check_seq);
	if (c->how) {
		buf_clear(&call);
		print_text(&c->expect, &call);
		buf_printf(&v->summary, ", where the others called %s; the deviation was told from %s.", call.data, c->how);
	} else {
		buf_puts(&v->summary, ", and the others called something else; which side deviated cannot be told from"
				      " these logs (no majority, no history of the group): every rank that differs is named.");
	}
	buf_puts(&v->summary, " The check raises on every rank of the group before NCCL runs the call: nothing hung,"
			      " the other ranks' failures followed.");
	v_cite_event(v, c->fp[deviant].event_id ? c->fp[deviant].event_id : c->first_ev, "the collective check");
	for (int i = 0; i < c->size; i++)
		if (i != deviant && c->fp[i].event_id && !(c->how && !print_eq(&c->fp[i], &c->expect))) {
			v_cite_event(v, c->fp[i].event_id, "a peer's check");
			break;
		}
	buf_free(&who);
	buf_free(&call);
}

/* Judges the check's reports made in group key ("": the reporting ranks
 * themselves): its deviating ranks go into the verdict's culprits; for the
 * first group, the whole verdict is written. false if it names nobody. */
static bool check_site(struct diagnosis *d, const char *key, bool first)
{
	struct verdict *v = &d->v;
	size_t had = v->nculprits;
	struct check_site c = {.key = key};
	c.size = group_map(d, key, &c.member);
	if (!c.size)
		return false;
	site_load(d, &c);
	site_judge(d, &c);
	int deviant = -1;
	for (int i = 0; i < c.size; i++) {
		if (!c.fp[i].known || (c.how && print_eq(&c.fp[i], &c.expect)) || c.member[i] < 0)
			continue;
		v_culprit(v, c.member[i]);
		if (deviant < 0)
			deviant = i;
	}
	if (first && deviant >= 0 && v->nculprits > had)
		site_write(d, &c, deviant);
	free(c.fp);
	free(c.member);
	return v->nculprits > had;
}

bool diag_check_mismatch(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (!q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind = 'pg_check_mismatch')")) {
		v_decline(d, "no collective check (TORCH_DISTRIBUTED_DEBUG=DETAIL) reported different calls");
		return false;
	}
	check_groups_table(d);
	char (*groups)[128];
	size_t ng = check_groups_of_reports(d, &groups);
	if (ng == 0) {
		free(groups);
		return check_site(d, "", true);
	}
	size_t done = 0;
	for (size_t i = 0; i < ng; i++)
		done += check_site(d, groups[i], done == 0);
	free(groups);
	if (done == 0)
		v_decline(d, "the check's reports name no rank that deviated from its group");
	if (done > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, " The check failed the same way in %zu more groups; every rank that deviated: %s"
					" (%zu ranks).", done - 1, l.data, v->nculprits);
		buf_free(&l);
	}
	return done > 0;
}

/* ---- a rank that went past a check its group waited in ---- */

/* The call a rank's check failed in, from the traceback that follows its
 * first check line in the same file: the torch.distributed function and the
 * caller's file and line ("barrier at train.py:275"). false where no
 * traceback shows it. */
static bool check_call_site(struct diagnosis *d, int rank, char *out, size_t n)
{
	return q_text(d->db, out, n,
		"WITH c AS (SELECT event_id, source_id FROM events WHERE rank = %d AND kind IN ('pg_check_absent',"
		"   'pg_check_waited', 'pg_check_failed') ORDER BY time_us IS NULL, time_us, event_id LIMIT 1),"
		" api AS (SELECT f.event_id, f.source_id, field(f.fields, 'func') AS fn FROM events f, c"
		"   WHERE f.kind = 'py_frame' AND f.source_id = c.source_id AND f.event_id > c.event_id"
		"   AND field(f.fields, 'file') LIKE '%%/torch/distributed/distributed_c10d.py' ORDER BY f.event_id LIMIT 1)"
		" SELECT api.fn || ' at ' || field(u.fields, 'file') || ':' || field(u.fields, 'line') FROM api, events u"
		" WHERE u.event_id = (SELECT max(x.event_id) FROM events x WHERE x.kind = 'py_frame'"
		"   AND x.source_id = api.source_id AND x.event_id < api.event_id"
		"   AND field(x.fields, 'file') NOT LIKE '%%/torch/%%')",
		rank);
}

/* Whether rank a, which the check of group grp (rooted at rank root) waited
 * for, was in another call than every other member of the group whose call
 * is known (the root and at least one more): it left the order of calls the
 * others kept. Its call and theirs into mine and theirs. Only where every
 * rank with logs was in a check: a rank that never reached one (stuck in
 * host code, dead) holds up its group's check, and a member of that group
 * waiting there is in another call than its other groups' members through
 * no fault of its own. */
static bool called_elsewhere(struct diagnosis *d, int a, const char *grp, int root, char *mine, size_t mn,
			     char *theirs, size_t tn)
{
	if (q_int(d->db, 1, "SELECT EXISTS (SELECT 1 FROM rank_status WHERE events > 0 AND rank NOT IN"
			    " (SELECT rank FROM events WHERE kind IN ('pg_check_absent', 'pg_check_waited',"
			    " 'pg_check_failed') AND rank IS NOT NULL))"))
		return false;
	if (!check_call_site(d, a, mine, mn) || !check_call_site(d, root, theirs, tn) || strcmp(mine, theirs) == 0)
		return false;
	int *member = NULL;
	int size = group_map(d, grp, &member);
	int agree = 0;
	bool other = false;
	char site[512];
	for (int i = 0; i < size && !other; i++) {
		if (member[i] < 0 || member[i] == a || !check_call_site(d, member[i], site, sizeof(site)))
			continue;
		if (strcmp(site, theirs) == 0)
			agree++;
		else
			other = true;
	}
	free(member);
	return !other && agree >= 2;
}

/* A verdict of confidence medium naming rank, from a check of group grp:
 * the rank's description into *who and the group's members into *members. */
static void check_verdict(struct diagnosis *d, int rank, const char *grp, const char *outcome, const char *cause,
			  struct buf *who, struct buf *members)
{
	struct verdict *v = &d->v;
	v_culprit(v, rank);
	v->outcome = outcome;
	v->cause = cause;
	v->confidence = CONFIDENCE(medium);
	v->first_failure_t = d->t0;
	diag_pg_name(d, grp, v->pg, sizeof(v->pg)); /* with its members below */
	rank_desc(d, rank, who);
	int *member = NULL;
	int size = group_map(d, grp, &member);
	group_members(member, size, members);
	free(member);
}

/* The one rank a check's barrier waited for in vain that was in no check
 * itself, alive when the checks failed (it logged around then, with no
 * error and no exit before): it never reached that collective, stuck in
 * host code. */
static bool check_stalled(struct diagnosis *d, int rank, const char *grp, int64_t ev)
{
	struct verdict *v = &d->v;
	struct rank_facts *f = diag_rank(d, rank);
	struct buf who = {0}, members = {0};
	check_verdict(d, rank, grp, OUTCOME(hang), CAUSE(rank_stalled), &who, &members);
	buf_printf(&v->summary,
		   "PyTorch's collective check (TORCH_DISTRIBUTED_DEBUG=DETAIL) of a collective of group %s%s waited"
		   " for %s in vain, and it was in no check at all: alive (no error, no exit before the checks"
		   " failed) but stuck in host code before that collective",
		   v->pg, members.data ? members.data : "", who.data);
	if (f && f->last_step >= 0)
		buf_printf(&v->summary, " (its last step %ld)", f->last_step);
	buf_puts(&v->summary, ". The checks of its peers then failed one after the other.");
	buf_free(&members);
	v_cite_event(v, ev, "the check's barrier that waited for it");
	v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM events WHERE rank = %d AND kind = 'app_step'", rank),
		     "its last step");
	buf_free(&who);
	return true;
}

/* Whether rank f, which the check's barrier (its report: event ev) waited
 * for and which was in no check itself, was stuck in host code: alive then
 * (it logged around the checks' failure, with no error or exit before),
 * making no progress since the barrier began to wait, and not waiting in a
 * transfer (a pipeline stage after a stalled one). */
static bool stuck_outside_checks(struct diagnosis *d, const struct rank_facts *f, int64_t ev)
{
	if (!f->responsive || (f->exited && f->exit_t != T_NONE && f->exit_t < d->t0) ||
	    (f->first_error_t != T_NONE && f->first_error_t < d->t0) || f->last_step_t == T_NONE)
		return false;
	int64_t began = q_int(d->db, T_NONE,
			      "SELECT time_us - coalesce(field(fields, 'timeout_ms'), 0) * 1000 FROM events"
			      " WHERE event_id = %lld AND time_us IS NOT NULL", (long long)ev);
	return began != T_NONE && f->last_step_t < began + WHOLE_SECOND_US && !diag_last_call_is_transfer(d, f->rank);
}

bool diag_check_skip(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* each rank a check's barrier waited for in vain, in each group of
	 * three or more where the reporting rank is the barrier's rank 0 */
	if (!q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind = 'pg_check_absent')")) {
		v_decline(d, "no collective check (TORCH_DISTRIBUTED_DEBUG=DETAIL) waited for a rank in vain");
		return false;
	}
	check_groups_table(d);
	/* A root may number its members alike in several groups (rank 0 is
	 * group rank 0 of the default group and of its dp group): the check ran
	 * in the group whose other members said they reached it (their own
	 * group rank, the same root, within the timeout), most of them */
	sqlite3_stmt *st = db_prepare(d->db,
		"WITH cand AS (SELECT e.event_id, e.rank AS root_rank, e.time_us, r.grp, r.grank AS root_g, r.size,"
		"   '[' || field(e.fields, 'ranks') || ']' AS absent,"
		"   coalesce(field(e.fields, 'timeout_ms'), 0) * 1000 AS within FROM events e"
		"   JOIN check_groups r ON r.rank = e.rank AND r.grank = field(e.fields, 'root') AND r.size >= 3"
		"   WHERE e.kind = 'pg_check_absent' AND e.rank IS NOT NULL),"
		" fit AS (SELECT c.*, (SELECT count(*) FROM check_groups m WHERE m.grp = c.grp"
		"   AND m.grank <> c.root_g AND m.grank NOT IN (SELECT value FROM json_each(c.absent))"
		"   AND EXISTS (SELECT 1 FROM events w WHERE w.kind = 'pg_check_waited' AND w.rank = m.rank"
		"    AND field(w.fields, 'group_rank') = m.grank AND field(w.fields, 'root') = c.root_g"
		"    AND (w.time_us IS NULL OR c.time_us IS NULL OR abs(w.time_us - c.time_us) <= c.within)))"
		"   * 1.0 / max(1, c.size - 1 - json_array_length(c.absent)) AS score FROM cand c),"
		" best AS (SELECT event_id, max(score) AS score FROM fit GROUP BY event_id)"
		" SELECT DISTINCT a.rank, f.grp, f.event_id, f.root_rank FROM fit f JOIN best b USING(event_id, score)"
		" JOIN json_each(f.absent) j"
		" JOIN check_groups a ON a.grp = f.grp AND a.grank = j.value"
		" ORDER BY f.time_us IS NULL, f.time_us, f.event_id");
	int rank = -1;
	char grp[128] = "";
	int64_t ev = 0;
	long ahead_of = -1;
	bool several = false;
	/* the calls, where the rank is not ahead but was in another call */
	char mine[512] = "", theirs[512] = "";
	/* a rank waited for that was in no check at all */
	int stalled = -1;
	bool several_stalled = false;
	char stalled_grp[128] = "";
	int64_t stalled_ev = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int a = sqlite3_column_int(st, 0);
		const char *g = (const char *)sqlite3_column_text(st, 1);
		struct rank_facts *f = diag_rank(d, a);
		if (!f)
			continue;
		/* it was itself in a check: not stuck in host code */
		if (!q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE rank = %d AND kind IN"
				     " ('pg_check_absent', 'pg_check_waited', 'pg_check_failed'))", a)) {
			if (stuck_outside_checks(d, f, sqlite3_column_int64(st, 2))) {
				if (stalled >= 0 && stalled != a)
					several_stalled = true;
				if (stalled < 0) {
					stalled = a;
					snprintf(stalled_grp, sizeof(stalled_grp), "%s", g);
					stalled_ev = sqlite3_column_int64(st, 2);
				}
			}
			continue;
		}
		if (f->last_step < 0)
			continue;
		/* and ahead of the rank that waited for it there: past the call;
		 * else at the same step, in another call than all the others */
		struct rank_facts *root = diag_rank(d, sqlite3_column_int(st, 3));
		long others = root ? root->last_step : -1;
		char m[512], t[512];
		bool ahead = others >= 0 && f->last_step > others;
		if (!ahead && !(others >= 0 && f->last_step == others &&
				called_elsewhere(d, a, g, root->rank, m, sizeof(m), t, sizeof(t))))
			continue;
		if (rank >= 0 && rank != a)
			several = true;
		if (rank < 0) {
			rank = a;
			snprintf(grp, sizeof(grp), "%s", g);
			ev = sqlite3_column_int64(st, 2);
			ahead_of = others;
			if (!ahead) {
				snprintf(mine, sizeof(mine), "%s", m);
				snprintf(theirs, sizeof(theirs), "%s", t);
			}
		}
	}
	sqlite3_finalize(st);
	if (rank < 0 && stalled >= 0 && !several_stalled)
		return check_stalled(d, stalled, stalled_grp, stalled_ev);
	if (rank < 0 || several) {
		v_decline(d, several ? "the checks' barriers waited for several ranks alike: no one of them went past first"
				     : "no rank went past a check its group waited in");
		return false;
	}
	struct rank_facts *f = diag_rank(d, rank);
	struct buf who = {0}, members = {0};
	check_verdict(d, rank, grp, OUTCOME(crash), CAUSE(collective_mismatch), &who, &members);
	if (mine[0])
		buf_printf(&v->summary,
			   "PyTorch's collective check (TORCH_DISTRIBUTED_DEBUG=DETAIL) of a collective of group %s%s waited"
			   " for %s in vain: it was in another call, %s, while every other member whose call is known was in"
			   " %s, at the same step (%ld). It left the order of calls the others kept (a call skipped or added,"
			   " or the loop left early). Their checks then failed one after the other.",
			   v->pg, members.data ? members.data : "", who.data, mine, theirs, f->last_step);
	else
		buf_printf(&v->summary,
			   "PyTorch's collective check (TORCH_DISTRIBUTED_DEBUG=DETAIL) of a collective of group %s%s waited"
			   " for %s in vain, while it was already in a later check elsewhere (its last step %ld, the waiting"
			   " rank's %ld): it went past a collective of that group that the others were waiting to run (a"
			   " skipped call). Their checks then failed one after the other.",
			   v->pg, members.data ? members.data : "", who.data, f->last_step, ahead_of);
	buf_free(&members);
	v_cite_event(v, ev, "the check's barrier that waited for it");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT event_id FROM events WHERE rank = %d AND kind IN ('pg_check_absent',"
			      " 'pg_check_waited', 'pg_check_failed') ORDER BY time_us IS NULL, time_us, event_id LIMIT 1",
			      rank),
		     "its own check, further on");
	v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM events WHERE rank = %d AND kind = 'app_step'", rank),
		     "its last step");
	buf_free(&who);
	return true;
}
