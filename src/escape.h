/* escape.h: values that came from input, escaped for where they are shown,
 * so that no log byte acts on its reader. A terminal (and a text file that
 * someone cats) sees no control sequence: C0 and C1 controls, DEL and bytes
 * that are not UTF-8 become '?', a NUL byte the two characters "\0". TSV
 * and CSV add their own quoting on top (a CSV text cell that a spreadsheet
 * would take for a formula gets a leading '). JSON escapes in util.h
 * (buf_json_str), Markdown in report_md.c, HTML in report_html.c. */
#ifndef NF_ESCAPE_H
#define NF_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util.h"

enum {
	ESC_KEEP_TAB = 1,     /* a tab stays a tab (else '?') */
	ESC_KEEP_NEWLINE = 2, /* "\n" stays (else '?'); "\r" never does */
};

/* Appends n bytes of s, safe for a terminal. */
void esc_term(struct buf *o, const char *s, size_t n, unsigned flags);
/* The same, written to f. */
void esc_term_fputs(FILE *f, const char *s, size_t n, unsigned flags);
/* A NUL-terminated copy of s, safe for a terminal (malloc'ed). */
char *esc_term_dup(const char *s, size_t n, unsigned flags);
/* Whether n bytes of s would be changed by esc_term. */
bool esc_term_needed(const char *s, size_t n, unsigned flags);
/* A TSV field: backslash, tab, newline and CR as \\ \t \n \r, then safe
 * for a terminal. */
void esc_tsv(struct buf *o, const char *s, size_t n);
/* A CSV field (RFC 4180 quoting); text: the value is text (not a number),
 * so that a leading = + - @ (or tab, CR) gets a ' before it. */
void esc_csv(struct buf *o, const char *s, size_t n, bool text);

#endif
