/* grammar_load.c: reads the .rules files of grammars/; format in docs/grammars.md. */
#include "grammar_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const known_classes[] = {
	"info", "init", "step", "coll", "timeout", "error", "exit", "signal",
	"dump", "sysmsg", "config", "network", "bandwidth",
};

struct grammar *grammar_new(void)
{
	struct grammar *g = xcalloc(1, sizeof(*g));
	g->limits.match_limit = 1000000;
	g->limits.depth_limit = 10000;
	g->limits.costly_steps = 100000;
	return g;
}

static void rule_free(struct rule *r)
{
	for (size_t i = 0; i < r->nregex; i++) {
		pcre2_code_free(r->regex[i].code);
		free(r->regex[i].pattern);
		for (int j = 0; j < r->regex[i].ngroups; j++)
			free(r->regex[i].group_name[j]);
	}
	free(r->regex);
	for (size_t i = 0; i < r->nsamples; i++) {
		free(r->samples[i].line);
		free(r->samples[i].expect);
		free(r->samples[i].file);
	}
	free(r->samples);
	free(r->name);
	free(r->event_kind);
	free(r->file);
	free(r->class_name);
	free(r->keep_per);
	free(r->starts);
	free(r->contains);
	free(r);
}

void grammar_free(struct grammar *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nrules; i++)
		rule_free(g->rules[i]);
	free(g->rules);
	free(g->disabled_files);
	for (int f = 0; f < FAM_COUNT; f++)
		for (int b = 0; b < 256; b++)
			free(g->dispatch[f][b].items);
	free(g);
}

static struct rule *find_rule(struct grammar *g, const char *name)
{
	for (size_t i = 0; i < g->nrules; i++)
		if (strcmp(g->rules[i]->name, name) == 0)
			return g->rules[i];
	return NULL;
}

static int compile_regex(struct rule *r, const char *pattern, struct errbuf *err,
			 const char *path, int line_no)
{
	int ec;
	PCRE2_SIZE eoff;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &ec, &eoff, NULL);
	if (!code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof(msg));
		return errbuf_set(err, "%s:%d: rule %s: bad regex at offset %zu: %s", path, line_no,
				  r->name, (size_t)eoff, (char *)msg);
	}
	/* JIT is an optimisation: fall back to the interpreter where unavailable.
	 * NCCLFORENSIC_NO_JIT=1 turns it off (valgrind cannot follow JIT code). */
	const char *no_jit = getenv("NCCLFORENSIC_NO_JIT");
	if (!no_jit || !*no_jit || strcmp(no_jit, "0") == 0)
		(void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
	xgrow(&r->regex, &r->regex_cap, r->nregex + 1, sizeof(*r->regex));
	struct rule_regex *rx = &r->regex[r->nregex++];
	memset(rx, 0, sizeof(*rx));
	rx->pattern = xstrdup(pattern);
	rx->code = code;
	uint32_t count = 0, entry_size = 0;
	PCRE2_SPTR table = NULL;
	pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
	pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
	if (count > GRAMMAR_MAX_FIELDS)
		return errbuf_set(err, "%s:%d: rule %s: more than %d named captures", path, line_no,
				  r->name, GRAMMAR_MAX_FIELDS);
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *e = table + i * entry_size;
		rx->group_num[i] = (e[0] << 8) | e[1];
		rx->group_name[i] = xstrdup((const char *)e + 2);
	}
	rx->ngroups = (int)count;
	return 0;
}

static bool known_class(const char *c)
{
	for (size_t i = 0; i < ARRAY_LEN(known_classes); i++)
		if (strcmp(c, known_classes[i]) == 0)
			return true;
	return false;
}

static int check_rule(const struct rule *r, struct errbuf *err)
{
	if (r->nregex == 0)
		return errbuf_set(err, "%s:%d: rule %s has no regex", r->file, r->line_no, r->name);
	if (r->nsamples == 0)
		return errbuf_set(err, "%s:%d: rule %s has no sample line", r->file, r->line_no, r->name);
	if (r->family < 0)
		return errbuf_set(err, "%s:%d: rule %s has no family", r->file, r->line_no, r->name);
	return 0;
}

/* Splits "keyword value" (value trimmed; may be empty). */
static void split_kv(char *s, char **key, char **val)
{
	while (*s == ' ' || *s == '\t')
		s++;
	*key = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s) {
		*s++ = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
	}
	*val = s;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* A grammar file is read only when it is a regular file of a sane size: a
 * .rules that is /dev/zero would be read until memory runs out, a FIFO
 * would block forever. */
#define GRAMMAR_FILE_MAX ((off_t)4 << 20)

