/* line_prefix.c: wrappers, headers and clocks of log lines; see line_prefix.h.
 * Hand-written scanners (no regex): this runs on every input line. */
#include "line_prefix.h"
#include "util.h"

#include <string.h>
#include <stddef.h>

static const char *const family_names[FAM_COUNT] = {
	"plain", "nccl", "c10", "glog", "pylog", "kernel",
};

const char *family_name(enum line_family f)
{
	return (unsigned)f < FAM_COUNT ? family_names[f] : "plain";
}

int family_from_name(const char *name)
{
	for (int i = 0; i < FAM_COUNT; i++)
		if (strcmp(name, family_names[i]) == 0)
			return i;
	return -1;
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Reads exactly n digits at s (bounded by end); -1 if not all digits. */
static int digits_n(const char *s, const char *end, int n)
{
	if (end - s < n)
		return -1;
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Reads 1..maxd digits; returns count read (0 if none), value in *v. */
static int digits_upto(const char *s, const char *end, int maxd, long *v)
{
	int n = 0;
	long x = 0;
	while (s + n < end && n < maxd && is_digit(s[n])) {
		x = x * 10 + (s[n] - '0');
		n++;
	}
	*v = x;
	return n;
}

/* Fraction digits after a '.' or ',' scaled to microseconds; returns count. */
static int fraction_us(const char *s, const char *end, long *usec)
{
	int n = 0;
	long us = 0, scale = 100000;
	while (s + n < end && is_digit(s[n])) {
		if (scale > 0) {
			us += (s[n] - '0') * scale;
			scale /= 10;
		}
		n++;
	}
	*usec = us;
	return n;
}

/* "HH:MM:SS" at s; returns 8 or 0. */
static int hms(const char *s, const char *end, struct line_parts *p)
{
	int h = digits_n(s, end, 2);
	if (h < 0 || end - s < 8 || s[2] != ':' || s[5] != ':')
		return 0;
	int mi = digits_n(s + 3, end, 2), sec = digits_n(s + 6, end, 2);
	if (mi < 0 || sec < 0 || h > 23 || mi > 59 || sec > 60)
		return 0;
	p->hour = h;
	p->min = mi;
	p->sec = sec;
	return 8;
}

/* "YYYY-MM-DD" at s; returns 10 or 0. */
static int ymd(const char *s, const char *end, struct line_parts *p)
{
	int y = digits_n(s, end, 4);
	if (y < 0 || end - s < 10 || s[4] != '-' || s[7] != '-')
		return 0;
	int mo = digits_n(s + 5, end, 2), d = digits_n(s + 8, end, 2);
	if (mo < 1 || mo > 12 || d < 1 || d > 31)
		return 0;
	p->year = y;
	p->mon = mo;
	p->day = d;
	return 10;
}

static void set_msg(struct line_parts *p, const char *s, const char *end)
{
	p->msg = s;
	p->msg_len = (size_t)(end - s);
}

static const char *skip_spaces(const char *s, const char *end)
{
	while (s < end && *s == ' ')
		s++;
	return s;
}

/* Level letter + date + space + HH:MM:SS(.frac); returns chars used or 0.
 * The date is MMDD (glog, torchrun), MDD (c10 prints the month unpadded:
 * "E219" is February 19) or YYYYMMDD (glog with the year). */
static int glog_stamp(const char *s, const char *end, struct line_parts *p)
{
	if (end - s < 14 || !strchr("IWEF", s[0]) || s[0] == '\0')
		return 0;
	int nd = 0;
	while (s + 1 + nd < end && nd < 9 && is_digit(s[1 + nd]))
		nd++;
	if (s + 1 + nd >= end || s[1 + nd] != ' ')
		return 0;
	int year = -1, mo, d;
	if (nd == 8) {
		year = digits_n(s + 1, end, 4);
		mo = digits_n(s + 5, end, 2);
		d = digits_n(s + 7, end, 2);
	} else if (nd == 4 || nd == 3) {
		mo = digits_n(s + 1, end, nd - 2);
		d = digits_n(s + 1 + nd - 2, end, 2);
	} else {
		return 0;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31)
		return 0;
	const char *t = s + 1 + nd + 1;
	if (!hms(t, end, p))
		return 0;
	const char *q = t + 8;
	p->usec = 0;
	if (q < end && q[0] == '.')
		q += 1 + fraction_us(q + 1, end, &p->usec);
	p->level = s[0];
	p->mon = mo;
	p->day = d;
	p->year = year;
	p->clock = year > 0 ? CLOCK_FULL : CLOCK_NOYEAR;
	return (int)(q - s);
}

/* [E1129 23:50:42.457198170 ProcessGroupNCCL.cpp:689] msg  or  [E ProcessGroupNCCL.cpp:475] msg */
static bool parse_c10(const char *s, const char *end, struct line_parts *p)
{
	const char *q = s + 1;
	int n = glog_stamp(q, end, p);
	if (n) {
		q += n;
	} else if (q + 2 < end && strchr("IWEF", q[0]) && q[0] && q[1] == ' ') {
		p->level = q[0];
		q += 1;
	} else {
		return false;
	}
	if (q >= end || *q != ' ')
		goto fail;
	q++;
	const char *src = q;
	while (q < end && *q != ']' && *q != ' ')
		q++;
	if (q >= end || *q != ']' || q == src)
		goto fail;
	p->src = src;
	p->src_len = (size_t)(q - src);
	q++;
	if (q < end && *q == ' ')
		q++;
	p->family = FAM_C10;
	set_msg(p, q, end);
	return true;
fail:
	p->clock = CLOCK_NONE;
	p->level = 0;
	return false;
}

/* "file.cpp:123" and the like */
static bool is_cxx_source(const char *src, size_t n)
{
	const char *colon = memchr(src, ':', n);
	size_t len = colon ? (size_t)(colon - src) : n;
	static const char *const exts[] = {".cpp", ".cc", ".cxx", ".hpp", ".h", ".cu"};
	for (size_t i = 0; i < ARRAY_LEN(exts); i++) {
		size_t el = strlen(exts[i]);
		if (len > el && memcmp(src + len - el, exts[i], el) == 0)
			return true;
	}
	return false;
}

/* I1129 23:47:28.713000 604 torch/distributed/launcher/api.py:224] msg */
static bool parse_glog(const char *s, const char *end, struct line_parts *p)
{
	int n = glog_stamp(s, end, p);
	if (!n)
		return false;
	const char *q = s + n;
	if (q >= end || *q != ' ')
		goto fail;
	q = skip_spaces(q, end);
	long pid;
	int nd = digits_upto(q, end, 18, &pid); /* a pid, or glog's long thread id */
	if (!nd || q + nd >= end || q[nd] != ' ')
		goto fail;
	q += nd + 1;
	const char *src = q;
	while (q < end && *q != ']' && *q != ' ')
		q++;
	if (q >= end || *q != ']')
		goto fail;
	p->pid = pid;
	p->src = src;
	p->src_len = (size_t)(q - src);
	q++;
	if (q < end && *q == ' ')
		q++;
	/* PyTorch's C++ side logs through glog in some builds: same messages as c10 */
	p->family = is_cxx_source(src, p->src_len) ? FAM_C10 : FAM_GLOG;
	set_msg(p, q, end);
	return true;
fail:
	p->clock = CLOCK_NONE;
	p->level = 0;
	return false;
}

static bool is_host_char(char c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '_' || c == '.';
}

/* host:pid:tid [dev] [src ]NCCL LEVEL msg at s. */
/* "INFO" / "WARN" / ... at lv: its level letter and length, or 0. */
static size_t nccl_level(const char *lv, const char *end, char *level)
{
	static const struct {
		const char *word;
		char level;
	} levels[] = {{"INFO", 'I'}, {"WARN", 'W'}, {"TRACE", 'T'}, {"ERROR", 'E'}, {"ABORT", 'E'}};
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		size_t n = strlen(levels[i].word);
		if ((size_t)(end - lv) >= n && memcmp(lv, levels[i].word, n) == 0) {
			*level = levels[i].level;
			return n;
		}
	}
	return 0;
}

/* An NCCL line whose "host:pid:tid [dev] " a paste left out: "NCCL INFO
 * ...", "file.cc:1302 NCCL WARN ...", "func:1411 NCCL WARN ...". No host,
 * pid or device. */
static bool parse_nccl_bare(const char *s, const char *end, struct line_parts *p)
{
	const char *q = s, *src = NULL, *src_end = NULL;
	long dev = -1;
	if (q < end && *q == '[') { /* "[0] misc/socket.cc:71 NCCL WARN ...": the device kept */
		int n = digits_upto(q + 1, end, 4, &dev);
		if (!n || q + 1 + n + 1 >= end || q[1 + n] != ']' || q[2 + n] != ' ')
			return false;
		q += n + 3;
	}
	if (!((size_t)(end - q) >= 5 && memcmp(q, "NCCL ", 5) == 0)) {
		/* one token "name:digits" first */
		const char *t = q;
		while (t < end && *t != ' ' && *t != ':')
			t++;
		if (t == q || t >= end || *t != ':')
			return false;
		long line;
		int n = digits_upto(t + 1, end, 6, &line);
		if (!n || t + 1 + n + 5 > end || memcmp(t + 1 + n, " NCCL ", 6) != 0)
			return false;
		src = q;
		src_end = t + 1 + n;
		q = src_end + 1;
	}
	char level;
	size_t lvlen = nccl_level(q + 5, end, &level);
	if (!lvlen)
		return false;
	p->family = FAM_NCCL;
	p->level = level;
	p->dev = (int)dev;
	if (src) {
		p->src = src;
		p->src_len = (size_t)(src_end - src);
	}
	q += 5 + lvlen;
	if (q < end && *q == ' ')
		q++;
	set_msg(p, q, end);
	return true;
}

static bool parse_nccl(const char *s, const char *end, struct line_parts *p)
{
	const char *q = s;
	while (q < end && is_host_char(*q))
		q++;
	if (q == s || q >= end || *q != ':')
		return false;
	const char *host_end = q;
	long pid, tid;
	int n = digits_upto(q + 1, end, 10, &pid);
	if (!n || q + 1 + n >= end || q[1 + n] != ':')
		return false;
	q += 1 + n + 1;
	n = digits_upto(q, end, 10, &tid);
	if (!n)
		return false;
	q += n;
	if (end - q < 4 || q[0] != ' ' || q[1] != '[')
		return false;
	long dev;
	n = digits_upto(q + 2, end, 4, &dev);
	if (!n || q + 2 + n >= end || q[2 + n] != ']')
		return false;
	q += 2 + n + 1;
	q = skip_spaces(q, end);
	/* optional "file.cc:line " (and a TRACE time) before "NCCL " */
	const char *nccl = NULL;
	size_t window = (size_t)(end - q) < 96 ? (size_t)(end - q) : 96;
	nccl = window >= 5 && memcmp(q, "NCCL ", 5) == 0 ? q : memmem(q, window, "NCCL ", 5);
	const char *lv;
	if (nccl) {
		lv = nccl + 5;
	} else {
		/* NCCL 2.3 and before: no "NCCL " ("host:pid:tid [0] init.cu:218 WARN Cuda failure ...") */
		const char *t = q;
		char lvc;
		if (!nccl_level(t, end, &lvc)) {
			while (t < end && *t != ' ')
				t++;
			if (t >= end || t == q || !memchr(q, ':', (size_t)(t - q)))
				return false;
			t++;
		}
		if (!nccl_level(t, end, &lvc))
			return false;
		nccl = t; /* where the level begins: the source ends before it */
		lv = t;
	}
	const char *src = q, *src_end = nccl;
	while (src_end > src && src_end[-1] == ' ')
		src_end--;
	char level;
	size_t lvlen;
	if (end - lv >= 4 && memcmp(lv, "INFO", 4) == 0) {
		level = 'I';
		lvlen = 4;
	} else if (end - lv >= 4 && memcmp(lv, "WARN", 4) == 0) {
		level = 'W';
		lvlen = 4;
	} else if (end - lv >= 5 && memcmp(lv, "TRACE", 5) == 0) {
		level = 'T';
		lvlen = 5;
	} else if (end - lv >= 5 && memcmp(lv, "ERROR", 5) == 0) {
		level = 'E';
		lvlen = 5;
	} else if (end - lv >= 5 && memcmp(lv, "ABORT", 5) == 0) {
		level = 'E';
		lvlen = 5;
	} else {
		return false;
	}
	p->family = FAM_NCCL;
	p->host = s;
	p->host_len = (size_t)(host_end - s);
	/* NCCL cuts gethostname() at the first dot */
	const char *dot = memchr(s, '.', p->host_len);
	if (dot)
		p->host_len = (size_t)(dot - s);
	p->pid = pid;
	p->tid = tid;
	p->dev = (int)dev;
	p->level = level;
	if (src_end > src) {
		p->src = src;
		p->src_len = (size_t)(src_end - src);
	}
	q = lv + lvlen;
	if (q < end && *q == ' ')
		q++;
	set_msg(p, q, end);
	return true;
}

/* After a kernel time stamp: "host kernel: msg", "host proc[pid]: msg" (syslog
 * and journald) or just "msg" (dmesg). Strips an inner "[ 123.456] ". */
static void kernel_rest(const char *q, const char *end, bool with_host, struct line_parts *p)
{
	q = skip_spaces(q, end);
	if (with_host) {
		const char *h = q;
		while (q < end && *q != ' ')
			q++;
		p->host = h;
		p->host_len = (size_t)(q - h);
		q = skip_spaces(q, end);
		const char *colon = memchr(q, ':', (size_t)(end - q));
		if (colon && colon + 1 <= end) {
			q = colon + 1;
			q = skip_spaces(q, end);
		}
	}
	if (q < end && *q == '[') {
		const char *r = q + 1;
		r = skip_spaces(r, end);
		long secs;
		int n = digits_upto(r, end, 10, &secs);
		if (n && r + n < end && r[n] == '.') {
			const char *close = memchr(r, ']', (size_t)(end - r));
			if (close && close - r < 24) {
				if (p->clock == CLOCK_NONE) {
					long us;
					fraction_us(r + n + 1, end, &us);
					p->boot_s = (double)secs + us / 1e6;
					p->clock = CLOCK_BOOT;
				}
				q = skip_spaces(close + 1, end);
			}
		}
	}
	p->family = FAM_KERNEL;
	set_msg(p, q, end);
}

/* [ 1234.567890] msg   or   [Sun Nov 29 23:50:12 2026] msg   (q at '[') */
static bool parse_dmesg(const char *s, const char *end, struct line_parts *p)
{
	const char *q = skip_spaces(s + 1, end);
	long secs;
	int n = digits_upto(q, end, 10, &secs);
	if (n && q + n < end && q[n] == '.') {
		long us;
		int f = fraction_us(q + n + 1, end, &us);
		const char *r = q + n + 1 + f;
		if (!f || r >= end || *r != ']')
			return false;
		p->clock = CLOCK_BOOT;
		p->boot_s = (double)secs + us / 1e6;
		kernel_rest(r + 1, end, false, p);
		return true;
	}
	/* [Sun Nov 29 23:50:12 2026] */
	if (end - s < 26 || !is_alpha(s[1]) || s[4] != ' ' || s[8] != ' ')
		return false;
	int mo = month_from_abbrev(s + 5);
	long day;
	const char *d = skip_spaces(s + 9, end);
	int nd = digits_upto(d, end, 2, &day);
	if (!mo || !nd || d + nd >= end || d[nd] != ' ')
		return false;
	if (!hms(d + nd + 1, end, p))
		return false;
	const char *y = d + nd + 1 + 8;
	int year = (y < end && *y == ' ') ? digits_n(y + 1, end, 4) : -1;
	if (year < 0 || y + 5 >= end || y[5] != ']')
		return false;
	p->year = year;
	p->mon = mo;
	p->day = (int)day;
	p->usec = 0;
	p->clock = CLOCK_FULL;
	kernel_rest(y + 6, end, false, p);
	return true;
}

/* Nov 29 23:50:12 host kernel: msg */
static bool parse_syslog(const char *s, const char *end, struct line_parts *p)
{
	if (end - s < 16 || s[3] != ' ')
		return false;
	int mo = month_from_abbrev(s);
	if (!mo)
		return false;
	const char *d = skip_spaces(s + 4, end);
	long day;
	int nd = digits_upto(d, end, 2, &day);
	if (!nd || d + nd >= end || d[nd] != ' ' || !hms(d + nd + 1, end, p))
		return false;
	const char *q = d + nd + 1 + 8;
	p->usec = 0;
	if (q < end && *q == '.')
		q += 1 + fraction_us(q + 1, end, &p->usec);
	if (q >= end || *q != ' ')
		return false;
	p->mon = mo;
	p->day = (int)day;
	p->clock = CLOCK_NOYEAR;
	kernel_rest(q, end, true, p);
	return true;
}

/* Lines starting with a date: Python logging or journald short-iso. */
static bool parse_dated(const char *s, const char *end, struct line_parts *p)
{
	if (!ymd(s, end, p))
		return false;
	const char *q = s + 10;
	if (q >= end || (*q != ' ' && *q != 'T') || !hms(q + 1, end, p))
		return false;
	bool iso_t = *q == 'T';
	q += 9;
	p->usec = 0;
	if (q < end && (*q == ',' || *q == '.'))
		q += 1 + fraction_us(q + 1, end, &p->usec);
	if (iso_t) {
		/* zone: Z, +0000, +00:00 (times are taken as written; see docs) */
		long off_h = 0, off_m = 0;
		int sign = 0;
		if (q < end && *q == 'Z') {
			q++;
		} else if (q < end && (*q == '+' || *q == '-')) {
			sign = *q == '-' ? -1 : 1;
			q++;
			q += digits_upto(q, end, 2, &off_h);
			if (q < end && *q == ':')
				q++;
			q += digits_upto(q, end, 2, &off_m);
		}
		p->clock = CLOCK_FULL;
		p->tz_offset_min = (int)((off_h * 60 + off_m) * sign);
		kernel_rest(q, end, true, p);
		return true;
	}
	p->clock = CLOCK_FULL;
	p->family = FAM_PYLOG;
	q = skip_spaces(q, end);
	/* the level word, when it is there */
	const char *w = q;
	while (q < end && *q >= 'A' && *q <= 'Z')
		q++;
	size_t wl = (size_t)(q - w);
	if (wl >= 4 && wl <= 8) {
		p->level = (wl == 8 && *w == 'C') ? 'F' : *w; /* DEBUG INFO WARNING ERROR CRITICAL */
		q = skip_spaces(q, end);
	} else {
		q = w;
	}
	set_msg(p, q, end);
	return true;
}

/* [2023-10-10 10:10:10,123] torch.distributed.run: [WARNING] msg  (older torchrun) */
static bool parse_bracket_pylog(const char *s, const char *end, struct line_parts *p)
{
	const char *q = s + 1;
	if (!ymd(q, end, p) || q + 10 >= end || q[10] != ' ' || !hms(q + 11, end, p))
		return false;
	q += 19;
	p->usec = 0;
	if (q < end && (*q == ',' || *q == '.'))
		q += 1 + fraction_us(q + 1, end, &p->usec);
	if (q >= end || *q != ']')
		return false;
	p->clock = CLOCK_FULL;
	q = skip_spaces(q + 1, end);
	/* NCCL WARN 2.26+: "[2026-11-29 23:56:54] host:pid:tid [dev] file:line NCCL WARN msg" */
	struct line_parts save = *p;
	if (parse_nccl(q, end, p))
		return true;
	*p = save;
	p->family = FAM_PYLOG;
	const char *lb = memchr(q, '[', (size_t)(end - q) < 80 ? (size_t)(end - q) : 80);
	if (lb && lb + 1 < end && lb[1] >= 'A' && lb[1] <= 'Z') {
		const char *rb = memchr(lb, ']', (size_t)(end - lb));
		if (rb && rb - lb <= 10) {
			p->level = lb[1] == 'C' ? 'F' : lb[1];
			q = skip_spaces(rb + 1, end);
		}
	}
	set_msg(p, q, end);
	return true;
}

bool line_has_srun_label(const char *line, size_t len)
{
	const char *s = line, *end = line + len;
	s = skip_spaces(s, end);
	long v;
	int n = digits_upto(s, end, 6, &v);
	return n && s + n + 1 < end && s[n] == ':' && s[n + 1] == ' ';
}

/* One wrapper "[<word><digits>]:" at s; returns its length or 0. */
static int wrapper(const char *s, const char *end, struct line_parts *p)
{
	if (s >= end || *s != '[')
		return 0;
	const char *q = s + 1, *word = q;
	while (q < end && (is_alpha(*q) || *q == '_'))
		q++;
	size_t wl = (size_t)(q - word);
	long num;
	int n = digits_upto(q, end, 7, &num);
	if (!wl || !n || q + n + 1 >= end + 0 || q + n + 1 > end)
		return 0;
	if (q[n] != ']' || q + n + 1 >= end || q[n + 1] != ':')
		return 0;
	/* [E1129 is a c10 header, not a wrapper: its word is one capital letter followed by 4 digits and a space */
	if (wl == 4 && memcmp(word, "rank", 4) == 0) {
		p->rank = (int)num;
		q += n + 2;
		if (q < end && *q == ' ')
			q++;
		return (int)(q - s);
	}
	if (p->local_rank < 0)
		p->local_rank = (int)num;
	return (int)(q + n + 2 - s);
}

/* A wrapper a launcher or runner puts before a worker's line: "stdout: " /
 * "stderr: " (accelerate's and other runners' copies of a subprocess's
 * streams), Ray's "(WorkerDict pid=231421) " and "(pid=4242, ip=10.0.0.3) "
 * (the worker's pid kept in p->wrapper_pid). Returns its length or 0. */
/* "2019-06-02T16:13:44.884Z: " (Open MPI --timestamp-output) or
 * "2024-01-01T10:00:00.123456789Z " (kubectl and docker logs --timestamps),
 * an offset instead of Z; into p->wrap_time. Returns its length or 0. */
static int iso_wrapper(const char *s, const char *end, struct line_parts *p)
{
	struct line_parts t;
	memset(&t, 0, sizeof(t));
	if (!ymd(s, end, &t) || end - s < 20 || s[10] != 'T' || !hms(s + 11, end, &t))
		return 0;
	const char *q = s + 19;
	long usec = 0;
	if (q < end && (*q == '.' || *q == ','))
		q += 1 + fraction_us(q + 1, end, &usec);
	int tz = 0;
	if (q < end && *q == 'Z') {
		q++;
	} else if (end - q >= 6 && (*q == '+' || *q == '-') && is_digit(q[1]) && is_digit(q[2]) && q[3] == ':') {
		int h = (q[1] - '0') * 10 + (q[2] - '0'), m = (q[4] - '0') * 10 + (q[5] - '0');
		tz = (*q == '-' ? -1 : 1) * (h * 60 + m);
		q += 6;
	} else {
		return 0;
	}
	bool colon = q < end && *q == ':';
	if (colon)
		q++;
	if (q >= end || *q != ' ')
		return 0;
	q++;
	if (!colon) {
		/* "2026-11-29T23:50:12Z host prog[pid]: msg" is syslog's own header (parse_dated) */
		const char *h = q;
		while (h < end && *h != ' ')
			h++;
		const char *w = h + 1;
		while (w < end && (is_alpha(*w) || is_digit(*w) || *w == '_' || *w == '-' || *w == '.' || *w == '/'))
			w++;
		if (w < end && *w == '[') {
			while (w < end && *w != ']')
				w++;
			if (w < end)
				w++;
		}
		if (h < end && w > h + 1 && w < end && *w == ':')
			return 0;
	}
	p->wrap_time.set = true;
	p->wrap_time.year = t.year;
	p->wrap_time.mon = t.mon;
	p->wrap_time.day = t.day;
	p->wrap_time.hour = t.hour;
	p->wrap_time.min = t.min;
	p->wrap_time.sec = t.sec;
	p->wrap_time.usec = usec;
	p->wrap_time.tz_offset_min = tz;
	return (int)(q - s);
}

/* Open MPI's --tag-output "[1,12]<stdout>:" (job, rank; stdout, stderr or
 * stddiag): the rank. Returns its length or 0. */
static int ompi_tag_wrapper(const char *s, const char *end, struct line_parts *p)
{
	if (s >= end || *s != '[')
		return 0;
	long job, rank;
	const char *q = s + 1;
	int n = digits_upto(q, end, 9, &job);
	if (!n || q + n >= end || q[n] != ',')
		return 0;
	q += n + 1;
	n = digits_upto(q, end, 9, &rank);
	if (!n || q + n >= end || q[n] != ']')
		return 0;
	q += n + 1;
	static const char *const streams[] = {"<stdout>:", "<stderr>:", "<stddiag>:"};
	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++) {
		size_t l = strlen(streams[i]);
		if ((size_t)(end - q) >= l && memcmp(q, streams[i], l) == 0) {
			p->rank = (int)rank;
			return (int)(q + l - s);
		}
	}
	return 0;
}

