/* redact.c: see redact.h. One left-to-right scan per string; at each word
 * start it tries, in order, an IP address, a known host name, a user path, a
 * pid context; everything else is copied. */
#include "redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

/* A string -> alias map (open addressing). Invariant: slots has cap entries,
 * each 0 (empty) or 1 + an index into keys/vals; cap is a power of two. */
struct amap {
	char **keys, **vals;
	size_t n, ncap;
	uint32_t *slots;
	size_t cap;
	bool nocase; /* keys compare without case (host names: GPU-NODE02 is gpu-node02) */
};

/* FNV-1a of the key, lowercased when the map ignores case. */
static size_t amap_hash(const struct amap *m, const char *k, size_t n)
{
	if (!m->nocase)
		return hash_mem(k, n);
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)tolower((unsigned char)k[i]);
		h *= 1099511628211ull;
	}
	return (size_t)h;
}

struct redact {
	struct amap hosts, ips, paths, pids;
	size_t maxhost; /* longest host name registered */
};

static const char *amap_get(const struct amap *m, const char *k, size_t n)
{
	if (!m->cap)
		return NULL;
	for (size_t i = amap_hash(m, k, n) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		uint32_t s = m->slots[i];
		if (!s)
			return NULL;
		const char *key = m->keys[s - 1];
		if (strlen(key) == n && (m->nocase ? strncasecmp(key, k, n) : memcmp(key, k, n)) == 0)
			return m->vals[s - 1];
	}
}

static void amap_slot(struct amap *m, size_t idx)
{
	const char *k = m->keys[idx];
	size_t i = amap_hash(m, k, strlen(k)) & (m->cap - 1);
	while (m->slots[i])
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = (uint32_t)idx + 1;
}

/* Adds k with the alias made by fmt(number); returns the alias. */
static const char *amap_put(struct amap *m, const char *k, size_t n, char *alias)
{
	if ((m->n + 1) * 2 > m->cap) {
		free(m->slots);
		m->cap = m->cap ? m->cap * 2 : 64;
		m->slots = xcalloc(m->cap, sizeof(*m->slots));
		for (size_t i = 0; i < m->n; i++)
			amap_slot(m, i);
	}
	xgrow(&m->keys, &m->ncap, m->n + 1, sizeof(*m->keys));
	m->vals = xrealloc(m->vals, m->ncap * sizeof(*m->vals));
	m->keys[m->n] = xstrndup(k, n);
	m->vals[m->n] = alias;
	amap_slot(m, m->n);
	return m->vals[m->n++];
}

static void amap_free(struct amap *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->keys[i]);
		free(m->vals[i]);
	}
	free(m->keys);
	free(m->vals);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

struct redact *redact_new(void)
{
	struct redact *r = xcalloc(1, sizeof(struct redact));
	r->hosts.nocase = true;
	return r;
}

void redact_free(struct redact *r)
{
	if (!r)
		return;
	amap_free(&r->hosts);
	amap_free(&r->ips);
	amap_free(&r->paths);
	amap_free(&r->pids);
	free(r);
}

/* 0 -> A, 25 -> Z, 26 -> AA (bijective base 26) */
static char *host_alias(size_t i)
{
	char tmp[16];
	size_t n = 0;
	i++;
	while (i > 0 && n < sizeof(tmp)) {
		i--;
		tmp[n++] = (char)('A' + i % 26);
		i /= 26;
	}
	char *s = xmalloc(n + 6);
	memcpy(s, "node-", 5);
	for (size_t k = 0; k < n; k++)
		s[5 + k] = tmp[n - 1 - k];
	s[5 + n] = '\0';
	return s;
}

const char *redact_host(struct redact *r, const char *host)
{
	if (!host || !*host)
		return host;
	size_t n = strlen(host);
	const char *a = amap_get(&r->hosts, host, n);
	if (a)
		return a;
	a = amap_put(&r->hosts, host, n, host_alias(r->hosts.n));
	if (n > r->maxhost)
		r->maxhost = n;
	/* gpu-node03.cluster.local: the short name means the same host */
	const char *dot = strchr(host, '.');
	if (dot && dot - host >= 3 && !amap_get(&r->hosts, host, (size_t)(dot - host)))
		amap_put(&r->hosts, host, (size_t)(dot - host), xstrdup(a));
	return a;
}

static const char *pid_alias(struct redact *r, const char *digits, size_t n)
{
	const char *a = amap_get(&r->pids, digits, n);
	return a ? a : amap_put(&r->pids, digits, n, xasprintf("pid-%zu", r->pids.n + 1));
}

