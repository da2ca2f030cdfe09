/* atomic_file.c: see atomic_file.h. */
#include "atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_MARK ".tmp-"

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Whether a directory entry is a temporary file of this module: ".NAME"
 * TMP_MARK and the six characters mkstemp chose. */
static bool is_tmp_name(const char *name)
{
	size_t n = strlen(name), m = strlen(TMP_MARK);
	return name[0] == '.' && n > 1 + m + 6 && memcmp(name + n - 6 - m, TMP_MARK, m) == 0;
}

/* Only what a case writer leaves is swept (another program may name its
 * temporary files alike): an empty file or an SQLite database. */
static bool is_case_or_empty(int fd, const struct stat *st)
{
	char head[16];
	return st->st_size == 0 || (pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
				    memcmp(head, "SQLite format 3", 16) == 0);
}

int atomic_file_sweep(const char *target)
{
	char *dir = dir_of(target);
	DIR *d = opendir(dir);
	int removed = 0;
	if (!d) {
		free(dir);
		return 0;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!is_tmp_name(de->d_name))
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		struct stat st;
		/* only this user's regular files, and only when no writer holds
		 * the lock: a running writer's file is never touched */
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0 && is_case_or_empty(fd, &st)) {
			if (unlink(path) == 0) {
				removed++;
				diag_warn("%s: removed a temporary file left by a writer that was killed", path);
			}
		}
		if (fd >= 0)
			close(fd);
		free(path);
	}
	closedir(d);
	free(dir);
	return removed;
}

int atomic_file_begin(struct atomic_file *af, const char *target, const char *what, struct errbuf *err)
{
	memset(af, 0, sizeof(*af));
	af->fd = -1;
	atomic_file_sweep(target);
	char *dir = dir_of(target);
	char *tmpl = xasprintf("%s/.%s" TMP_MARK "XXXXXX", dir, base_of(target));
	int fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int rc = errbuf_set(err, "cannot write %s in %s: %s", what, dir, strerror(errno));
		if (fd >= 0) {
			unlink(tmpl);
			close(fd);
		}
		free(dir);
		free(tmpl);
		return rc;
	}
	free(dir);
	af->target = xstrdup(target);
	af->tmp = tmpl;
	af->fd = fd;
	return 0;
}

void atomic_file_default_mode(struct atomic_file *af)
{
	mode_t mask = umask(077);
	umask(mask);
	if (fchmod(af->fd, 0666 & ~mask) != 0) {
		/* stays 0600: more private than asked, never less */
	}
}

/* fsync of the directory, so that the rename itself survives a power cut */
static int sync_dir(const char *target)
{
	char *dir = dir_of(target);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

int atomic_file_commit(struct atomic_file *af, struct errbuf *err)
{
	if (fsync(af->fd) != 0) {
		int rc = errbuf_set(err, "cannot write %s: %s", af->target, strerror(errno));
		atomic_file_abort(af);
		return rc;
	}
	if (rename(af->tmp, af->target) != 0) {
		int rc = errbuf_set(err, "cannot rename the temporary file to %s: %s", af->target, strerror(errno));
		atomic_file_abort(af);
		return rc;
	}
	/* a file system that cannot sync a directory (some network ones) still
	 * has the rename: not an error */
	sync_dir(af->target);
	close(af->fd);
	free(af->tmp);
	free(af->target);
	memset(af, 0, sizeof(*af));
	af->fd = -1;
	return 0;
}

void atomic_file_abort(struct atomic_file *af)
{
	if (af->tmp)
		unlink(af->tmp);
	if (af->fd >= 0)
		close(af->fd);
	free(af->tmp);
	free(af->target);
	memset(af, 0, sizeof(*af));
	af->fd = -1;
}