void line_parts_wrapper_time(struct line_parts *p)
{
	if (p->clock != CLOCK_NONE || !p->wrap_time.set)
		return;
	p->year = p->wrap_time.year;
	p->mon = p->wrap_time.mon;
	p->day = p->wrap_time.day;
	p->hour = p->wrap_time.hour;
	p->min = p->wrap_time.min;
	p->sec = p->wrap_time.sec;
	p->usec = p->wrap_time.usec;
	p->tz_offset_min = p->wrap_time.tz_offset_min;
	p->clock = CLOCK_FULL;
}

/* A collector's stamp to the minute before another header: " 2025-02-18
 * 12:54 [rank13]:[E218 ..." (no seconds: Python logging's own header has
 * them). Returns its length or 0. */
static int minute_wrapper(const char *s, const char *end)
{
	const char *q = s;
	while (q < end && *q == ' ')
		q++;
	struct line_parts t;
	memset(&t, 0, sizeof(t));
	if (!ymd(q, end, &t) || end - q < 17 || q[10] != ' ' || digits_n(q + 11, end, 2) < 0 || q[13] != ':' ||
	    digits_n(q + 14, end, 2) < 0 || q[16] != ' ')
		return 0;
	if (q + 17 < end && q[17] != '[' && !is_alpha(q[17]))
		return 0;
	return (int)(q + 17 - s);
}