static FILE *open_rules(const char *path, struct errbuf *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		errbuf_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	const char *bad = NULL;
	if (fstat(fd, &st) != 0)
		bad = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		bad = "not a regular file (a device, a FIFO or a directory): not read";
	else if (st.st_size > GRAMMAR_FILE_MAX)
		bad = "larger than 4 MiB: not a grammar file";
	FILE *f = bad ? NULL : fdopen(fd, "r");
	if (!f) {
		errbuf_set(err, "%s: %s", path, bad ? bad : strerror(errno));
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return f;
}

int grammar_load_file(struct grammar *g, const char *path, struct errbuf *err)
{
	FILE *f = open_rules(path, err);
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int line_no = 0, rc = 0;
	struct rule *cur = NULL;
	while ((n = getline(&line, &cap, f)) >= 0) {
		line_no++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		char *key, *val;
		/* sample lines keep their exact text: only the keyword is split off */
		char *raw = NULL;
		if (strncmp(p, "sample", 6) == 0 && (p[6] == ' ' || p[6] == '\t')) {
			/* the value starts after the blanks; a leading '|' keeps the blanks that follow it */
			const char *v = p + 6;
			while (*v == ' ' || *v == '\t')
				v++;
			if (*v == '|')
				v++;
			raw = xstrdup(v);
		}
		split_kv(p, &key, &val);
		if (strcmp(key, "rule") == 0) {
			if (cur && (rc = check_rule(cur, err)) < 0)
				break;
			if (!*val || strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(val)) {
				rc = errbuf_set(err, "%s:%d: rule name must be [a-z0-9_]+, got '%s'", path, line_no, val);
				break;
			}
			if (find_rule(g, val)) {
				rc = errbuf_set(err, "%s:%d: rule %s is defined twice", path, line_no, val);
				break;
			}
			cur = xcalloc(1, sizeof(*cur));
			cur->name = xstrdup(val);
			cur->file = xstrdup(path);
			cur->line_no = line_no;
			cur->family = -1;
			cur->class_name = xstrdup("info");
			cur->index = g->nrules;
			xgrow(&g->rules, &g->rules_cap, g->nrules + 1, sizeof(*g->rules));
			g->rules[g->nrules++] = cur;
			continue;
		}
		if (!cur) {
			rc = errbuf_set(err, "%s:%d: '%s' before the first 'rule'", path, line_no, key);
			free(raw);
			break;
		}
		if (strcmp(key, "starts") == 0 || strcmp(key, "contains") == 0) {
			/* a literal may be quoted to keep its spaces: contains " -> " */
			size_t vl = strlen(val);
			if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"') {
				val[vl - 1] = '\0';
				val++;
			}
		}
		if (strcmp(key, "family") == 0) {
			cur->family = strcmp(val, "any") == 0 ? FAM_ANY : family_from_name(val);
			if (cur->family < 0) {
				rc = errbuf_set(err, "%s:%d: unknown family '%s' (plain nccl c10 glog pylog kernel any)",
						path, line_no, val);
				break;
			}
		} else if (strcmp(key, "level") == 0) {
			if (strlen(val) != 1 || !strchr("IWEFT", val[0])) {
				rc = errbuf_set(err, "%s:%d: level must be one of I W E F T", path, line_no);
				break;
			}
			cur->level = val[0];
		} else if (strcmp(key, "class") == 0) {
			if (!known_class(val)) {
				rc = errbuf_set(err, "%s:%d: unknown class '%s'", path, line_no, val);
				break;
			}
			free(cur->class_name);
			cur->class_name = xstrdup(val);
		} else if (strcmp(key, "keep") == 0) {
			/* keep N [per FIELD] */
			char per[64] = "";
			int n = 0, used = 0;
			if (sscanf(val, "%d%n", &n, &used) != 1 || n <= 0 ||
			    (val[used] && sscanf(val + used, " per %63s", per) != 1)) {
				rc = errbuf_set(err, "%s:%d: keep wants 'N' or 'N per FIELD', got '%s'", path, line_no, val);
				break;
			}
			cur->keep = n;
			free(cur->keep_per);
			cur->keep_per = per[0] ? xstrdup(per) : NULL;
		} else if (strcmp(key, "event") == 0) {
			if (!val[0] || strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(val)) {
				rc = errbuf_set(err, "%s:%d: event wants a kind of [a-z0-9_], got '%s'", path, line_no, val);
				break;
			}
			free(cur->event_kind);
			cur->event_kind = xstrdup(val);
		} else if (strcmp(key, "starts") == 0) {
			free(cur->starts);
			cur->starts = xstrdup(val);
			cur->starts_len = strlen(val);
		} else if (strcmp(key, "contains") == 0) {
			free(cur->contains);
			cur->contains = xstrdup(val);
			cur->contains_len = strlen(val);
		} else if (strcmp(key, "regex") == 0) {
			if ((rc = compile_regex(cur, val, err, path, line_no)) < 0)
				break;
		} else if (strcmp(key, "sample") == 0) {
			xgrow(&cur->samples, &cur->samples_cap, cur->nsamples + 1, sizeof(*cur->samples));
			struct rule_sample *s = &cur->samples[cur->nsamples++];
			s->line = raw ? raw : xstrdup("");
			raw = NULL;
			s->expect = NULL;
			s->file = xstrdup(path);
			s->line_no = line_no;
		} else if (strcmp(key, "expect") == 0) {
			if (cur->nsamples == 0) {
				rc = errbuf_set(err, "%s:%d: 'expect' before any 'sample'", path, line_no);
				break;
			}
			struct rule_sample *s = &cur->samples[cur->nsamples - 1];
			free(s->expect);
			s->expect = xstrdup(val);
		} else {
			rc = errbuf_set(err, "%s:%d: unknown keyword '%s'", path, line_no, key);
		}
		free(raw);
		if (rc < 0)
			break;
	}
	if (rc == 0 && cur)
		rc = check_rule(cur, err);
	free(line);
	fclose(f);
	g->finished = false;
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int grammar_load_dir(struct grammar *g, const char *dir, struct errbuf *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return errbuf_set(err, "%s: %s", dir, strerror(errno));
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !str_ends(e->d_name, ".rules"))
			continue;
		xgrow(&names, &cap, n + 1, sizeof(*names));
		names[n++] = xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n > 1) /* names is NULL for an empty directory */
		xqsort(names, n, sizeof(*names), cmp_str);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (rc == 0)
			rc = grammar_load_file(g, names[i], err);
		free(names[i]);
	}
	free(names);
	return rc;
}

