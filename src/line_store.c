/* line_store.c: see line_store.h. */
#include "line_store.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

enum {
	LF_TIME = 1 << 0,
	LF_TRUNC = 1 << 1,
	LF_RANK = 1 << 2,
	LF_LOCAL = 1 << 3,
	LF_PID = 1 << 4,
	LF_CLOCK_SHIFT = 5, /* 3 bits of clock */
};

static bool get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	int shift = 0;
	while (*p < end && shift < 64) {
		unsigned char c = *(*p)++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
		shift += 7;
	}
	return false;
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

void block_init(struct block_builder *b, size_t target_bytes)
{
	memset(b, 0, sizeof(*b));
	b->target_bytes = target_bytes ? target_bytes : (1 << 20);
}

void block_free(struct block_builder *b)
{
	buf_free(&b->meta);
	buf_free(&b->text);
}

/* Appends a varint at p (room for 10 bytes); returns the end. */
static unsigned char *varint_at(unsigned char *p, uint64_t v)
{
	do {
		unsigned char c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		*p++ = c;
	} while (v);
	return p;
}

void block_add(struct block_builder *b, long line_no, const char *line, size_t len, const struct line_meta *m)
{
	if (b->n_lines == 0) {
		b->first_line = line_no;
		b->prev_t = 0;
		b->any_time = false;
	}
	unsigned flags = ((unsigned)m->clock & 7) << LF_CLOCK_SHIFT;
	if (m->has_time)
		flags |= LF_TIME;
	if (m->truncated)
		flags |= LF_TRUNC;
	if (m->rank >= 0)
		flags |= LF_RANK;
	if (m->local_rank >= 0)
		flags |= LF_LOCAL;
	if (m->pid >= 0)
		flags |= LF_PID;
	/* one reservation per line: flags and at most four varints */
	buf_reserve(&b->meta, 1 + 4 * 10);
	unsigned char *p = (unsigned char *)b->meta.data + b->meta.len;
	*p++ = (unsigned char)flags;
	if (m->has_time) {
		p = varint_at(p, zigzag(m->t_us - b->prev_t));
		b->prev_t = m->t_us;
		if (!b->any_time || m->t_us < b->min_t)
			b->min_t = m->t_us;
		if (!b->any_time || m->t_us > b->max_t)
			b->max_t = m->t_us;
		b->any_time = true;
	}
	if (m->rank >= 0)
		p = varint_at(p, (uint64_t)m->rank);
	if (m->local_rank >= 0)
		p = varint_at(p, (uint64_t)m->local_rank);
	if (m->pid >= 0)
		p = varint_at(p, (uint64_t)m->pid);
	b->meta.len = (size_t)(p - (unsigned char *)b->meta.data);
	b->meta.data[b->meta.len] = '\0';
	buf_reserve(&b->text, len + 1);
	memcpy(b->text.data + b->text.len, line, len);
	b->text.len += len;
	b->text.data[b->text.len++] = '\n';
	b->text.data[b->text.len] = '\0';
	b->n_lines++;
}

void block_take(struct block_builder *b, struct buf *out, struct block_info *info)
{
	size_t start = out->len;
	buf_varint(out, b->n_lines);
	buf_varint(out, b->meta.len);
	if (b->meta.len)
		buf_append(out, b->meta.data, b->meta.len);
	if (b->text.len)
		buf_append(out, b->text.data, b->text.len);
	info->first_line = b->first_line;
	info->n_lines = b->n_lines;
	info->has_time = b->any_time;
	info->min_t = b->min_t;
	info->max_t = b->max_t;
	info->raw_bytes = out->len - start;
	buf_clear(&b->meta);
	buf_clear(&b->text);
	b->n_lines = 0;
	b->any_time = false;
}

void *block_zctx_new(void)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();
	if (!z)
		die("zstd: out of memory");
	return z;
}

void block_zctx_free(void *zctx)
{
	ZSTD_freeCCtx(zctx);
}