/* vLLM's logging header: "ERROR 04-07 00:57:46 ray_utils.py:45] ". Returns its length or 0. */
static int vllm_header(const char *s, const char *end)
{
	static const char *const levels[] = {"DEBUG ", "INFO ", "WARNING ", "ERROR ", "CRITICAL "};
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		size_t l = strlen(levels[i]);
		if ((size_t)(end - s) < l + 16 || memcmp(s, levels[i], l) != 0)
			continue;
		const char *q = s + l;
		if (digits_n(q, end, 2) < 0 || q[2] != '-' || digits_n(q + 3, end, 2) < 0 || q[5] != ' ' ||
		    digits_n(q + 6, end, 2) < 0 || q[8] != ':' || q[14] != ' ')
			return 0;
		q += 15;
		const char *rb = memchr(q, ']', (size_t)(end - q) < 80 ? (size_t)(end - q) : 80);
		if (!rb || rb + 1 >= end || rb[1] != ' ' || !memchr(q, ':', (size_t)(rb - q)))
			return 0;
		return (int)(rb + 2 - s);
	}
	return 0;
}

static bool parse_nccl(const char *s, const char *end, struct line_parts *p);

/* pdsh's "host: " before each line of a remote command (the DeepSpeed
 * launcher's multi-node runs: "worker-1: [2024-05-06 ...] [INFO] ...",
 * "10.0.0.3: node3:4242:4242 [0] NCCL INFO ..."): a host name (a digit, a
 * dash or a dot in it; not an exception's type, "RuntimeError: ..."),
 * then a header the line parser knows. The host is kept. Returns the
 * wrapper's length or 0. */
