/* archive_walk.c: see archive_walk.h. Input kinds are a small table of
 * probe/walk pairs: directory, archive-or-compressed (libarchive), plain file. */
#include "archive_walk.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void walk_default_limits(struct walk_limits *lim)
{
	lim->max_total_bytes = (uint64_t)256 << 30; /* 256 GiB */
	lim->max_member_bytes = (uint64_t)64 << 30; /* 64 GiB */
	lim->max_ratio = 1000.0;
	lim->max_depth = 3;
}

long member_read(struct member_stream *ms, void *buf, size_t n)
{
	if (ms->peek_pos < ms->peek_len) {
		size_t k = ms->peek_len - ms->peek_pos;
		if (k > n)
			k = n;
		memcpy(buf, ms->peek + ms->peek_pos, k);
		ms->peek_pos += k;
		ms->bytes += k;
		return (long)k;
	}
	if (ms->eof)
		return ms->failed ? -1 : 0;
	long r = ms->read_impl(ms, buf, n);
	if (r <= 0) {
		ms->eof = true;
		ms->failed = r < 0;
		return r;
	}
	ms->bytes += (uint64_t)r;
	return r;
}

const unsigned char *member_peek(struct member_stream *ms, size_t *n)
{
	if (!ms->peeked) {
		ms->peeked = true;
		while (ms->peek_len < sizeof(ms->peek) && !ms->eof) {
			long r = ms->read_impl(ms, ms->peek + ms->peek_len, sizeof(ms->peek) - ms->peek_len);
			if (r <= 0) {
				/* a read error here is the member's, said once its
				 * peeked bytes are read (member_read returns -1) */
				ms->eof = true;
				ms->failed = r < 0;
				break;
			}
			ms->peek_len += (size_t)r;
		}
	}
	*n = ms->peek_len;
	return ms->peek;
}

static bool has_suffix_ci(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcasecmp(s + n - m, suf) == 0;
}

bool member_is_container(const char *name, const unsigned char *h, size_t n)
{
	/* decided by content (a name can lie, magic bytes rarely do), except
	 * for an empty tar: only zero blocks, known by its name */
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return true; /* gzip */
	if (n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd)
		return true; /* zstd */
	if (n >= 6 && memcmp(h, "\xfd" "7zXZ\0", 6) == 0)
		return true; /* xz */
	if (n >= 4 && memcmp(h, "BZh", 3) == 0 && h[3] >= '1' && h[3] <= '9')
		return true; /* bzip2 */
	if (n >= 4 && (memcmp(h, "PK\3\4", 4) == 0 || memcmp(h, "PK\5\6", 4) == 0))
		return true; /* zip (or an empty one) */
	if (n >= 262 && memcmp(h + 257, "ustar", 5) == 0)
		return true; /* tar */
	if (n >= 6 && memcmp(h, "7z\xbc\xaf\x27\x1c", 6) == 0)
		return true; /* 7z */
	if (n >= 6 && (memcmp(h, "070701", 6) == 0 || memcmp(h, "070702", 6) == 0 || memcmp(h, "070707", 6) == 0))
		return true; /* cpio (newc, crc, odc) */
	if (n >= 2 && ((h[0] == 0xc7 && h[1] == 0x71) || (h[0] == 0x71 && h[1] == 0xc7)))
		return true; /* binary cpio */
	if (n >= 512 && name && has_suffix_ci(name, ".tar")) {
		size_t i = 0;
		while (i < 512 && h[i] == 0)
			i++;
		return i == 512; /* an empty tar: its end-of-archive blocks */
	}
	return false;
}

/* ---- libarchive-backed members ---- */

struct ar_walk {
	struct archive *a;
	const struct walk_limits *lim;
	struct walk_stats *stats;
	const char *input_name;
	int64_t file_mtime; /* the compressed file's own: a raw member's (it has none) */
	bool stop;
};

static bool over_limits(struct ar_walk *w, uint64_t member_bytes)
{
	struct walk_stats *st = w->stats;
	if (st->limit_hit)
		return true;
	if (member_bytes > w->lim->max_member_bytes) {
		snprintf(st->limit_msg, sizeof(st->limit_msg),
			 "member larger than the limit of %llu bytes (--max-member-bytes)",
			 (unsigned long long)w->lim->max_member_bytes);
	} else if (st->bytes > w->lim->max_total_bytes) {
		snprintf(st->limit_msg, sizeof(st->limit_msg),
			 "input expands beyond the limit of %llu bytes (--max-total-bytes)",
			 (unsigned long long)w->lim->max_total_bytes);
	} else if (st->bytes > ((uint64_t)256 << 20) && st->input_bytes > 0 &&
		   (double)st->bytes / (double)st->input_bytes > w->lim->max_ratio) {
		snprintf(st->limit_msg, sizeof(st->limit_msg),
			 "input expands more than %.0f times its size: a decompression bomb? (--max-ratio)",
			 w->lim->max_ratio);
	} else {
		return false;
	}
	st->limit_hit = true;
	return true;
}

