/* pickle_write.h: writes plain data (None, bool, int, float, str, bytes,
 * list, tuple, dict) as a protocol-2 pickle that uses only the safe opcodes
 * pickle_read.h accepts: no GLOBAL, REDUCE, BUILD or anything that imports or
 * calls code. Used by `synth` to re-emit flight-recorder dumps with renamed
 * groups and ranks.
 *
 * The writer is a stream of calls, like a JSON writer: begin, values and
 * containers in document order, end. A dict takes its items as key, value,
 * key, value. Containers are written the way CPython does (EMPTY_LIST + MARK
 * + items + APPENDS in batches of 1000; EMPTY_DICT + MARK + pairs + SETITEMS;
 * MARK + items + TUPLE), so a container is complete before its parent stores
 * it.
 *
 * Strings up to 256 bytes are memoized by content: the second occurrence of
 * the same text is a BINGET of the first (Python memoizes by object identity;
 * for immutable str the result reads back the same).
 *
 * Representation limits, what a caller must know:
 *   - bytes are written with BINBYTES (a protocol-3 opcode; any reader of
 *     protocol 3+ and pickle_read accept it in a protocol-2 stream);
 *   - sets (pk_is_set) are written as lists: protocol 2 has no set opcode
 *     without REDUCE;
 *   - floats are BINFLOAT (8 bytes, exact).
 *
 * Invariant: calls must be balanced (each *_begin has its *_end, a dict
 * holds an even number of items); a violation is an internal error (die). */
#ifndef NF_PICKLE_WRITE_H
#define NF_PICKLE_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pickle_read.h"
#include "util.h"

#define PKW_MAX_DEPTH 64

struct pkw_memo; /* string -> memo id */

struct pk_writer {
	struct buf *out;          /* appended to; never NULL while writing */
	struct pkw_memo *memo;
	uint32_t next_memo;
	int depth;                /* open containers */
	struct pkw_frame {
		char kind;            /* 'l' list, 't' tuple, 'd' dict */
		uint32_t batch;       /* items since the last APPENDS/SETITEMS (dict: keys+values) */
		uint64_t items;       /* items written (dict: keys + values) */
	} stack[PKW_MAX_DEPTH];
	bool done;
};

/* Starts a pickle in out (PROTO 2). */
void pkw_begin(struct pk_writer *w, struct buf *out);
/* Ends it (STOP) and frees the memo. */
void pkw_end(struct pk_writer *w);

void pkw_none(struct pk_writer *w);
void pkw_bool(struct pk_writer *w, bool v);
void pkw_int(struct pk_writer *w, int64_t v);
void pkw_float(struct pk_writer *w, double v);
void pkw_str(struct pk_writer *w, const char *s, size_t n);
void pkw_cstr(struct pk_writer *w, const char *s);
void pkw_bytes(struct pk_writer *w, const void *p, size_t n);

void pkw_list_begin(struct pk_writer *w);
void pkw_list_end(struct pk_writer *w);
void pkw_tuple_begin(struct pk_writer *w);
void pkw_tuple_end(struct pk_writer *w);
void pkw_dict_begin(struct pk_writer *w);
void pkw_dict_end(struct pk_writer *w);

/* Writes a value read by pickle_read (deep copy; shared values are written
 * once per reference). */
void pkw_value(struct pk_writer *w, const struct pk_value *v);

#endif
