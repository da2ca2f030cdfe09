/* ingest_jobs.c: see ingest_jobs.h. */
#include "ingest_jobs.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* Output chunks: a job's first chunk starts small and grows up to
 * CHUNK_MAX (most members write far less than that); past it, full chunks
 * are queued for the writer. */
#define CHUNK_FIRST (64u << 10)
#define CHUNK_MAX (1u << 20)
/* The oldest job: at most this many chunks queued (the writer is behind). */
#define OLDEST_CHUNKS 8
/* Every other job: their queued output together, in bytes. */
#define QUEUED_MAX (16u << 20)
/* Input handed to workers and not yet worked on. */
#define INPUT_MAX (16u << 20)
#define SPARES_MAX 8

struct chunk {
	struct chunk *next;
	size_t len, cap;
	unsigned char data[];
};

struct job {
	struct jobs *js;
	struct job *next;         /* in the order begun */
	struct job *next_ready;   /* submitted, waiting for a worker */
	void *data;
	struct chunk *head, *tail; /* queued for the writer */
	int queued;               /* chunks queued */
	struct chunk *cur;        /* being filled */
	bool ended;
	size_t in_bytes;
	struct buf diag;          /* what it said on stderr */
	uint64_t seq;             /* its place in the order begun, from 1 */
};

struct jobs {
	struct jobs_hooks h;
	bool serial;
	int nworkers;
	pthread_t writer, *workers;
	pthread_mutex_t mu;
	pthread_cond_t cond;       /* any change: waiters check their condition */
	struct job *oldest, *newest;
	struct job *ready, *ready_tail;
	size_t queued_bytes;       /* chunks queued by jobs other than the oldest */
	size_t input_bytes;
	struct chunk *spare;
	int nspare;
	bool closing;
	size_t njobs;              /* begun and not retired */
	uint64_t begun;            /* jobs begun so far */
	size_t peak_queued, peak_input, peak_jobs; /* for NF_TIMINGS */
};

static struct chunk *chunk_new(size_t cap)
{
	struct chunk *c = xmalloc(sizeof(*c) + cap);
	c->next = NULL;
	c->len = 0;
	c->cap = cap;
	return c;
}

/* NF_TIMINGS=1 (ingest.c): the writer's CPU and the peaks of the queues */
static bool timings_on(void)
{
	const char *t = getenv("NF_TIMINGS");
	return t && *t && strcmp(t, "0") != 0;
}

/* ---- the writer ---- */

static void chunk_recycle(struct jobs *js, struct chunk *c)
{
	if (c->cap == CHUNK_MAX && js->nspare < SPARES_MAX) {
		c->next = js->spare;
		js->spare = c;
		js->nspare++;
		return;
	}
	free(c);
}

static void retire(struct jobs *js, struct job *j)
{
	if (j->diag.len) {
		fwrite(j->diag.data, 1, j->diag.len, stderr);
		fflush(stderr);
	}
	js->h.retired(js->h.ctx, j->data);
	buf_free(&j->diag);
}