const char *redact_pid(struct redact *r, int64_t pid)
{
	char d[32];
	snprintf(d, sizeof(d), "%lld", (long long)pid);
	return pid_alias(r, d, strlen(d));
}

/* Characters of a host name ('_' is not one, so it bounds a name too). */
static bool host_char(char c)
{
	return isalnum((unsigned char)c) || c == '-';
}

/* An IPv4 address at s (length returned, 0 if none). */
static size_t match_ipv4(const char *s)
{
	const char *p = s;
	for (int part = 0; part < 4; part++) {
		if (part) {
			if (*p != '.')
				return 0;
			p++;
		}
		int v = 0, nd = 0;
		while (isdigit((unsigned char)*p) && nd < 4)
			v = v * 10 + (*p++ - '0'), nd++;
		if (nd == 0 || nd > 3 || v > 255)
			return 0;
	}
	if (isalnum((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))
		return 0;
	return (size_t)(p - s);
}

/* An IPv6 address at s: hex groups and colons with "::" or 7 colons. */
static size_t match_ipv6(const char *s)
{
	size_t n = 0, colons = 0, digits = 0, group = 0;
	bool dbl = false;
	while (isxdigit((unsigned char)s[n]) || s[n] == ':') {
		if (s[n] == ':') {
			if (s[n + 1] == ':') {
				if (dbl || s[n + 2] == ':')
					return 0;
				dbl = true;
			}
			colons++;
			group = 0;
		} else if (++group > 4) {
			return 0;
		} else {
			digits++;
		}
		n++;
	}
	if (host_char(s[n]) || s[n] == '.' || digits == 0 || colons < 2 || colons > 7)
		return 0;
	if (!dbl && colons != 7)
		return 0;
	if (s[n - 1] == ':' && !(n >= 2 && s[n - 2] == ':'))
		return 0;
	return n;
}

static bool ip_kept(const char *s, size_t n)
{
	static const char *const keep[] = {"127.0.0.1", "0.0.0.0", "::1", "::"};
	for (size_t i = 0; i < ARRAY_LEN(keep); i++)
		if (strlen(keep[i]) == n && memcmp(keep[i], s, n) == 0)
			return true;
	return false;
}

static void put_ip(struct redact *r, struct buf *out, const char *s, size_t n)
{
	if (ip_kept(s, n)) {
		buf_append(out, s, n);
		return;
	}
	const char *a = amap_get(&r->ips, s, n);
	if (!a)
		a = amap_put(&r->ips, s, n, xasprintf("ip-%zu", r->ips.n + 1));
	buf_puts(out, a);
}

/* The longest known host name that starts at s and ends at a label
 * boundary; its length, 0 if none. */
static size_t match_host(const struct redact *r, const char *s, const char **alias)
{
	size_t full = 0;
	while (host_char(s[full]) || s[full] == '.')
		full++;
	for (size_t end = full < r->maxhost ? full : r->maxhost; end > 0; end--) {
		if (end != full && s[end] != '.')
			continue;
		const char *a = amap_get(&r->hosts, s, end);
		if (a) {
			*alias = a;
			return end;
		}
	}
	return 0;
}

static size_t digits_at(const char *s)
{
	size_t n = 0;
	while (isdigit((unsigned char)s[n]))
		n++;
	return isalpha((unsigned char)s[n]) ? 0 : n;
}

/* After a host: ":PID:TID" (NCCL's prefix) or ".PID." (nccl.host.pid.log). */
static size_t host_pid_suffix(struct redact *r, const char *p, struct buf *out)
{
	size_t d;
	if (p[0] == ':' && (d = digits_at(p + 1)) > 0 && p[1 + d] == ':') {
		size_t t = digits_at(p + 2 + d);
		buf_putc(out, ':');
		buf_puts(out, pid_alias(r, p + 1, d));
		buf_putc(out, ':');
		if (t)
			buf_puts(out, pid_alias(r, p + 2 + d, t));
		return 2 + d + t;
	}
	if (p[0] == '.' && (d = digits_at(p + 1)) > 0 && p[1 + d] == '.') {
		buf_putc(out, '.');
		buf_puts(out, pid_alias(r, p + 1, d));
		return 1 + d;
	}
	return 0;
}

static const char *const user_roots[] = {"/home/", "/Users/", "/scratch/", "/srv/", "/data/", "/work/",
					 "/lustre/", "/gpfs/", "/fsx/", "/nfs/", "/mnt/", "/root/"};

static bool path_char(char c)
{
	return c && !isspace((unsigned char)c) && !strchr("\"'`<>|,;:()[]{}=", c);
}

/* A user path at s: writes its alias (directory aliased, file name kept). */
static size_t match_path(struct redact *r, const char *s, struct buf *out)
{
	size_t root = 0;
	for (size_t i = 0; i < ARRAY_LEN(user_roots) && !root; i++)
		if (str_starts(s, user_roots[i]) && path_char(s[strlen(user_roots[i])]))
			root = strlen(user_roots[i]);
	if (!root)
		return 0;
	size_t n = root;
	while (path_char(s[n]))
		n++;
	size_t dir = n;
	while (dir > 0 && s[dir - 1] != '/')
		dir--;
	/* keep the file name only when a directory below the root hides the user */
	size_t key = (dir > root && dir < n) ? dir - 1 : n;
	if (key == n)
		while (key > root && s[key - 1] == '/')
			key--;
	const char *a = amap_get(&r->paths, s, key);
	if (!a)
		a = amap_put(&r->paths, s, key, xasprintf("path-%zu", r->paths.n + 1));
	buf_puts(out, a);
	buf_append(out, s + key, n - key);
	return n;
}

/* "pid", "PID", "process" then separators and digits: the alias of the number. */
static size_t match_pid_word(struct redact *r, const char *s, struct buf *out)
{
	size_t w;
	if (strncasecmp(s, "pid", 3) == 0)
		w = 3;
	else if (strncasecmp(s, "process", 7) == 0)
		w = 7;
	else
		return 0;
	if (isalnum((unsigned char)s[w]) || s[w] == '_')
		return 0;
	size_t p = w;
	while (p < w + 4 && (s[p] == ' ' || s[p] == '=' || s[p] == ':' || s[p] == '"') && !(w == 7 && s[p] != ' '))
		p++;
	size_t d = p > w ? digits_at(s + p) : 0;
	if (!d)
		return 0;
	buf_append(out, s, p);
	buf_puts(out, pid_alias(r, s + p, d));
	return p + d;
}

/* glog prefix "I1129 23:55:53.298000 614 file.py:12]": the pid after the time. */
static size_t match_glog(struct redact *r, const char *s, struct buf *out)
{
	if (!strchr("IWEF", s[0]) || s[0] == '\0')
		return 0;
	size_t p = 1;
	for (int i = 0; i < 4; i++)
		if (!isdigit((unsigned char)s[p++]))
			return 0;
	if (s[p++] != ' ')
		return 0;
	static const char shape[] = "dd:dd:dd.";
	for (size_t i = 0; shape[i]; i++, p++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[p]) : s[p] != shape[i])
			return 0;
	while (isdigit((unsigned char)s[p]))
		p++;
	size_t sp = p;
	while (s[p] == ' ')
		p++;
	size_t d = p > sp ? digits_at(s + p) : 0;
	if (!d || s[p + d] != ' ')
		return 0;
	buf_append(out, s, p);
	buf_puts(out, pid_alias(r, s + p, d));
	return p + d;
}

