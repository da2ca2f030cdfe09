/* ingest_jobs.h: the load's ordered jobs. The walk of the input (one
 * thread: libarchive reads one stream) cuts the work into jobs, one per
 * member or per step between members (a container's row before and after
 * its members); a job is done by the walk thread itself or handed to one of
 * N worker threads; each job writes its output (the writer's operations,
 * see ingest.c) into a stream of byte chunks of its own; one writer thread
 * runs the jobs' outputs in the order the jobs were begun. So the case holds
 * the same rows, in the same order, whatever the number of workers, and
 * what a job says on stderr (diag_input, captured per job) comes out in
 * that order too.
 *
 * Memory stays bounded: the output a job has queued while older jobs are
 * still being written is capped in bytes (its thread waits; the oldest job's
 * never does), and so are the input bytes handed to workers and not yet
 * worked on (jobs_wait_input).
 *
 * Serial mode (NF_INGEST_SERIAL=1: the reference for tests): no thread at
 * all; a chunk runs as soon as it is full, a job is retired when it ends. */
#ifndef NF_INGEST_JOBS_H
#define NF_INGEST_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jobs;
struct job;

struct jobs_hooks {
	void *ctx;
	/* the writer: runs len bytes of a job's output (whole operations) */
	void (*run)(void *ctx, const unsigned char *data, size_t len);
	/* the writer: the job's output has all run (jobs retire in order);
	 * what it said on stderr has been printed */
	void (*retired)(void *ctx, void *job_data);
	/* a worker (or the walk thread when there is none): the job's work */
	void (*work)(void *ctx, struct job *j, void *job_data, int worker);
};

/* workers: threads for jobs_submit()ted work (0: the walk thread does it). */
struct jobs *jobs_start(const struct jobs_hooks *h, int workers, bool serial);
/* Waits for every job begun to be retired, stops the threads, frees it. */
void jobs_finish(struct jobs *js);

/* The walk thread: the next job in order. Its output is written by the
 * calling thread until jobs_end() or jobs_submit(). */
struct job *jobs_begin(struct jobs *js, void *job_data);
/* The calling thread's output to j is complete. */
void jobs_end(struct job *j);
/* Hands j to a worker (its work hook then writes its output and the job
 * ends when the hook returns); in_bytes: the input it holds, counted until
 * then (see jobs_wait_input). */
void jobs_submit(struct job *j, size_t in_bytes);
/* The walk thread: waits while more than the input cap is handed over and
 * not yet worked on. */
void jobs_wait_input(struct jobs *js);
/* Waits until every job begun so far is retired. */
void jobs_wait_all(struct jobs *js);

/* Room for n more bytes of j's output; job_wrote() says how many were used.
 * The pointer is valid until the next job_room(). */
unsigned char *job_room(struct job *j, size_t n);
void job_wrote(struct job *j, size_t n);
/* Bytes of room left after job_room() (at least the n asked for). */
size_t job_room_left(const struct job *j);
/* A job's place in the order the jobs were begun (the writer's order), from 1. */
uint64_t job_seq(const struct job *j);

/* The number of workers --jobs 0 means: the CPUs this process may run on
 * (its affinity mask and its cgroup's CPU quota), at least 1, at most 8. */
int jobs_default_workers(void);

#endif
