/* verdict_print.h: the one-screen summary printed after ingest and analyze. */
#ifndef NF_VERDICT_PRINT_H
#define NF_VERDICT_PRINT_H

#include <sqlite3.h>
#include <stdio.h>

void verdict_print_summary(sqlite3 *db, FILE *out);

#endif
