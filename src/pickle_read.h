/* pickle_read.h: a reader for the safe subset of Python pickles (protocols 0
 * to 5), used for PyTorch flight-recorder dumps (nccl_trace_rank_N,
 * final_trace_rank_N). It never imports, calls or builds code objects: it
 * reads plain data (None, bool, int, float, str, bytes, list, tuple, dict,
 * set) into a tree and refuses everything else by opcode name.
 *
 * Errors follow util.h: a NULL return and a one-line message in the errbuf
 * that names the opcode (its pickletools name and byte) and the byte offset
 * where it starts, e.g.
 *   "refused opcode GLOBAL (0x63) at byte 2: pickles that import or call code are not read"
 *   "BINGET (0x68) at byte 5: memo index 5 was never stored"
 *   "input ends inside BINUNICODE (0x58) at byte 2: truncated pickle"
 *
 * Representation, what a caller must know:
 *   - int: PK_INT holds a signed 64-bit value. Any integer that does not fit
 *     in int64_t (LONG1/LONG4 wider than 8 bytes, text INT/LONG out of range,
 *     unsigned values >= 2^63) makes the whole read fail: there is no bignum.
 *   - bool: PK_BOOL (NEWTRUE/NEWFALSE and protocol-0 "I01\n"/"I00\n");
 *     pk_int() also accepts it (0 or 1).
 *   - str: PK_STR holds the bytes as the pickle stores them: UTF-8 for
 *     BINUNICODE & co. (not validated; Python may store lone surrogates),
 *     latin-1 code points converted to UTF-8 for protocol-0 UNICODE,
 *     and the raw bytes of Python 2 STRING/BINSTRING/SHORT_BINSTRING (which
 *     are read as str, not bytes). Always NUL-terminated, but may contain NULs:
 *     use the length from pk_len()/pk_str().
 *   - bytes and bytearray: PK_BYTES.
 *   - set and frozenset: PK_LIST with the items in pickle order (a pickled set
 *     has no duplicates; none are removed). pk_is_set() tells them apart.
 *   - dict: pairs in pickle order. A key given twice keeps both pairs (pk_len
 *     counts both); pk_get() returns the last one, as Python would. Keys may
 *     be of any hashable type (str, int, tuple, None, ...; pk_key() gives
 *     them) but pk_get() matches str keys only; a list, dict or set key,
 *     which Python could not hash, is refused.
 *   - shared references (memo GET, DUP) give the same pk_value pointer in
 *     several places; the tree is a DAG, never cyclic: a pickle that would
 *     make a recursive structure (a container stored, directly or not, inside
 *     itself) is refused, and so is any change to a container after it has
 *     been stored inside another one.
 *   - nesting: no value nests deeper than max_depth containers (the root
 *     counts as 1), so recursive walks of the tree are bounded.
 *   - the reader stops at STOP: bytes after it are not read (as pickle.load).
 *     STOP must leave exactly one value on the stack and no open MARK, else
 *     the read fails (Python would ignore the rest; a well-formed pickle never
 *     does this).
 *
 * Memory: the input is streamed through a 64 KiB buffer, never held whole.
 * The tree costs about 32 bytes per value plus the string bytes (a 50 MB dump
 * of 200000 entries takes about 0.5 GB). The worst case is bounded by the
 * limits: some 64 bytes per value counted by max_values (a few GB at the
 * defaults: lower max_values for a tighter bound) plus string bytes (at most
 * about twice the input). A declared string length is checked against
 * max_string_bytes, max_input_bytes and (for pickle_read_mem) the bytes left
 * before anything is allocated; a long body from pickle_read is then read in
 * growing pieces, so a short body never costs the declared length.
 */
#ifndef NF_PICKLE_READ_H
#define NF_PICKLE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum pk_type { PK_NONE, PK_BOOL, PK_INT, PK_FLOAT, PK_STR, PK_BYTES, PK_LIST, PK_TUPLE, PK_DICT };

struct pk_value; /* a node of the parsed tree: type + scalar or children */
struct pk_doc;   /* owns every value (one arena); freed at once */

/* Reads up to n bytes into buf: returns the bytes read (1..n), 0 at end of
 * input, <0 on I/O error. */
typedef long (*pk_read_fn)(void *ctx, void *buf, size_t n);

struct pk_limits {
	size_t max_input_bytes;  /* bytes read before STOP */
	size_t max_depth;        /* container nesting in the tree and open MARKs */
	size_t max_values;       /* values pushed: new values, memo GETs, DUPs */
	size_t max_string_bytes; /* one str/bytes value (and one text line) */
	size_t max_expanded_bytes; /* one container once its memo references are copied out */
};

/* 256 MiB input, depth 64, 50 M values, 64 MiB string, 1 GiB expanded. */
void pk_default_limits(struct pk_limits *lim);

/* Parses one pickle. lim may be NULL (defaults); a zero field means its
 * default. Returns NULL and fills err on bad or refused input; never exits
 * except through the x-allocators on memory exhaustion. */
struct pk_doc *pickle_read(pk_read_fn read, void *ctx, const struct pk_limits *lim, struct errbuf *err);
struct pk_doc *pickle_read_mem(const void *data, size_t n, const struct pk_limits *lim, struct errbuf *err);

const struct pk_value *pk_root(const struct pk_doc *doc);
/* Bytes of input consumed, up to and including STOP. */
size_t pk_doc_bytes(const struct pk_doc *doc);
/* Frees the document and every value in it; NULL is fine. */
void pk_doc_free(struct pk_doc *doc);

/* Accessors. All take NULL (and values of the wrong type) and then answer
 * PK_NONE / 0 / NULL / false. */
enum pk_type pk_type(const struct pk_value *v);
const char *pk_type_name(enum pk_type t); /* "none", "bool", "int", ... */
/* Items of a list/tuple/set, pairs of a dict, bytes of a str/bytes; else 0. */
size_t pk_len(const struct pk_value *v);
/* List/tuple/set item i; for a dict, the value of pair i. NULL if out of range. */
const struct pk_value *pk_item(const struct pk_value *v, size_t i);
/* Dict key of pair i. NULL if out of range or not a dict. */
const struct pk_value *pk_key(const struct pk_value *v, size_t i);
/* Dict lookup by str key (the last pair with that key). NULL if absent. */
const struct pk_value *pk_get(const struct pk_value *dict, const char *key);
/* True for PK_INT and PK_BOOL only. */
bool pk_int(const struct pk_value *v, int64_t *out);
/* True for PK_FLOAT and PK_INT (converted, may round above 2^53). */
bool pk_float(const struct pk_value *v, double *out);
/* The bytes of a str or bytes value, NUL-terminated; *len (if len is not
 * NULL) gets the length. NULL for any other type. */
const char *pk_str(const struct pk_value *v, size_t *len);
bool pk_is_none(const struct pk_value *v);
/* True for a PK_LIST that was a set or frozenset in the pickle. */
bool pk_is_set(const struct pk_value *v);

#endif