static char builtin_dir[PATH_MAX];

#ifndef NF_GRAMMAR_INSTALL_DIR
#define NF_GRAMMAR_INSTALL_DIR ""
#endif

/* The built-in rules: grammars/ next to the binary or one level up (a
 * source tree, a build directory in it), else
 * <prefix>/share/ncclforensic/grammars (installed). */
static const char *find_builtin_dir(void)
{
	char exe[PATH_MAX - 64];
	if (exe_dir(exe, sizeof(exe))) {
		const char *cands[] = {"%s/grammars", "%s/../grammars", "%s/../share/ncclforensic/grammars"};
		for (size_t i = 0; i < ARRAY_LEN(cands); i++) {
			snprintf(builtin_dir, sizeof(builtin_dir), cands[i], exe);
			if (access(builtin_dir, R_OK) == 0)
				return builtin_dir;
		}
	}
	if (NF_GRAMMAR_INSTALL_DIR[0] && access(NF_GRAMMAR_INSTALL_DIR, R_OK) == 0) {
		snprintf(builtin_dir, sizeof(builtin_dir), "%s", NF_GRAMMAR_INSTALL_DIR);
		return builtin_dir;
	}
	return NULL;
}

const char *grammar_builtin_dir(void)
{
	return builtin_dir[0] ? builtin_dir : NULL;
}

int grammar_load_default(struct grammar *g, const char *const *extra_dirs, size_t n_extra,
			 struct errbuf *err)
{
	const char *dir = find_builtin_dir();
	if (!dir)
		return errbuf_set(err, "cannot find the built-in grammars (grammars/ next to the binary "
				       "or share/ncclforensic/grammars under its prefix)");
	if (grammar_load_dir(g, dir, err) < 0)
		return -1;
	const char *env = getenv("NCCLFORENSIC_GRAMMARS");
	if (env && *env) {
		char *copy = xstrdup(env), *save = NULL;
		for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
			if (grammar_load_dir(g, tok, err) < 0) {
				free(copy);
				return -1;
			}
		}
		free(copy);
	}
	for (size_t i = 0; i < n_extra; i++)
		if (grammar_load_dir(g, extra_dirs[i], err) < 0)
			return -1;
	grammar_finish(g);
	return 0;
}

size_t grammar_rule_count(const struct grammar *g)
{
	return g->nrules;
}

const struct rule *grammar_rule(const struct grammar *g, size_t i)
{
	return i < g->nrules ? g->rules[i] : NULL;
}

const char *rule_name(const struct rule *r)
{
	return r->name;
}

const char *rule_event_kind(const struct rule *r)
{
	return r->event_kind ? r->event_kind : r->name;
}

const char *rule_class(const struct rule *r)
{
	return r->class_name;
}

int rule_keep(const struct rule *r, const char **per)
{
	if (per)
		*per = r->keep_per;
	return r->keep;
}

const char *rule_file(const struct rule *r)
{
	return r->file;
}

int rule_line(const struct rule *r)
{
	return r->line_no;
}

int rule_family(const struct rule *r)
{
	return r->family;
}

size_t rule_index(const struct rule *r)
{
	return r->index;
}

size_t rule_sample_count(const struct rule *r)
{
	return r->nsamples;
}

const struct rule_sample *rule_sample(const struct rule *r, size_t i)
{
	return i < r->nsamples ? &r->samples[i] : NULL;
}