struct ar_member {
	struct ar_walk *w;
	uint64_t bytes;
};

static long ar_read(struct member_stream *ms, void *buf, size_t n)
{
	struct ar_member *m = ms->impl;
	if (m->w->stop)
		return 0;
	la_ssize_t r = archive_read_data(m->w->a, buf, n);
	if (r < 0) {
		errbuf_set(&ms->err, "%s", archive_error_string(m->w->a) ? archive_error_string(m->w->a)
									     : "read error");
		return -1;
	}
	m->bytes += (uint64_t)r;
	m->w->stats->bytes += (uint64_t)r;
	if (r > 0 && over_limits(m->w, m->bytes)) {
		errbuf_set(&ms->err, "%s", m->w->stats->limit_msg);
		m->w->stop = true;
		return -1;
	}
	return (long)r;
}

static enum member_type entry_type(struct archive_entry *e)
{
	/* a hard link that carries data (cpio puts it on the last link, pax
	 * may give a link a body) is read as the file it is; one without data
	 * names a member read before it */
	if (archive_entry_hardlink(e))
		return archive_entry_size_is_set(e) && archive_entry_size(e) == 0 ? MT_HARDLINK : MT_FILE;
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		return MT_FILE;
	case AE_IFLNK:
		return MT_SYMLINK;
	case AE_IFDIR:
		return MT_DIR;
	default:
		return MT_OTHER;
	}
}

/* Strips a compression suffix for the single member of a raw (compressed file) read. */
static char *raw_member_name(const char *outer)
{
	static const char *const sufs[] = {".gz", ".zst", ".xz", ".bz2", ".lz4", ".z"};
	char *name = xstrdup(outer);
	for (size_t i = 0; i < ARRAY_LEN(sufs); i++)
		if (has_suffix_ci(name, sufs[i])) {
			name[strlen(name) - strlen(sufs[i])] = '\0';
			break;
		}
	return name;
}