static void *writer_main(void *arg)
{
	struct jobs *js = arg;
	pthread_mutex_lock(&js->mu);
	for (;;) {
		struct job *j = js->oldest;
		if (!j) {
			if (js->closing)
				break;
			pthread_cond_wait(&js->cond, &js->mu);
			continue;
		}
		if (j->head) {
			struct chunk *c = j->head;
			j->head = c->next;
			if (!j->head)
				j->tail = NULL;
			pthread_mutex_unlock(&js->mu);
			js->h.run(js->h.ctx, c->data, c->len);
			pthread_mutex_lock(&js->mu);
			j->queued--;
			chunk_recycle(js, c);
			pthread_cond_broadcast(&js->cond);
			continue;
		}
		if (j->ended) {
			/* retired before it leaves the list: jobs_wait_all() returns
			 * once every retired hook has run */
			pthread_mutex_unlock(&js->mu);
			retire(js, j);
			pthread_mutex_lock(&js->mu);
			js->oldest = j->next;
			if (!js->oldest)
				js->newest = NULL;
			/* the new oldest's queue no longer counts against the cap */
			for (struct chunk *c = js->oldest ? js->oldest->head : NULL; c; c = c->next)
				js->queued_bytes -= c->cap;
			free(j);
			js->njobs--;
			pthread_cond_broadcast(&js->cond);
			continue;
		}
		pthread_cond_wait(&js->cond, &js->mu);
	}
	pthread_mutex_unlock(&js->mu);
	if (timings_on()) {
		struct timespec ts;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		fprintf(stderr, "timing: the writer thread: %.3f s cpu\n", (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
	}
	return NULL;
}

/* ---- producing a job's output ---- */

/* Queues j's current chunk (waiting while the caps say so). */
static void job_push(struct job *j)
{
	struct jobs *js = j->js;
	struct chunk *c = j->cur;
	j->cur = NULL;
	if (!c)
		return;
	if (!c->len) {
		free(c);
		return;
	}
	if (js->serial) {
		js->h.run(js->h.ctx, c->data, c->len);
		free(c);
		return;
	}
	pthread_mutex_lock(&js->mu);
	for (;;) {
		if (js->oldest == j ? j->queued < OLDEST_CHUNKS : js->queued_bytes < QUEUED_MAX)
			break;
		pthread_cond_wait(&js->cond, &js->mu);
	}
	if (js->oldest != j)
		js->queued_bytes += c->cap;
	if (js->queued_bytes > js->peak_queued)
		js->peak_queued = js->queued_bytes;
	if (j->tail)
		j->tail->next = c;
	else
		j->head = c;
	j->tail = c;
	j->queued++;
	pthread_cond_broadcast(&js->cond);
	pthread_mutex_unlock(&js->mu);
}

static struct chunk *chunk_spare(struct jobs *js, size_t need)
{
	struct chunk *c = NULL;
	if (need <= CHUNK_MAX && !js->serial) {
		pthread_mutex_lock(&js->mu);
		if (js->spare) {
			c = js->spare;
			js->spare = c->next;
			js->nspare--;
		}
		pthread_mutex_unlock(&js->mu);
	}
	if (c) {
		c->next = NULL;
		c->len = 0;
		return c;
	}
	return chunk_new(need > CHUNK_MAX ? need : CHUNK_MAX);
}

unsigned char *job_room(struct job *j, size_t n)
{
	struct chunk *c = j->cur;
	if (c && c->cap - c->len >= n)
		return c->data + c->len;
	if (c && c->cap < CHUNK_MAX) {
		/* the first chunk grows while it is small */
		size_t cap = c->cap;
		while (cap - c->len < n && cap < CHUNK_MAX)
			cap *= 2;
		if (cap - c->len < n)
			cap = c->len + n;
		c = xrealloc(c, sizeof(*c) + cap);
		c->cap = cap;
		j->cur = c;
		return c->data + c->len;
	}
	if (c) {
		job_push(j);
		c = chunk_spare(j->js, n);
	} else {
		c = chunk_new(n > CHUNK_FIRST ? n : CHUNK_FIRST);
	}
	j->cur = c;
	return c->data;
}

void job_wrote(struct job *j, size_t n)
{
	j->cur->len += n;
}

uint64_t job_seq(const struct job *j)
{
	return j->seq;
}

size_t job_room_left(const struct job *j)
{
	return j->cur->cap - j->cur->len;
}

/* ---- jobs ---- */

struct job *jobs_begin(struct jobs *js, void *job_data)
{
	struct job *j = xcalloc(1, sizeof(*j));
	j->js = js;
	j->data = job_data;
	j->seq = ++js->begun; /* only the walk thread begins jobs */
	if (js->serial) {
		js->oldest = js->newest = j;
	} else {
		pthread_mutex_lock(&js->mu);
		if (js->newest)
			js->newest->next = j;
		else
			js->oldest = j;
		js->newest = j;
		if (++js->njobs > js->peak_jobs)
			js->peak_jobs = js->njobs;
		pthread_mutex_unlock(&js->mu);
	}
	diag_capture(&j->diag);
	return j;
}

void jobs_end(struct job *j)
{
	struct jobs *js = j->js;
	diag_capture(NULL);
	job_push(j);
	if (js->serial) {
		js->oldest = js->newest = NULL;
		retire(js, j);
		free(j);
		return;
	}
	pthread_mutex_lock(&js->mu);
	j->ended = true;
	pthread_cond_broadcast(&js->cond);
	pthread_mutex_unlock(&js->mu);
}

static void work(struct jobs *js, struct job *j, int worker)
{
	diag_capture(&j->diag);
	js->h.work(js->h.ctx, j, j->data, worker);
	jobs_end(j);
}

void jobs_submit(struct job *j, size_t in_bytes)
{
	struct jobs *js = j->js;
	diag_capture(NULL);
	if (!js->nworkers) {
		work(js, j, 0);
		return;
	}
	j->in_bytes = in_bytes;
	pthread_mutex_lock(&js->mu);
	js->input_bytes += in_bytes;
	if (js->input_bytes > js->peak_input)
		js->peak_input = js->input_bytes;
	if (js->ready_tail)
		js->ready_tail->next_ready = j;
	else
		js->ready = j;
	js->ready_tail = j;
	pthread_cond_broadcast(&js->cond);
	pthread_mutex_unlock(&js->mu);
}

struct worker_arg {
	struct jobs *js;
	int id;
};

static void *worker_main(void *arg)
{
	struct worker_arg *wa = arg;
	struct jobs *js = wa->js;
	int id = wa->id;
	free(wa);
	pthread_mutex_lock(&js->mu);
	for (;;) {
		struct job *j = js->ready;
		if (!j) {
			if (js->closing)
				break;
			pthread_cond_wait(&js->cond, &js->mu);
			continue;
		}
		js->ready = j->next_ready;
		if (!js->ready)
			js->ready_tail = NULL;
		pthread_mutex_unlock(&js->mu);
		size_t in_bytes = j->in_bytes;
		work(js, j, id);
		pthread_mutex_lock(&js->mu);
		js->input_bytes -= in_bytes;
		pthread_cond_broadcast(&js->cond);
	}
	pthread_mutex_unlock(&js->mu);
	return NULL;
}

void jobs_wait_input(struct jobs *js)
{
	if (js->serial || !js->nworkers)
		return;
	pthread_mutex_lock(&js->mu);
	while (js->input_bytes > INPUT_MAX)
		pthread_cond_wait(&js->cond, &js->mu);
	pthread_mutex_unlock(&js->mu);
}

void jobs_wait_all(struct jobs *js)
{
	if (js->serial)
		return;
	pthread_mutex_lock(&js->mu);
	while (js->oldest)
		pthread_cond_wait(&js->cond, &js->mu);
	pthread_mutex_unlock(&js->mu);
}

struct jobs *jobs_start(const struct jobs_hooks *h, int workers, bool serial)
{
	struct jobs *js = xcalloc(1, sizeof(*js));
	js->h = *h;
	js->serial = serial;
	js->nworkers = serial ? 0 : workers;
	if (serial)
		return js;
	pthread_mutex_init(&js->mu, NULL);
	pthread_cond_init(&js->cond, NULL);
	if (pthread_create(&js->writer, NULL, writer_main, js) != 0)
		die("cannot start the writer thread");
	js->workers = xcalloc((size_t)js->nworkers + 1, sizeof(*js->workers));
	for (int i = 0; i < js->nworkers; i++) {
		struct worker_arg *wa = xmalloc(sizeof(*wa));
		*wa = (struct worker_arg){js, i + 1};
		if (pthread_create(&js->workers[i], NULL, worker_main, wa) != 0)
			die("cannot start worker thread %d", i + 1);
	}
	return js;
}

void jobs_finish(struct jobs *js)
{
	if (!js->serial) {
		jobs_wait_all(js);
		pthread_mutex_lock(&js->mu);
		js->closing = true;
		pthread_cond_broadcast(&js->cond);
		pthread_mutex_unlock(&js->mu);
		pthread_join(js->writer, NULL);
		for (int i = 0; i < js->nworkers; i++)
			pthread_join(js->workers[i], NULL);
		if (timings_on())
			fprintf(stderr, "timing: %d workers; at most %zu MiB of output queued, %zu MiB of input, %zu jobs\n",
				js->nworkers, js->peak_queued >> 20, js->peak_input >> 20, js->peak_jobs);
		pthread_mutex_destroy(&js->mu);
		pthread_cond_destroy(&js->cond);
	}
	for (struct chunk *c = js->spare, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(js->workers);
	free(js);
}

/* More workers than this wait on the one writer: on a 16-core machine the
 * 1,024-rank job loaded in 3.3 s with 8 and 4.1 s with 16, and 16 held
 * 157 MB against 130 (BENCHMARKS.md). --jobs N goes past it. */
#define JOBS_DEFAULT_MAX 8

/* The CPUs the process may use: its affinity mask, then its cgroup's
 * quota (cgroup v2's cpu.max: "QUOTA PERIOD", or "max"), at most
 * JOBS_DEFAULT_MAX. */

int jobs_default_workers(void)
{
	int n = 0;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	if (n <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		n = c > 0 ? (int)c : 1;
	}
	FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
	if (f) {
		char quota[32] = "";
		long period = 0;
		if (fscanf(f, "%31s %ld", quota, &period) == 2 && strcmp(quota, "max") != 0 && period > 0) {
			long q = strtol(quota, NULL, 10);
			int byq = (int)((q + period - 1) / period);
			if (byq > 0 && byq < n)
				n = byq;
		}
		fclose(f);
	}
	if (n > JOBS_DEFAULT_MAX)
		n = JOBS_DEFAULT_MAX;
	return n > 0 ? n : 1;
}
