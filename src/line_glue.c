/* line_glue.c: lines glued together by two streams sharing one file (see
 * line_glue.h). */
#include "line_glue.h"

#include <string.h>

/* Whether cut is whole with a piece of its middle (or start) missing:
 * whole's first k bytes, then whole's last len - k. */
static bool cut_from(const char *cut, size_t len, const char *whole, size_t wlen)
{
	if (len >= wlen)
		return false;
	for (size_t k = 0; k <= len; k++)
		if (memcmp(cut, whole, k) == 0 && memcmp(cut + k, whole + wlen - (len - k), len - k) == 0)
			return true;
	return false;
}

const char *glue_note_host(struct line_glue *g, const char *host, size_t *len, long pid, long tid)
{
	size_t n = *len;
	if (!n || n >= sizeof(g->hosts[0]))
		return NULL;
	/* the same process's thread as the line before, under its known name: nothing new */
	if (pid >= 0 && pid == g->last_pid && tid == g->last_tid && g->last_host >= 0 && g->last_host < g->nhosts &&
	    g->host_len[g->last_host] == n && memcmp(g->hosts[g->last_host], host, n) == 0) {
		g->host_lines[g->last_host]++;
		return NULL;
	}
	int known = -1;
	for (int i = 0; i < g->nhosts && known < 0; i++)
		if (g->host_len[i] == n && memcmp(g->hosts[i], host, n) == 0)
			known = i;
	if (known < 0 && pid >= 0)
		for (int t = 0; t < g->nthreads; t++) {
			int h = g->host_of[t];
			if (g->pid[t] == pid && g->tid[t] == tid && g->host_lines[h] >= GLUE_HOST_ESTABLISHED &&
			    cut_from(host, n, g->hosts[h], g->host_len[h])) {
				*len = g->host_len[h];
				return g->hosts[h];
			}
		}
	if (known < 0) {
		/* a new host takes a free slot, else the least seen one's */
		if (g->nhosts < GLUE_HOSTS) {
			known = g->nhosts++;
		} else {
			known = 0;
			for (int i = 1; i < GLUE_HOSTS; i++)
				if (g->host_lines[i] < g->host_lines[known])
					known = i;
		}
		for (int t = 0; t < g->nthreads; t++)
			if (g->host_of[t] == known)
				g->pid[t] = -1; /* the evicted host's threads */
		memcpy(g->hosts[known], host, n);
		g->host_len[known] = n;
		g->host_lines[known] = 0;
	}
	g->host_lines[known]++;
	if (pid < 0)
		return NULL;
	g->last_pid = pid;
	g->last_tid = tid;
	g->last_host = known;
	for (int t = 0; t < g->nthreads; t++)
		if (g->pid[t] == pid && g->tid[t] == tid) {
			g->host_of[t] = (unsigned char)known;
			return NULL;
		}
	int t = g->next_thread;
	g->next_thread = (g->next_thread + 1) % GLUE_THREADS;
	if (g->nthreads < GLUE_THREADS)
		g->nthreads++;
	g->pid[t] = pid;
	g->tid[t] = tid;
	g->host_of[t] = (unsigned char)known;
	return NULL;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* What nccl-tests prints in a row: digits, letters, signs, points, blanks. */
static bool fragment_like(const char *s, size_t n)
{
	bool digit = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (is_digit(c))
			digit = true;
		else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == ' ' || c == '\t' || c == '.' ||
			   c == '-' || c == '+' || c == '/' || c == '_'))
			return false;
	}
	return digit;
}

size_t glue_nccl_at(const struct line_glue *g, const char *line, size_t len)
{
	if (!g->nhosts || !len)
		return 0;
	if (!memchr(line, ']', len < GLUE_FRAGMENT_MAX + 64 ? len : GLUE_FRAGMENT_MAX + 64))
		return 0;
	const char *p = line;
	const char *end = line + len;
	while ((p = memmem(p, (size_t)(end - p), "] NCCL ", 7)) != NULL) {
		/* walk back over "host:pid:tid [dev": the device, a blank, the tid, ':', the pid, ':' */
		const char *q = p - 1;
		while (q > line && is_digit(*q))
			q--;
		if (q >= line + 2 && *q == '[' && q[-1] == ' ') {
			q -= 2;
			const char *t = q;
			while (q > line && is_digit(*q))
				q--;
			if (q < t && q > line && *q == ':') {
				t = --q;
				while (q > line && is_digit(*q))
					q--;
				if (q < t && q >= line && *q == ':') {
					size_t host_end = (size_t)(q - line);
					for (int i = 0; i < g->nhosts; i++) {
						size_t h = g->host_len[i];
						if (h > host_end)
							continue;
						size_t k = host_end - h;
						if (k == 0)
							return 0; /* an NCCL line from its first byte */
						if (k < GLUE_FRAGMENT_MAX && memcmp(line + k, g->hosts[i], h) == 0 &&
						    fragment_like(line, k))
							return k;
					}
				}
			}
		}
		p += 7;
	}
	return 0;
}

void glue_keep(struct line_glue *g, const char *s, size_t n)
{
	if (g->frag_len + n >= sizeof(g->frag)) {
		g->frag_len = 0; /* not a row's pieces: too long */
		return;
	}
	memcpy(g->frag + g->frag_len, s, n);
	g->frag_len += n;
}

size_t glue_join(struct line_glue *g, const char *line, size_t len, char *out, size_t cap)
{
	size_t n = g->frag_len;
	g->frag_len = 0;
	if (!n || n + len >= cap || !fragment_like(line, len))
		return 0;
	memcpy(out, g->frag, n);
	memcpy(out + n, line, len);
	out[n + len] = '\0';
	return n + len;
}

/* A line glued to the text before it: no blank or wrapper between ("...kernels[rank1]"). */
static bool glued_to(char c)
{
	/* ']' ends a progress bar's "[25:06:58<7:15:54, 1.40s/it]" */
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == ']';
}

size_t glue_pytorch_at(const struct line_glue *g, const char *line, size_t len)
{
	/* an NCCL line, even one cut inside its header ("host:pid:41[rank0]:[E") */
	bool nccl = false;
	for (int i = 0; i < g->nhosts && !nccl; i++) {
		size_t h = g->host_len[i];
		nccl = len > h + 2 && memcmp(line, g->hosts[i], h) == 0 && line[h] == ':' && is_digit(line[h + 1]);
	}
	bool fabric = len > 10 && memcmp(line, "libfabric:", 10) == 0;
	const char *p = line + 1, *end = line + len;
	while (p < end && (p = memchr(p, '[', (size_t)(end - p))) != NULL) {
		if (end - p < 6 || memcmp(p + 1, "rank", 4) != 0) {
			p++;
			continue;
		}
		const char *q = p + 5;
		while (q < end && is_digit(*q))
			q++;
		/* after any other text (a print without its newline: "loading kernels[rank1]:[E829 ..."),
		 * only one of c10's headers: a level, then its date or a blank */
		if (glued_to(p[-1]) && q > p + 5 && end - q >= 5 && q[0] == ']' && q[1] == ':' && q[2] == '[' &&
		    (q[3] == 'E' || q[3] == 'W' || q[3] == 'I' || q[3] == 'F') && (nccl || fabric || is_digit(q[4]) || q[4] == ' '))
			return (size_t)(p - line);
		p += 5;
	}
	return 0;
}