static int pdsh_wrapper(const char *s, const char *end, struct line_parts *p)
{
	const char *q = s;
	bool mark = false, digits_only = true;
	while (q < end && q - s < 64 && (is_alpha(*q) || is_digit(*q) || *q == '-' || *q == '.' || *q == '_')) {
		mark |= is_digit(*q) || *q == '-' || *q == '.';
		digits_only &= is_digit(*q);
		q++;
	}
	/* all digits: srun's task label ("12: "), not a host */
	if (!mark || digits_only || q == s || end - q < 4 || q[0] != ':' || q[1] != ' ')
		return 0;
	static const char *const types[] = {"Error", "Exception", "Warning", "Interrupt", "Exit"};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t l = strlen(types[i]);
		if ((size_t)(q - s) >= l && memcmp(q - l, types[i], l) == 0)
			return 0;
	}
	const char *r = q + 2;
	struct line_parts t;
	memset(&t, 0, sizeof(t));
	if (*r != '[' && !parse_nccl(r, end, &t))
		return 0;
	p->wrapper_host = s;
	p->wrapper_host_len = (size_t)(q - s);
	return (int)(r - s);
}

static int outer_wrapper(const char *s, const char *end, struct line_parts *p, bool pdsh)
{
	size_t n = (size_t)(end - s);
	if (n < 8)
		return 0;
	/* by the first byte: most lines begin with none of them */
	int w = 0;
	switch (*s) {
	case ' ':
		return minute_wrapper(s, end);
	case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
		if ((w = iso_wrapper(s, end, p)) > 0 || (w = minute_wrapper(s, end)) > 0)
			return w;
		return pdsh ? pdsh_wrapper(s, end, p) : 0;
	case '[':
		return ompi_tag_wrapper(s, end, p);
	case 's':
		if (n > 8 && (memcmp(s, "stdout: ", 8) == 0 || memcmp(s, "stderr: ", 8) == 0))
			return 8;
		return pdsh ? pdsh_wrapper(s, end, p) : 0;
	case 'D': case 'I': case 'W': case 'E': case 'C':
		if ((w = vllm_header(s, end)) > 0)
			return w;
		return pdsh ? pdsh_wrapper(s, end, p) : 0;
	case '(':
		break;
	default:
		return pdsh && is_alpha(*s) ? pdsh_wrapper(s, end, p) : 0;
	}
	const char *q = s + 1;
	while (q < end && (is_alpha(*q) || is_digit(*q) || *q == '_' || *q == '.' || *q == ':' || *q == '-'))
		q++;
	if (q > s + 1) {
		if (q >= end || *q != ' ')
			return 0;
		q++;
	}
	if (end - q < 5 || memcmp(q, "pid=", 4) != 0)
		return 0;
	q += 4;
	long pid;
	int d = digits_upto(q, end, 9, &pid);
	if (!d)
		return 0;
	q += d;
	if (q < end && *q == ',') { /* ", ip=10.0.0.3" */
		while (q < end && *q != ')')
			q++;
	}
	if (q >= end || *q != ')')
		return 0;
	q++;
	if (q < end && *q == ' ')
		q++;
	p->wrapper_pid = pid;
	return (int)(q - s);
}

