/* sql_shell.c: see sql_shell.h.
 *
 * A case is evidence someone else sent: the shell opens it read-only and
 * with trusted_schema=OFF, so that the case's own views and triggers can
 * only call functions marked innocuous (the extension's are; the shell's
 * writefile(), edit() and load_extension() are not). The shell's safe mode
 * (-safe) would also refuse the .load that brings the extension in, so it
 * is not used: what the user types is theirs. The shell prints values as
 * they are (docs/robustness.md). */
#include "sql_shell.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#ifndef NF_EXT_INSTALL_PATH
#define NF_EXT_INSTALL_PATH ""
#endif

static bool readable_so(char *out, size_t n, const char *fmt, const char *dir)
{
	char so[PATH_MAX];
	if (snprintf(so, sizeof(so), fmt, dir) >= (int)sizeof(so) || access(so, R_OK) != 0)
		return false;
	size_t len = strlen(so);
	if (len > 3 && strcmp(so + len - 3, ".so") == 0)
		so[len - 3] = '\0';
	return snprintf(out, n, "%s", so) < (int)n;
}

bool sql_extension_path(char *out, size_t n)
{
	const char *env = getenv("NCCLFORENSIC_EXTENSION");
	if (env && *env)
		return readable_so(out, n, "%s", env);
	char exe[PATH_MAX - 64];
	if (exe_dir(exe, sizeof(exe))) {
		static const char *const cands[] = {"%s/build/ncclforensic.so", "%s/ncclforensic.so",
						     "%s/../build/ncclforensic.so", "%s/../lib/ncclforensic/ncclforensic.so"};
		for (size_t i = 0; i < ARRAY_LEN(cands); i++)
			if (readable_so(out, n, cands[i], exe))
				return true;
	}
	return NF_EXT_INSTALL_PATH[0] && readable_so(out, n, "%s", NF_EXT_INSTALL_PATH);
}

int sql_shell_exec(const char *case_path, bool write)
{
	if (access(case_path, R_OK) != 0) {
		diag_error("%s: cannot read the case", case_path);
		return NF_EXIT_NOTHING;
	}
	char ext[PATH_MAX];
	if (!sql_extension_path(ext, sizeof(ext))) {
		const char *env = getenv("NCCLFORENSIC_EXTENSION");
		if (env && *env)
			diag_error("sql: NCCLFORENSIC_EXTENSION names %s: cannot read that SQLite extension", env);
		else
			diag_error("sql: the SQLite extension (ncclforensic.so) is not found beside the binary or under"
				   " its prefix; run `make`, or set NCCLFORENSIC_EXTENSION");
		return NF_EXIT_INTERNAL;
	}
	/* a double-quoted argument of a dot command takes C escapes: any path */
	char load[2 * PATH_MAX + 16];
	size_t k = (size_t)snprintf(load, sizeof(load), ".load \"");
	for (const char *c = ext; *c && k + 4 < sizeof(load); c++) {
		if (*c == '"' || *c == '\\')
			load[k++] = '\\';
		load[k++] = *c;
	}
	/* the entry point named: a renamed file would make sqlite3 guess another */
	snprintf(load + k, sizeof(load) - k, "\" sqlite3_ncclforensic_init");
	const char *argv[16];
	int a = 0;
	argv[a++] = "sqlite3";
	if (!write)
		argv[a++] = "-readonly";
	argv[a++] = "-cmd";
	argv[a++] = load;
	argv[a++] = "-cmd";
	argv[a++] = "PRAGMA trusted_schema=OFF";
	if (isatty(STDIN_FILENO)) {
		argv[a++] = "-cmd";
		argv[a++] = ".headers on";
		argv[a++] = "-cmd";
		argv[a++] = ".mode column";
	}
	/* sqlite3 has no "--": a path that looks like an option gets "./" */
	char dashed[PATH_MAX + 2];
	if (case_path[0] == '-') {
		snprintf(dashed, sizeof(dashed), "./%s", case_path);
		case_path = dashed;
	}
	argv[a++] = case_path;
	argv[a] = NULL;
	fflush(stdout);
	execvp("sqlite3", (char *const *)argv);
	diag_error("sql: cannot run sqlite3, the shell `sql` opens without a QUERY (apt-get install sqlite3);"
		   " or give the QUERY on the command line");
	return NF_EXIT_INTERNAL;
}
