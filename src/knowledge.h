/* knowledge.h: tables of knowledge kept as data, not code (the .tsv files in data/: what
 * an NCCL or PyTorch setting does, what an Xid code means). The analyses load
 * a file into a TEMP table and join it in SQL.
 *
 * data/ is found next to the grammars: <grammar dir>/../data, i.e. data/ in a
 * build tree and <prefix>/share/ncclforensic/data when installed. */
#ifndef NF_KNOWLEDGE_H
#define NF_KNOWLEDGE_H

#include <sqlite3.h>

/* The data directory, or NULL when none is found. */
const char *knowledge_dir(void);

/* Loads data/<file> (tab-separated; '#' comments and blank lines skipped;
 * empty cells and "-" are NULL) into TEMP table <table>(cols...), replacing
 * it. The table always exists afterwards. Returns the rows loaded, or -1 when
 * the file cannot be read (a warning is printed once per file). */
int knowledge_load(sqlite3 *db, const char *file, const char *table, const char *const *cols, int ncols);

#endif