static void parse_parts(const char *line, size_t len, bool allow_srun, bool pdsh, struct line_parts *p)
{
	const char *s = line, *end = line + len;
	memset(p, 0, sizeof(*p));
	p->rank = p->local_rank = p->srun_task = -1;
	p->pid = p->tid = -1;
	p->dev = -1;
	p->year = -1;
	p->wrapper_pid = -1;
	p->wrapper_host = NULL;
	p->wrapper_host_len = 0;
	for (int i = 0; i < 4; i++) {
		int n = outer_wrapper(s, end, p, pdsh);
		if (!n)
			break;
		s += n;
	}

	if (allow_srun && line_has_srun_label(s, (size_t)(end - s))) {
		const char *q = skip_spaces(s, end);
		long v;
		int n = digits_upto(q, end, 6, &v);
		p->srun_task = (int)v;
		s = q + n + 2;
	}
	for (int i = 0; i < 4; i++) {
		int n = wrapper(s, end, p);
		if (!n)
			break;
		s += n;
	}
	p->body = s;
	p->body_len = (size_t)(end - s);
	p->family = FAM_PLAIN;
	set_msg(p, s, end);
	if (s >= end)
		return;

	char c = *s;
	if (c == '[') {
		if (s + 1 < end && (s[1] == ' ' || is_digit(s[1]))) {
			if (is_digit(s[1]) && parse_bracket_pylog(s, end, p))
				return;
			if (parse_dmesg(s, end, p))
				return;
		} else if (s + 1 < end && is_alpha(s[1])) {
			if (parse_c10(s, end, p))
				return;
			if (parse_dmesg(s, end, p))
				return;
		}
	} else if (c == '<' && s + 3 < end && is_digit(s[1]) && s[2] == '>') {
		/* <4>[ 123.456] kernel priority */
		if (s[3] == '[' && parse_dmesg(s + 3, end, p))
			return;
	} else if (is_digit(c)) {
		if (parse_dated(s, end, p))
			return;
	} else if (is_alpha(c)) {
		if (strchr("IWEF", c) && parse_glog(s, end, p))
			return;
		if (c >= 'A' && c <= 'S' && parse_syslog(s, end, p))
			return;
	}
	memset(&p->host, 0, sizeof(*p) - offsetof(struct line_parts, host));
	p->pid = p->tid = -1;
	p->dev = -1;
	p->year = -1;
	p->clock = CLOCK_NONE;
	p->body = s;
	p->body_len = (size_t)(end - s);
	if (parse_nccl(s, end, p))
		return;
	if (parse_nccl_bare(s, end, p))
		return;
	p->family = FAM_PLAIN;
	p->level = 0;
	set_msg(p, s, end);
}