void block_compress(const void *payload, size_t n, int zstd_level, void *zctx, struct buf *out)
{
	size_t bound = ZSTD_compressBound(n);
	buf_clear(out);
	buf_reserve(out, bound);
	size_t z = zctx ? ZSTD_compressCCtx(zctx, out->data, bound, payload, n, zstd_level)
			: ZSTD_compress(out->data, bound, payload, n, zstd_level);
	if (ZSTD_isError(z))
		die("zstd: %s", ZSTD_getErrorName(z));
	out->len = z;
}

void block_seal(struct block_builder *b, int zstd_level, struct buf *out, struct block_info *info)
{
	struct buf payload = {0};
	block_take(b, &payload, info);
	block_compress(payload.data, payload.len, zstd_level, NULL, out);
	buf_free(&payload);
}

static int decode_payload(struct decoded_block *out, struct errbuf *err);

int block_decode(const void *data, size_t n, struct decoded_block *out, struct errbuf *err)
{
	return block_decode_ddict(data, n, NULL, NULL, out, err);
}

int block_decode_ddict(const void *data, size_t n, void *dctx, const void *ddict, struct decoded_block *out,
		       struct errbuf *err)
{
	memset(out, 0, sizeof(*out));
	unsigned long long size = ZSTD_getFrameContentSize(data, n);
	if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (1ull << 31))
		return errbuf_set(err, "corrupt line block (bad frame)");
	out->payload = xmalloc(size ? size : 1);
	size_t got = ddict ? ZSTD_decompress_usingDDict(dctx, out->payload, size, data, n, ddict)
			   : ZSTD_decompress(out->payload, size, data, n);
	if (ZSTD_isError(got) || got != size) {
		decoded_block_free(out);
		return errbuf_set(err, "corrupt line block (%s)", ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
	}
	out->payload_len = got;
	return decode_payload(out, err);
}

/* The lines of the decompressed payload (out->payload, payload_len). */
static int decode_payload(struct decoded_block *out, struct errbuf *err)
{
	size_t got = out->payload_len;
	const unsigned char *p = (const unsigned char *)out->payload, *end = p + got;
	uint64_t n_lines, meta_len;
	if (!get_varint(&p, end, &n_lines) || !get_varint(&p, end, &meta_len) || meta_len > (uint64_t)(end - p) ||
	    n_lines > (1u << 20)) {
		decoded_block_free(out);
		return errbuf_set(err, "corrupt line block (header)");
	}
	const unsigned char *meta = p, *meta_end = p + meta_len;
	const char *text = (const char *)meta_end, *text_end = (const char *)end;
	out->n_lines = (uint32_t)n_lines;
	out->lines = xcalloc(n_lines ? n_lines : 1, sizeof(*out->lines));
	int64_t t = 0;
	for (uint32_t i = 0; i < n_lines; i++) {
		struct decoded_line *dl = &out->lines[i];
		if (meta >= meta_end)
			goto bad;
		unsigned flags = *meta++;
		uint64_t v;
		dl->meta.clock = (enum clock_kind)((flags >> LF_CLOCK_SHIFT) & 7);
		dl->meta.truncated = flags & LF_TRUNC;
		dl->meta.rank = dl->meta.local_rank = -1;
		dl->meta.pid = -1;
		if (flags & LF_TIME) {
			if (!get_varint(&meta, meta_end, &v))
				goto bad;
			t += unzigzag(v);
			dl->meta.has_time = true;
			dl->meta.t_us = t;
		}
		if (flags & LF_RANK) {
			if (!get_varint(&meta, meta_end, &v))
				goto bad;
			dl->meta.rank = (int)v;
		}
		if (flags & LF_LOCAL) {
			if (!get_varint(&meta, meta_end, &v))
				goto bad;
			dl->meta.local_rank = (int)v;
		}
		if (flags & LF_PID) {
			if (!get_varint(&meta, meta_end, &v))
				goto bad;
			dl->meta.pid = (long)v;
		}
		const char *nl = memchr(text, '\n', (size_t)(text_end - text));
		if (!nl)
			goto bad;
		dl->text = text;
		dl->len = (size_t)(nl - text);
		text = nl + 1;
	}
	return 0;
bad:
	decoded_block_free(out);
	return errbuf_set(err, "corrupt line block (lines)");
}

void decoded_block_free(struct decoded_block *d)
{
	free(d->payload);
	free(d->lines);
	memset(d, 0, sizeof(*d));
}
