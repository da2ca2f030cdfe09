/* cmd_grammar.c: `ncclforensic grammar test|list`. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd_options.h"
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
	static const struct option opts[] = {
		{"grammar-dir", required_argument, NULL, 'g'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	char **av;
	argc = cmd_order_args(argc, argv, "hV", opts, &av);
	argv = av;
	cmd_getopt_begin();
	int c;
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (ndirs == ARRAY_LEN(dirs)) {
				diag_error("grammar: more than %zu --grammar-dir", ARRAY_LEN(dirs));
				return NF_EXIT_USAGE;
			}
			dirs[ndirs++] = optarg;
			break;
		case 'h': usage(stdout); return NF_EXIT_OK;
		case 'V': return cmd_version();
		default: return cmd_option_error("grammar", c, argv);
		}
	}
	if (argc - optind != 1)
		return cmd_args_error("grammar", optind >= argc ? "what to do (test or list)" : NULL, argv + optind + 1,
				      argc - optind - 1);
	action = argv[optind];
	if (strcmp(action, "test") != 0 && strcmp(action, "list") != 0) {
		diag_error("grammar: unknown action '%s' (test or list)", action);
		fprintf(stderr, "try '" NF_PROG " grammar --help'\n");
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