char *redact_text(struct redact *r, const char *s)
{
	if (!s)
		return NULL;
	struct buf out = {0};
	buf_reserve(&out, strlen(s) + 16);
	size_t i = 0;
	while (s[i]) {
		const char *p = s + i;
		char prev = i ? s[i - 1] : ' ';
		bool word_start = !host_char(prev);
		size_t n = 0;
		if (word_start && prev != '.' && isdigit((unsigned char)*p) && (n = match_ipv4(p))) {
			put_ip(r, &out, p, n);
		} else if (word_start && prev != '.' && (isxdigit((unsigned char)*p) || (p[0] == ':' && p[1] == ':')) &&
			   (n = match_ipv6(p))) {
			put_ip(r, &out, p, n);
		} else if (*p == '/' && !host_char(prev) && prev != '.' && prev != '/' && (n = match_path(r, p, &out))) {
			/* written by match_path */
		} else if (word_start && (n = match_pid_word(r, p, &out))) {
			/* written */
		} else if (word_start && (n = match_glog(r, p, &out))) {
			/* written */
		} else if (word_start && host_char(*p) && r->maxhost) {
			const char *alias = NULL;
			if ((n = match_host(r, p, &alias))) {
				buf_puts(&out, alias);
				n += host_pid_suffix(r, p + n, &out);
			}
		}
		if (!n) {
			buf_putc(&out, *p);
			n = 1;
		}
		i += n;
	}
	return out.data ? out.data : xstrdup("");
}
