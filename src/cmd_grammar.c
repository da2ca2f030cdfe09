/* cmd_grammar.c: `ncclforensic grammar test|list`. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "grammar.h"
#include "util.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: " NF_PROG " grammar test|list [--grammar-dir DIR]...\n"
		     "  test   run every rule's sample lines through the parser; fail on any mismatch\n"
		     "  list   print the rules: name, family, class, file\n");
}

int cmd_grammar(int argc, char **argv)
{
	const char *dirs[64];
	size_t ndirs = 0;
	const char *action = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--grammar-dir") == 0 && i + 1 < argc && ndirs < ARRAY_LEN(dirs)) {
			dirs[ndirs++] = argv[++i];
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return NF_EXIT_OK;
		} else if (!action && argv[i][0] != '-') {
			action = argv[i];
		} else {
			usage(stderr);
			return NF_EXIT_USAGE;
		}
	}
	if (!action) {
		usage(stderr);
		return NF_EXIT_USAGE;
	}
	struct grammar *g = grammar_new();
	struct errbuf err;
	if (grammar_load_default(g, dirs, ndirs, &err) < 0) {
		diag_error("%s", err.msg);
		grammar_free(g);
		return NF_EXIT_INPUT;
	}
	int rc = NF_EXIT_OK;
	if (strcmp(action, "test") == 0) {
		int checked = 0;
		int failures = grammar_selftest(g, stderr, &checked);
		printf("%zu rules, %d samples checked, %d failures\n", grammar_rule_count(g), checked, failures);
		rc = failures ? NF_EXIT_INPUT : NF_EXIT_OK;
	} else if (strcmp(action, "list") == 0) {
		for (size_t i = 0; i < grammar_rule_count(g); i++) {
			const struct rule *r = grammar_rule(g, i);
			int f = rule_family(r);
			printf("%-32s %-7s %-9s %s\n", rule_name(r), f == FAM_ANY ? "any" : family_name(f),
			       rule_class(r), rule_file(r));
		}
	} else {
		usage(stderr);
		rc = NF_EXIT_USAGE;
	}
	grammar_free(g);
	return rc;
}
