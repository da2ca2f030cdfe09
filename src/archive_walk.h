/* archive_walk.h: every input kind (archive, compressed file, directory,
 * plain file) is walked member by member and each member's bytes are
 * streamed to a sink. Nothing is extracted to disk and no member is held
 * whole in memory; a member that is itself an archive can be walked in turn
 * (walk_nested), straight from the outer stream. */
#ifndef NF_ARCHIVE_WALK_H
#define NF_ARCHIVE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum member_type { MT_FILE, MT_SYMLINK, MT_HARDLINK, MT_DIR, MT_OTHER };

struct member_info {
	const char *path;       /* path inside the input; nested: "outer.tar.gz/inner/path" */
	const char *container;  /* the archive member that holds it (nested), or NULL */
	int64_t size;           /* -1 when unknown */
	int64_t mtime;          /* seconds since the epoch, 0 when unknown */
	enum member_type type;
	const char *link_target; /* MT_SYMLINK / MT_HARDLINK */
	int depth;              /* 0 for members of the input itself */
};

/* A member's bytes. read() returns the number of bytes (0 at the end) or -1
 * on a read error, with err filled. The first bytes can be looked at with
 * member_peek() before reading: they are read again by read(). */
struct member_stream {
	long (*read_impl)(struct member_stream *ms, void *buf, size_t n);
	void *impl;
	struct errbuf err;
	uint64_t bytes;         /* bytes handed out so far */
	unsigned char peek[4096];
	size_t peek_len, peek_pos;
	bool peeked, eof;
	bool failed;            /* the read that ended the member failed (err says why) */
};
long member_read(struct member_stream *ms, void *buf, size_t n);
/* Up to 4096 first bytes (fewer at the end of a short member). */
const unsigned char *member_peek(struct member_stream *ms, size_t *n);

struct walk_limits {
	uint64_t max_total_bytes;   /* uncompressed bytes over all members */
	uint64_t max_member_bytes;  /* one member */
	double max_ratio;           /* uncompressed / compressed, checked past 256 MiB */
	int max_depth;              /* nesting of archives in archives */
	/* a file a directory walk passes by (the case being written, when it
	 * is inside the input directory): device and inode, 0 for none */
	uint64_t skip_dev, skip_ino;
};
void walk_default_limits(struct walk_limits *lim);

struct walk_sink {
	/* Called for each member. The sink reads what it needs from ms; bytes it
	 * leaves unread are skipped. Returns 0, or -1 to stop the walk. */
	int (*member)(void *ctx, const struct member_info *mi, struct member_stream *ms);
	/* An error of the container itself (corrupt header, truncated
	 * compression); the walk goes on when it can. */
	void (*error)(void *ctx, const char *path, const char *msg);
	void *ctx;
};

struct walk_stats {
	uint64_t members;
	uint64_t bytes;             /* uncompressed bytes handed to the sink */
	uint64_t input_bytes;       /* size of the input on disk */
	bool limit_hit;
	char limit_msg[256];
};

/* Walks path: a directory, an archive (tar, tar.gz/zst/xz/bz2, zip, ...), a
 * compressed single file or a plain file. Returns 0, or -1 when the input
 * cannot be opened at all (err filled). */
int walk_input(const char *path, const struct walk_limits *lim, const struct walk_sink *sink,
	       struct walk_stats *stats, struct errbuf *err);

/* True if these first bytes (or the name) look like an archive or a
 * compressed file worth walking with walk_nested(). */
bool member_is_container(const char *name, const unsigned char *head, size_t n);

/* Walks the archive (or compressed file) in ms, a member of an outer input. */
int walk_nested(struct member_stream *ms, const struct member_info *outer, const struct walk_limits *lim,
		const struct walk_sink *sink, struct walk_stats *stats);

#endif