void line_parts_parse(const char *line, size_t len, bool allow_srun, struct line_parts *p)
{
	parse_parts(line, len, allow_srun, false, p);
	/* pdsh's "host: " is looked for only where the line reads as plain text
	 * (what follows it is an NCCL or a bracketed line, which would have
	 * parsed): looking on every line cost 1% of an ingest */
	if (p->family == FAM_PLAIN && len > 4 && memmem(line, len < 80 ? len : 80, ": ", 2)) {
		struct line_parts t;
		parse_parts(line, len, allow_srun, true, &t);
		if (t.wrapper_host)
			*p = t;
	}
}

bool line_parts_time(const struct line_parts *p, int year_hint, int64_t boot_us, int64_t *t_us)
{
	switch (p->clock) {
	case CLOCK_FULL:
		*t_us = ts_from_parts(p->year, p->mon, p->day, p->hour, p->min, p->sec, p->usec) -
			(int64_t)p->tz_offset_min * 60000000;
		return true;
	case CLOCK_NOYEAR:
		if (year_hint <= 0)
			return false;
		*t_us = ts_from_parts(year_hint, p->mon, p->day, p->hour, p->min, p->sec, p->usec);
		return true;
	case CLOCK_BOOT:
		if (boot_us == INT64_MIN)
			return false;
		*t_us = boot_us + (int64_t)(p->boot_s * 1e6);
		return true;
	default:
		return false;
	}
}
