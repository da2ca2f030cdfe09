/* member_classify.c: see member_classify.h. Path rules first (they are
 * cheap and tell attribution too), then content sniffing of the first 4 KiB. */
#include "member_classify.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "line_prefix.h"
#include "util.h"

static const char *const kind_names[SK_COUNT] = {
	"rank_log", "console", "nccl_debug", "flight_recorder", "error_json", "dmesg", "syslog",
	"journal", "nccl_tests", "text", "binary", "empty", "link", "archive", "other",
};

const char *source_kind_name(enum source_kind k)
{
	return (unsigned)k < SK_COUNT ? kind_names[k] : "text";
}

bool looks_like_text(const unsigned char *h, size_t n)
{
	if (n == 0)
		return true;
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned c = h[i];
		if (c == 0)
			bad += 4;
		else if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != 0x1b)
			bad++;
	}
	return bad * 20 < n; /* under 5% control bytes */
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Past the last "word" in name (any case) and one separator of seps after
 * it; NULL when the word is not in the name. */
static const char *after_last(const char *name, const char *word, const char *seps)
{
	const char *p = name, *hit = NULL;
	size_t n = strlen(word);
	while ((p = strcasestr(p, word))) {
		hit = p;
		p += n;
	}
	if (!hit)
		return NULL;
	p = hit + n;
	return *p && strchr(seps, *p) ? p + 1 : p;
}

/* Trailing number of "...rank<N>" / "...rank_<N>" / "...rank-<N>" in a name,
 * else the N ending "...dump_<N>" (a flight-recorder dump written as
 * <prefix>_dump_<N>, the rank its N). */
static int rank_from_name(const char *base)
{
	const char *p = after_last(base, "rank", "_-.");
	if (p) {
		if (!isdigit((unsigned char)*p))
			return -1;
		long v = strtol(p, NULL, 10);
		return v >= 0 && v < 10000000 ? (int)v : -1;
	}
	if (!(p = after_last(base, "dump", "_-")))
		return -1;
	const char *q = p;
	while (isdigit((unsigned char)*q))
		q++;
	return q == p || *q || q - p > 6 ? -1 : (int)strtol(p, NULL, 10);
}

/* .../attempt_<n>/<local_rank>/{stdout,stderr}.log (torchrun log_dir layout). */
static int local_rank_from_path(const char *path)
{
	const char *a = strstr(path, "attempt_");
	if (!a)
		return -1;
	const char *slash = strchr(a, '/');
	if (!slash || !isdigit((unsigned char)slash[1]))
		return -1;
	char *end;
	long v = strtol(slash + 1, &end, 10);
	if (*end != '/')
		return -1;
	const char *base = end + 1;
	if (strncmp(base, "stdout", 6) != 0 && strncmp(base, "stderr", 6) != 0 && strncmp(base, "error", 5) != 0)
		return -1;
	return (int)v;
}

/* The first complete line of head (without its line break). */
static size_t first_line(const unsigned char *h, size_t n)
{
	const unsigned char *nl = memchr(h, '\n', n);
	return nl ? (size_t)(nl - h) : n;
}

/* Counts lines of head by family. */
static void sniff_families(const unsigned char *h, size_t n, int counts[FAM_COUNT], int *wrapped)
{
	const char *p = (const char *)h, *end = p + n;
	int lines = 0;
	while (p < end && lines < 40) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break; /* last line may be cut */
		struct line_parts lp;
		line_parts_parse(p, (size_t)(nl - p), false, &lp);
		counts[lp.family]++;
		if (lp.local_rank >= 0)
			(*wrapped)++;
		lines++;
		p = nl + 1;
	}
}

void member_classify(const char *path, const unsigned char *h, size_t n, struct member_class *mc)
{
	const char *base = basename_of(path);
	mc->kind = SK_TEXT;
	mc->path_rank = rank_from_name(base);
	mc->path_local_rank = local_rank_from_path(path);
	mc->srun_labels = n > 0 && line_has_srun_label((const char *)h, first_line(h, n));

	if (n == 0) {
		mc->kind = SK_EMPTY;
		return;
	}
	/* pickle protocol 2..5 */
	if (n >= 2 && h[0] == 0x80 && h[1] >= 2 && h[1] <= 5) {
		mc->kind = SK_FLIGHT_RECORDER;
		return;
	}
	/* a protocol 0/1 pickle looks like text: known by its name and a first
	 * byte that starts a pickle (GLOBAL, MARK, EMPTY_LIST/DICT/TUPLE, PROTO),
	 * so that the pickle reader, not the text path, refuses or reads it */
	if ((str_ends(base, ".pkl") || str_ends(base, ".pickle") ||
	     (strstr(base, "trace_rank_") && !strchr(base, '.'))) && memchr("c(]})\x80", h[0], 6)) {
		mc->kind = SK_FLIGHT_RECORDER;
		return;
	}
	if (!looks_like_text(h, n)) {
		mc->kind = SK_BINARY;
		return;
	}
	if (strcasecmp(base, "error.json") == 0 || (str_ends(base, ".json") && strstr(base, "error"))) {
		mc->kind = SK_ERROR_JSON;
		return;
	}
	int fam[FAM_COUNT] = {0}, wrapped = 0;
	sniff_families(h, n, fam, &wrapped);
	int total = 0;
	for (int i = 0; i < FAM_COUNT; i++)
		total += fam[i];

	if (mc->path_local_rank >= 0) {
		mc->kind = SK_RANK_LOG;
		return;
	}
	if (h && n > 0 && memmem(h, n, "_perf", 5) && memmem(h, n, "nThread", 7)) {
		mc->kind = SK_NCCL_TESTS;
		return;
	}
	if (total && fam[FAM_KERNEL] * 2 > total) {
		const char *p = (const char *)h;
		if (strcasestr(base, "journal"))
			mc->kind = SK_JOURNAL;
		else if (p[0] == '[' || (p[0] == '<' && n > 3 && p[3] == '['))
			mc->kind = SK_DMESG;
		else if (isdigit((unsigned char)p[0]))
			mc->kind = SK_JOURNAL;
		else
			mc->kind = SK_SYSLOG;
		return;
	}
	if (strncasecmp(base, "dmesg", 5) == 0 || strncasecmp(base, "kern", 4) == 0) {
		mc->kind = SK_DMESG;
		return;
	}
	if (wrapped * 4 > total && total) {
		mc->kind = SK_CONSOLE;
		return;
	}
	if (total && fam[FAM_NCCL] * 10 >= total * 9 && strcasestr(base, "nccl")) {
		mc->kind = SK_NCCL_DEBUG;
		return;
	}
	if (mc->path_rank >= 0) {
		mc->kind = SK_RANK_LOG;
		return;
	}
	if (strcasestr(base, "console") || strcasestr(base, "torchrun") || strcasestr(base, "launcher")) {
		mc->kind = SK_CONSOLE;
		return;
	}
	mc->kind = SK_TEXT;
}
