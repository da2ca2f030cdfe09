/* cmd_stubs.c: commands not written yet (temporary). */
#include <stdio.h>
#include "commands.h"
#include "util.h"
#define STUB(fn) int fn(int argc, char **argv) { (void)argc; fprintf(stderr, NF_PROG ": %s: not available yet\n", argv[0]); return NF_EXIT_INTERNAL; }
