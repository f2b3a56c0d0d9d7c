/*
 * main.c: gptop's command line: options and flags, then the batch report,
 * --check, or the interactive frontend when stdout is a terminal.
 *
 * Exit status: 0 success, 2 bad input (graph, data, flag or option), 1 an
 * internal failure.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "flags.h"
#include "op.h"
#include "report.h"
#include "session.h"
#include "tui.h"

enum {
	OPT_CHECK = 256,
	OPT_FLAGS,
	OPT_BATCH,
	OPT_LIST_OPS,
	OPT_SIG,
	OPT_ALLOW_EXTERN,
	OPT_HELP,
	OPT_VERSION,
};

static const struct option long_options[] = {
	{"batch", no_argument, NULL, OPT_BATCH},
	{"calls", required_argument, NULL, 'n'},
	{"check", no_argument, NULL, OPT_CHECK},
	{"delay", required_argument, NULL, 'd'},
	{"flags", required_argument, NULL, OPT_FLAGS},
	{"group-by-signature", no_argument, NULL, OPT_SIG},
	{"allow-extern", no_argument, NULL, OPT_ALLOW_EXTERN},
	{"list-ops", no_argument, NULL, OPT_LIST_OPS},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

static void
usage_short(FILE *fp)
{
	fprintf(fp,
	    "usage: gptop [OPTIONS] GRAPH.json\n"
	    "Try: gptop data/graphs/logreg.json   (examples in data/graphs/)\n"
	    "     gptop --help\n");
}

static void
usage_long(void)
{
	printf(
	    "Usage: gptop [OPTIONS] GRAPH.json\n"
	    "Run a computation graph call after call and show where its time\n"
	    "and memory go: live in the terminal, or as a text report.\n"
	    "\n"
	    "  -n, --calls N          run N rounds (each function once per\n"
	    "                         round); default 10 in batch mode,\n"
	    "                         unlimited interactively\n"
	    "  -d, --delay TENTHS     screen refresh interval (default 10)\n"
	    "      --batch            print the text report, no interface\n"
	    "                         (also when stdout is not a terminal)\n"
	    "      --check            validate the graph and summarize it\n"
	    "      --flags F=V,...    set flags (after GPTOP_FLAGS);\n"
	    "                         --flags help lists them\n"
	    "      --group-by-signature  split Ops rows by input dtypes and\n"
	    "                         shapes\n"
	    "      --allow-extern     allow extern ops (native code)\n"
	    "      --list-ops         list every op with its class\n"
	    "      --help             show this help and exit\n"
	    "      --version          show the version and exit\n"
	    "\n"
	    "Environment: GPTOP_FLAGS (like THEANO_FLAGS), NO_COLOR.\n"
	    "Exit status: 0 success, 1 internal failure, 2 bad input.\n"
	    "See gptop(1) and doc/guide.md.\n");
}

static int
parse_count(const char *s, const char *what, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s == '-' || *s == '\0')
		goto bad;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		goto bad;
	*out = v;
	return (0);
bad:
	fprintf(stderr, "gptop: %s: '%s' is not a non-negative integer\n",
	    what, s);
	return (-1);
}

static void
list_ops(void)
{
	size_t n;
	const struct gp_op *const *ops = gp_op_all(&n);

	for (size_t i = 0; i < n; i++)
		printf("%-32s %-28s %s\n", ops[i]->name, ops[i]->cls,
		    ops[i]->doc ? ops[i]->doc : "");
}

int
main(int argc, char **argv)
{
	struct gp_flags flags;
	struct gp_err err;
	struct gp_report_opts ro;
	struct gp_session *s;
	const char *env;
	uint64_t rounds = 0, delay = 10;
	bool have_rounds = false, batch = false, check = false;
	bool by_sig = false, allow_extern = false;
	const char *cli_flags = NULL;
	int c, rc;

	gp_flags_init(&flags);
	while ((c = getopt_long(argc, argv, "n:d:", long_options, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_count(optarg, "-n", &rounds) < 0)
				return (2);
			have_rounds = true;
			break;
		case 'd':
			if (parse_count(optarg, "-d", &delay) < 0)
				return (2);
			if (delay == 0) {
				fprintf(stderr, "gptop: -d: the delay must be "
				    "at least 1 (tenths of a second)\n");
				return (2);
			}
			break;
		case OPT_BATCH:
			batch = true;
			break;
		case OPT_CHECK:
			check = true;
			break;
		case OPT_FLAGS:
			if (strcmp(optarg, "help") == 0) {
				gp_flags_print_help(stdout);
				return (0);
			}
			cli_flags = optarg;
			break;
		case OPT_SIG:
			by_sig = true;
			break;
		case OPT_ALLOW_EXTERN:
			allow_extern = true;
			break;
		case OPT_LIST_OPS:
			list_ops();
			return (0);
		case OPT_HELP:
			usage_long();
			return (0);
		case OPT_VERSION:
			printf("gptop %s\n", PACKAGE_VERSION);
			return (0);
		default:
			usage_short(stderr);
			return (2);
		}
	}
	env = getenv("GPTOP_FLAGS");
	if (env != NULL && gp_flags_parse(&flags, env, "GPTOP_FLAGS",
	    &err) < 0) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		return (2);
	}
	if (cli_flags != NULL && gp_flags_parse(&flags, cli_flags, "--flags",
	    &err) < 0) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		return (2);
	}
	if (allow_extern)
		flags.allow_extern = true;
	if (optind >= argc) {
		usage_short(stderr);
		return (2);
	}
	if (argc - optind > 1) {
		fprintf(stderr, "gptop: one graph at a time (got %d "
		    "arguments)\n", argc - optind);
		return (2);
	}
	s = gp_session_open(argv[optind], &flags, &err);
	if (s == NULL) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		gp_flags_done(&flags);
		return (2);
	}
	if (check) {
		ui_batch_check(stdout, s);
		gp_session_free(s);
		gp_flags_done(&flags);
		return (0);
	}
	gp_report_opts_from_flags(&ro, &flags);
	ro.by_signature = by_sig;
	if (!batch && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
		struct ui_tui_opts to = {
			.limit = have_rounds ? rounds : 0,
			.delay_tenths = (int)delay,
			.by_signature = by_sig,
		};

		rc = ui_tui_run(s, &to);
		gp_session_free(s);
		gp_flags_done(&flags);
		return (rc);
	}
	if (!have_rounds)
		rounds = 10;
	rc = ui_batch_run(s, rounds, &ro);
	gp_session_free(s);
	gp_flags_done(&flags);
	return (rc);
}