static const char *strip_dot_slash(const char *p)
{
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

/* Walks an opened archive. prefix: "" for the input, "outer/" for nested. */
static int walk_archive(struct ar_walk *w, const char *prefix, const char *container, int depth,
			const struct walk_sink *sink)
{
	struct archive_entry *e;
	long retries = 0;
	char *last = NULL; /* the last member read, to say where damage is */
	const char *where = container ? container : w->input_name;
	for (;;) {
		int r = archive_read_next_header(w->a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r == ARCHIVE_RETRY) {
			/* a damaged header: libarchive skips ahead to the next good one.
			 * One message per damaged stretch; give up if it never ends. */
			if (retries++ == 0 && sink->error) {
				char *msg = xasprintf("damaged archive %s%s%s: %s; skipping to the next readable member",
						      last ? "after member '" : "at its start", last ? last : "",
						      last ? "'" : "",
						      archive_error_string(w->a) ? archive_error_string(w->a) : "bad header");
				sink->error(sink->ctx, where, msg);
				free(msg);
			}
			if (retries < (1L << 20))
				continue;
			if (sink->error)
				sink->error(sink->ctx, where, "damaged archive: no readable member found after the damage");
			free(last);
			return -1;
		}
		if (r < ARCHIVE_WARN) {
			if (sink->error) {
				char *msg = xasprintf("%s%s%s%s", archive_error_string(w->a) ? archive_error_string(w->a) : "archive error",
						      last ? " (after member '" : "", last ? last : "", last ? "')" : "");
				sink->error(sink->ctx, where, msg);
				free(msg);
			}
			free(last);
			return -1;
		}
		retries = 0;
		bool raw = archive_format(w->a) == ARCHIVE_FORMAT_RAW;
		if (raw && archive_filter_code(w->a, 0) == ARCHIVE_FILTER_NONE) {
			/* neither an archive nor a compression libarchive can undo (a
			 * header cut short): the "member" would be the input itself */
			if (sink->error)
				sink->error(sink->ctx, where, "not readable as an archive or compressed file "
							      "(truncated or damaged header)");
			free(last);
			return -1;
		}
		char *path;
		if (raw) {
			/* a compressed single file: one member named like the file without its suffix */
			const char *base = container ? container : w->input_name;
			if (!container && strrchr(base, '/'))
				base = strrchr(base, '/') + 1;
			path = raw_member_name(base);
		} else {
			const char *name = archive_entry_pathname(e);
			path = xasprintf("%s%s", prefix, strip_dot_slash(name ? name : "(unnamed)"));
		}
		struct member_info mi = {
			.path = path,
			.container = container,
			.size = archive_entry_size_is_set(e) ? archive_entry_size(e) : -1,
			.mtime = archive_entry_mtime_is_set(e) ? (int64_t)archive_entry_mtime(e) : raw ? w->file_mtime : 0,
			.type = raw ? MT_FILE : entry_type(e),
			.link_target = archive_entry_hardlink(e) ? archive_entry_hardlink(e) : archive_entry_symlink(e),
			.depth = depth,
		};
		if (mi.type == MT_DIR) {
			free(path);
			continue;
		}
		struct ar_member am = {.w = w};
		struct member_stream ms = {.read_impl = ar_read, .impl = &am};
		if (mi.type != MT_FILE)
			ms.eof = true;
		w->stats->members++;
		int rc = sink->member(sink->ctx, &mi, &ms);
		free(last);
		last = path;
		if (rc < 0 || w->stop) {
			free(last);
			return -1;
		}
		/* whatever the sink left unread is skipped by libarchive */
	}
	free(last);
	return 0;
}

static struct archive *new_reader(void)
{
	struct archive *a = archive_read_new();
	archive_read_support_filter_all(a);
	/* only the archive formats meant to be read: with every format on,
	 * mtree's reader bids on plain text (a host file, a log whose first
	 * line is "#mtree") and turns its lines into empty members */
	archive_read_support_format_tar(a);
	archive_read_support_format_gnutar(a);
	archive_read_support_format_cpio(a);
	archive_read_support_format_zip(a);
	archive_read_support_format_7zip(a);
	archive_read_support_format_raw(a);
	return a;
}

struct nested_src {
	struct member_stream *outer;
	char buf[65536];
};

static la_ssize_t nested_read_cb(struct archive *a, void *ctx, const void **out)
{
	(void)a;
	struct nested_src *src = ctx;
	long r = member_read(src->outer, src->buf, sizeof(src->buf));
	if (r < 0) {
		archive_set_error(a, EIO, "%s", src->outer->err.msg);
		return -1;
	}
	*out = src->buf;
	return r;
}

int walk_nested(struct member_stream *ms, const struct member_info *outer, const struct walk_limits *lim,
		const struct walk_sink *sink, struct walk_stats *stats)
{
	if (outer->depth + 1 > lim->max_depth) {
		if (sink->error)
			sink->error(sink->ctx, outer->path, "archive nested too deep; not opened (--max-depth)");
		return -1;
	}
	struct nested_src *src = xmalloc(sizeof(*src));
	src->outer = ms;
	struct archive *a = new_reader();
	struct ar_walk w = {.a = a, .lim = lim, .stats = stats, .input_name = outer->path, .file_mtime = outer->mtime};
	int rc;
	if (archive_read_open(a, src, NULL, nested_read_cb, NULL) != ARCHIVE_OK) {
		if (sink->error)
			sink->error(sink->ctx, outer->path, archive_error_string(a) ? archive_error_string(a) : "cannot open");
		rc = -1;
	} else {
		char *prefix = xasprintf("%s/", outer->path);
		rc = walk_archive(&w, prefix, outer->path, outer->depth + 1, sink);
		free(prefix);
	}
	archive_read_free(a);
	free(src);
	return rc;
}

/* ---- input kinds ---- */

struct fd_member {
	int fd;
	struct walk_stats *stats;
	const struct walk_limits *lim;
	uint64_t bytes;
};

static long fd_read(struct member_stream *ms, void *buf, size_t n)
{
	struct fd_member *f = ms->impl;
	ssize_t r;
	do {
		r = read(f->fd, buf, n);
	} while (r < 0 && errno == EINTR);
	if (r < 0) {
		errbuf_set(&ms->err, "%s", strerror(errno));
		return -1;
	}
	f->bytes += (uint64_t)r;
	f->stats->bytes += (uint64_t)r;
	return (long)r;
}

/* One plain file as a member named rel. */
static int walk_one_file(const char *full, const char *rel, int64_t mtime, int64_t size,
			 const struct walk_limits *lim, const struct walk_sink *sink, struct walk_stats *stats)
{
	int fd = open(full, O_RDONLY | O_NOFOLLOW);
	if (fd < 0) {
		if (sink->error)
			sink->error(sink->ctx, rel, strerror(errno));
		return 0;
	}
	struct fd_member fm = {.fd = fd, .stats = stats, .lim = lim};
	struct member_stream ms = {.read_impl = fd_read, .impl = &fm};
	struct member_info mi = {.path = rel, .size = size, .mtime = mtime, .type = MT_FILE};
	stats->members++;
	int rc = sink->member(sink->ctx, &mi, &ms);
	close(fd);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk_dir_rec(const char *root, const char *rel, const struct walk_limits *lim,
			const struct walk_sink *sink, struct walk_stats *stats, int level)
{
	char *dir = rel[0] ? xasprintf("%s/%s", root, rel) : xstrdup(root);
	DIR *d = opendir(dir);
	if (!d) {
		if (sink->error)
			sink->error(sink->ctx, rel[0] ? rel : root, strerror(errno));
		free(dir);
		return 0;
	}
	free(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		xgrow(&names, &cap, n + 1, sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 1) /* names is NULL for an empty directory */
		xqsort(names, n, sizeof(*names), cmp_names);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char *sub = rel[0] ? xasprintf("%s/%s", rel, names[i]) : xstrdup(names[i]);
		char *full = xasprintf("%s/%s", root, sub);
		struct stat st;
		if (lstat(full, &st) < 0) {
			if (sink->error)
				sink->error(sink->ctx, sub, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			if (level < 64)
				rc = walk_dir_rec(root, sub, lim, sink, stats, level + 1);
		} else if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t tl = readlink(full, target, sizeof(target) - 1);
			target[tl > 0 ? tl : 0] = '\0';
			struct member_stream ms = {.eof = true};
			struct member_info mi = {.path = sub, .size = 0, .mtime = st.st_mtime, .type = MT_SYMLINK,
						 .link_target = target};
			stats->members++;
			rc = sink->member(sink->ctx, &mi, &ms);
		} else if (S_ISREG(st.st_mode) && lim->skip_ino && (uint64_t)st.st_ino == lim->skip_ino &&
			   (uint64_t)st.st_dev == lim->skip_dev) {
			/* the case being written, inside the input directory */
		} else if (S_ISREG(st.st_mode)) {
			rc = walk_one_file(full, sub, st.st_mtime, st.st_size, lim, sink, stats);
		} else {
			/* fifo, socket, device: recorded, never opened (a fifo would block) */
			struct member_stream ms = {.eof = true};
			struct member_info mi = {.path = sub, .mtime = st.st_mtime, .type = MT_OTHER};
			stats->members++;
			rc = sink->member(sink->ctx, &mi, &ms);
		}
		free(sub);
		free(full);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int walk_directory(const char *path, const struct walk_limits *lim, const struct walk_sink *sink,
			  struct walk_stats *stats, struct errbuf *err)
{
	(void)err;
	return walk_dir_rec(path, "", lim, sink, stats, 0) < 0 ? -1 : 0;
}

static int walk_archive_file(const char *path, int64_t mtime, const struct walk_limits *lim,
			     const struct walk_sink *sink, struct walk_stats *stats, struct errbuf *err)
{
	struct archive *a = new_reader();
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		int rc = errbuf_set(err, "%s: %s", path, archive_error_string(a) ? archive_error_string(a) : "cannot open");
		archive_read_free(a);
		return rc;
	}
	struct ar_walk w = {.a = a, .lim = lim, .stats = stats, .input_name = path, .file_mtime = mtime};
	int rc = walk_archive(&w, "", NULL, 0, sink);
	archive_read_free(a);
	return rc < 0 && stats->members == 0 ? -1 : 0;
}

static int walk_plain(const char *path, const struct walk_limits *lim, const struct walk_sink *sink,
		      struct walk_stats *stats, struct errbuf *err)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return errbuf_set(err, "%s: %s", path, strerror(errno));
	const char *base = strrchr(path, '/');
	return walk_one_file(path, base ? base + 1 : path, st.st_mtime, st.st_size, lim, sink, stats) < 0 ? -1 : 0;
}

/* Reads the first bytes of a file to choose its input kind. */
static size_t head_of(const char *path, unsigned char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t r = read(fd, buf, n);
	close(fd);
	return r > 0 ? (size_t)r : 0;
}

int walk_input(const char *path, const struct walk_limits *lim, const struct walk_sink *sink,
	       struct walk_stats *stats, struct errbuf *err)
{
	struct stat st;
	memset(stats, 0, sizeof(*stats));
	if (stat(path, &st) < 0)
		return errbuf_set(err, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return walk_directory(path, lim, sink, stats, err);
	if (!S_ISREG(st.st_mode))
		return errbuf_set(err, "%s: not a file or directory", path);
	if (access(path, R_OK) != 0)
		return errbuf_set(err, "%s: %s", path, strerror(errno));
	stats->input_bytes = (uint64_t)st.st_size;
	unsigned char head[512];
	size_t n = head_of(path, head, sizeof(head));
	const char *base = strrchr(path, '/');
	if (member_is_container(base ? base + 1 : path, head, n))
		return walk_archive_file(path, (int64_t)st.st_mtime, lim, sink, stats, err);
	return walk_plain(path, lim, sink, stats, err);
}
