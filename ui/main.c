/*
 * main.c: gptop's command line: options and flags, then the batch report,
 * --check, or the interactive frontend when stdout is a terminal.  The
 * argument is a graph or a capture (told apart by its "format" member):
 * a capture is reported like the run that saved it.  Also: --save (a
 * capture of the run), --diff A B, the exports, and `gptop merge`.
 *
 * Exit status: 0 success, 2 bad input (graph, capture, data, flag or
 * option, or an output that cannot be written), 1 an internal failure
 * (out of memory, stdout not written, exit() called by an extern
 * function), 128 + the signal when a quit signal (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT) cut a batch run short (after the report and the files
 * of what was collected are written).  A crash (a fault in the runtime or
 * in an extern function) gives the terminal back, says which signal and
 * what was running, and dies of that signal (ui/sig.c).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/advice.h"
#include "batch.h"
#include "capture/capture.h"
#include "crt.h"
#include "capture/diff.h"
#include "capture/export.h"
#include "base/flags.h"
#include "base/outfile.h"
#include "load/graph-json.h"
#include "graph/op.h"
#include "load/onnx-read.h"
#include "onnx.h"
#include "ops/par.h"
#include "conformance.h"
#include "prof/report.h"
#include "session/session.h"
#include "sig.h"
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
	OPT_SAVE,
	OPT_DIFF,
	OPT_EXPORT_TRACE,
	OPT_TRACE_CALLS,
	OPT_EXPORT_CSV,
	OPT_EXPORT_CSV_OPS,
	OPT_DIM,
	OPT_INPUT,
	OPT_CONFORMANCE,
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
	{"save", required_argument, NULL, OPT_SAVE},
	{"diff", no_argument, NULL, OPT_DIFF},
	{"export-trace", required_argument, NULL, OPT_EXPORT_TRACE},
	{"trace-calls", required_argument, NULL, OPT_TRACE_CALLS},
	{"export-csv", required_argument, NULL, OPT_EXPORT_CSV},
	{"export-csv-ops", required_argument, NULL, OPT_EXPORT_CSV_OPS},
	{"no-mouse", no_argument, NULL, 'M'},
	{"dim", required_argument, NULL, OPT_DIM},
	{"input", required_argument, NULL, OPT_INPUT},
	{"conformance", no_argument, NULL, OPT_CONFORMANCE},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

static void
usage_short(FILE *fp)
{
	fprintf(fp,
	    "usage: gptop [OPTIONS] GRAPH.json|MODEL.onnx|CAPTURE.json\n"
	    "       gptop A B        (the Diff view: A the baseline)\n"
	    "       gptop --batch --diff A B\n"
	    "       gptop merge CAPTURE... -o OUT\n"
	    "Try: gptop data/graphs/logreg.json   (examples in data/graphs/)\n"
	    "     gptop --help\n");
}

static void
usage_long(void)
{
	printf(
	    "Usage: gptop [OPTIONS] GRAPH.json|MODEL.onnx|CAPTURE.json\n"
	    "       gptop A B                    (the Diff view, A the baseline)\n"
	    "       gptop --batch --diff A B     (each a graph or a capture)\n"
	    "       gptop merge CAPTURE... -o OUT\n"
	    "       gptop --conformance DIR...   (ONNX backend test cases)\n"
	    "Run a computation graph call after call and show where its time\n"
	    "and memory go: live in the terminal, or as a text report.  A\n"
	    "capture (--save) opens in the interface without running, or\n"
	    "is reported like the run that saved it (--batch).  ONNX\n"
	    "Runtime's JSON profile of a model is read as a capture: diff\n"
	    "it against gptop's capture of the model (A B, --diff A B).\n"
	    "\n"
	    "  -n, --calls N          run N rounds (each function once per\n"
	    "                         round); default 10 in batch mode,\n"
	    "                         unlimited interactively\n"
	    "  -d, --delay TENTHS     screen refresh interval (default 10)\n"
	    "      --batch            print the text report, no interface\n"
	    "                         (also when stdout is not a terminal)\n"
	    "      --check            validate the graph (or model.onnx)\n"
	    "                         and summarize it\n"
	    "      --dim NAME=VALUE   bind a symbolic dim of an ONNX model\n"
	    "                         (repeatable; flag onnx__dims)\n"
	    "      --input NAME=FILE  an ONNX model's input from a .npy or\n"
	    "                         TensorProto .pb file (repeatable;\n"
	    "                         default: seeded random values)\n"
	    "      --conformance DIR...  run ONNX backend test cases (a\n"
	    "                         case folder, or a folder of them) and\n"
	    "                         compare with their expected outputs\n"
	    "      --flags F=V,...    set flags (after GPTOP_FLAGS);\n"
	    "                         --flags help lists them\n"
	    "      --group-by-signature  split Ops rows by input dtypes and\n"
	    "                         shapes\n"
	    "      --allow-extern     allow extern ops (native code)\n"
	    "      --list-ops         list every op with its class\n"
	    "      --save FILE        write a capture of the run (atomically)\n"
	    "      --diff             compare A (baseline) with B: Global,\n"
	    "                         Class, Ops, Apply; ~ marks noise\n"
	    "      --export-trace FILE  Chrome trace (Perfetto) of the run\n"
	    "      --trace-calls K    calls of each function kept in the\n"
	    "                         trace: the last K (default 20)\n"
	    "      --export-csv FILE  the Apply table as CSV\n"
	    "      --export-csv-ops FILE  the Ops table as CSV\n"
	    "  -M, --no-mouse         the interface leaves the mouse to the\n"
	    "                         terminal\n"
	    "      --help             show this help and exit\n"
	    "      --version          show the version and exit\n"
	    "\n"
	    "Environment: GPTOP_FLAGS (like THEANO_FLAGS), NO_COLOR.\n"
	    "Exit status: 0 success, 1 internal failure, 2 bad input;\n"
	    "128 + N when signal N (SIGINT, SIGTERM, SIGHUP, SIGQUIT) cut a\n"
	    "run short.\n"
	    "See gptop(1) and doc/guide.md.\n");
}

static int
parse_count(const char *s, const char *what, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s == '-' || *s == '\0')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		goto bad;
	if (errno == ERANGE) {
		fprintf(stderr, "gptop: %s: '%s' is too large (expected at "
		    "most %llu)\n", what, s, ULLONG_MAX);
		return (-1);
	}
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

/* Batch runs: a quit signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) stops the
 * run after the current round, so the report and the files of what was
 * collected are still written; a second signal, or a round that does not
 * end within the grace, ends gptop at once (ui/sig.c). */
static void
catch_signals(struct gp_session *s)
{
	ui_sig_catch_quit(s, true);
}

/* What the crash message says was running: the graph of session s, and
 * whether it calls native code. */
static void
crash_context(const char *path, struct gp_session *s)
{
	const struct gp_graph *g = gp_session_graph(s);
	bool ext = false;
	char *what;

	for (size_t i = 0; i < g->n_nodes && !ext; i++)
		ext = !g->nodes[i].dead && strcmp(g->nodes[i].op->name,
		    "extern") == 0;
	what = gp_xasprintf("running %s%s", path, ext ? " (its extern ops "
	    "run native code)" : "");
	ui_sig_context(what);
	free(what);
}

static int
exit_status(int rc)
{
	if (ui_sig_quit() != 0)
		return (128 + ui_sig_quit());
	return (rc);
}

/* The flags: defaults, then base (a capture's, when not NULL), then
 * GPTOP_FLAGS, then --flags. */
/* --dim and --input, repeatable: "NAME=V:NAME=V", after the flags
 * onnx__dims and onnx__inputs of GPTOP_FLAGS and --flags */
static struct gp_buf onnx_dims, onnx_inputs;

static void
onnx_opt_add(struct gp_buf *b, const char *arg)
{
	gp_buf_printf(b, "%s%s", gp_buf_str(b)[0] != '\0' ? ":" : "", arg);
}

static void
onnx_opt_merge(char **flag, const struct gp_buf *b)
{
	char *v;

	if (gp_buf_str(b)[0] == '\0')
		return;
	v = *flag != NULL && (*flag)[0] != '\0' ?
	    gp_xasprintf("%s:%s", *flag, gp_buf_str(b)) :
	    gp_xstrdup(gp_buf_str(b));
	free(*flag);
	*flag = v;
}

static int
make_flags(struct gp_flags *f, const char *base, const char *cli,
    bool allow_extern)
{
	const char *env = getenv("GPTOP_FLAGS");
	struct gp_err err;

	gp_flags_init(f);
	if (base != NULL && base[0] != '\0') {
		if (gp_flags_parse(f, base, "capture flags", &err) < 0) {
			/* a newer gptop's flags: report with the defaults */
			fprintf(stderr, "gptop: %s (ignored)\n", err.msg);
			gp_flags_done(f);
			gp_flags_init(f);
		}
		/* never write to the file the capturing run wrote to */
		free(f->destination);
		f->destination = gp_xstrdup("stdout");
	}
	if ((env != NULL && gp_flags_parse(f, env, "GPTOP_FLAGS", &err) < 0) ||
	    (cli != NULL && gp_flags_parse(f, cli, "--flags", &err) < 0)) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		gp_flags_done(f);
		return (-1);
	}
	if (allow_extern)
		f->allow_extern = true;
	onnx_opt_merge(&f->onnx_dims, &onnx_dims);
	onnx_opt_merge(&f->onnx_inputs, &onnx_inputs);
	return (0);
}

struct outputs {
	const char	*save;
	const char	*trace;
	const char	*csv;
	const char	*csv_ops;
	uint64_t	 trace_calls;
};

struct named_file {
	const char	*what;	/* "--save", "the input" */
	const char	*path;	/* NULL: not given */
};

/* Refuse (2, naming both) any output that is the same file as an input
 * (a capture written over the graph it ran) or as another output (one
 * write lost to the other); 0 when all differ. */
static int
check_overlap(const struct named_file *in, int n_in,
    const struct named_file *out, int n_out)
{
	const char **paths = gp_xcalloc((size_t)(n_in + n_out) + 1,
	    sizeof(*paths));
	int o, w, rc = 0;

	for (int i = 0; i < n_in + n_out; i++)
		paths[i] = i < n_in ? in[i].path : out[i - n_in].path;
	if (gp_outfile_clash(paths, n_in, n_in + n_out, &o, &w)) {
		const struct named_file *f = w < n_in ? &in[w] :
		    &out[w - n_in];

		fprintf(stderr, "gptop: %s %s is the same file as %s %s: "
		    "refusing to write over it\n", out[o - n_in].what,
		    out[o - n_in].path, f->what, f->path);
		rc = 2;
	}
	free(paths);
	return (rc);
}

/* The outputs of a run or report of input (dest: profiling__destination,
 * a file unless "stdout" or "stderr"), checked by check_overlap, then
 * each tried (gp_outfile_check): 0, or 2 with the message printed. */
static int
check_outputs(const char *input, const struct outputs *out,
    const char *dest)
{
	const struct named_file in[] = {{"the input", input}};
	const struct named_file o[] = {
		{"--save", out->save},
		{"--export-trace", out->trace},
		{"--export-csv", out->csv},
		{"--export-csv-ops", out->csv_ops},
		{"profiling__destination", dest == NULL ||
		    strcmp(dest, "stdout") == 0 || strcmp(dest, "stderr") == 0 ?
		    NULL : dest},
	};

	int n = (int)(sizeof(o) / sizeof(o[0]));
	struct gp_err err;

	if (check_overlap(in, 1, o, n) != 0)
		return (2);
	/* a path that cannot be written fails now, not after the run */
	for (int i = 0; i < n; i++)
		if (o[i].path != NULL && gp_outfile_check(o[i].path, &err) <
		    0) {
			fprintf(stderr, "gptop: %s: %s\n", o[i].what,
			    err.msg);
			return (2);
		}
	return (0);
}

/* --save, --export-csv, --export-csv-ops of profile p (ci: the capture's
 * info when p was loaded, to keep it on a re-save). */
static int
write_outputs(const struct outputs *out, const struct gp_profile *p,
    const struct gp_capture_info *ci)
{
	struct gp_err err;
	int rc = 0;

	if (out->save != NULL && gp_capture_save_info(p, ci, out->save,
	    &err) < 0) {
		fprintf(stderr, "gptop: --save: %s\n", err.msg);
		rc = 2;
	}
	if (out->csv != NULL && gp_export_csv_applies(p, out->csv,
	    &err) < 0) {
		fprintf(stderr, "gptop: --export-csv: %s\n", err.msg);
		rc = 2;
	}
	if (out->csv_ops != NULL && gp_export_csv_ops(p, out->csv_ops,
	    &err) < 0) {
		fprintf(stderr, "gptop: --export-csv-ops: %s\n", err.msg);
		rc = 2;
	}
	return (rc);
}

/* `gptop --batch CAPTURE`: the report of the run that saved it. */
static int
report_capture(const char *path, const char *cli, bool allow_extern,
    bool by_sig, bool check, const struct outputs *out)
{
	struct gp_capture_info ci;
	struct gp_report_opts ro;
	struct gp_profile *p;
	struct gp_flags flags;
	struct gp_err err;
	uint64_t calls = 0;
	struct gp_outfile of;
	FILE *fp;
	int rc;

	if (out->trace != NULL) {
		fprintf(stderr, "gptop: --export-trace needs a run: %s is a "
		    "capture, which keeps no trace of its calls (at most "
		    "the two its Timeline draws)\n", path);
		return (2);
	}
	if ((p = gp_capture_load(path, &ci, &err)) == NULL) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		return (2);
	}
	for (int f = 0; f < p->n_fn; f++)
		calls += p->fn[f].call.n;
	if (check) {
		printf("%s: capture of graph %s is valid (%s)\n", path,
		    p->graph, GP_CAPTURE_FORMAT);
		printf("  %d function%s, %llu call%s, captured %s on %s\n",
		    p->n_fn, p->n_fn == 1 ? "" : "s",
		    (unsigned long long)calls, calls == 1 ? "" : "s",
		    ci.created ? ci.created : "?", ci.cpu ? ci.cpu : "?");
		gp_capture_info_done(&ci);
		gp_profile_free(p);
		return (0);
	}
	if (make_flags(&flags, p->flags, cli, allow_extern) < 0) {
		gp_capture_info_done(&ci);
		gp_profile_free(p);
		return (2);
	}
	if (check_outputs(path, out, flags.destination) != 0) {
		gp_flags_done(&flags);
		gp_capture_info_done(&ci);
		gp_profile_free(p);
		return (2);
	}
	gp_report_opts_from_flags(&ro, &flags);
	ro.by_signature = by_sig;
	printf("gptop: capture %s: graph %s (%s), %llu call%s, captured %s "
	    "on %s\n", path, p->graph, p->path, (unsigned long long)calls,
	    calls == 1 ? "" : "s", ci.created ? ci.created : "?",
	    ci.cpu ? ci.cpu : "?");
	fflush(stdout);
	rc = 0;
	fp = ui_batch_open_destination(flags.destination, &of, &err);
	if (fp == NULL) {
		fprintf(stderr, "gptop: profiling__destination: %s\n",
		    err.msg);
		rc = 2;
	} else {
		if (fp == stdout)
			fprintf(fp, "\n");
		gp_report_all(fp, p, &ro);
		gp_advice_report(fp, p, -1, ro.width);
		if (ui_batch_close_destination(fp, &of, &err) != 0) {
			fprintf(stderr, "gptop: profiling__destination: %s\n",
			    err.msg);
			rc = 2;
		}
	}
	if (rc == 0)
		rc = write_outputs(out, p, &ci);
	gp_flags_done(&flags);
	gp_capture_info_done(&ci);
	gp_profile_free(p);
	return (rc);
}

/* One side of --diff: a capture, loaded; or a graph, run `rounds` rounds. */
static struct gp_profile *
diff_side(const char *path, const struct gp_flags *flags, uint64_t rounds,
    struct gp_capture_info *ci, bool *have_ci)
{
	struct gp_session *s;
	struct gp_profile *p;
	struct gp_err err;
	int kind;

	*have_ci = false;
	if ((kind = gp_capture_detect(path, &err)) < 0) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		return (NULL);
	}
	if (kind == 1) {
		if ((p = gp_capture_load(path, ci, &err)) == NULL)
			fprintf(stderr, "gptop: %s\n", err.msg);
		*have_ci = p != NULL;
		return (p);
	}
	if ((s = gp_session_open(path, flags, &err)) == NULL) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		return (NULL);
	}
	crash_context(path, s);
	catch_signals(s);
	/* after a signal during the first side's run, run nothing more */
	if (ui_sig_quit() == 0)
		gp_session_run(s, -1, rounds);
	ui_sig_settled();
	p = gp_profile_clone(gp_session_profile(s));
	gp_session_free(s);
	return (p);
}

/*
 * The interface over captures: `gptop CAPTURE` shows pa (nothing runs);
 * `gptop A B` opens the Diff view with A (a capture, or a graph run
 * `rounds` rounds) as the baseline and B, a capture or a graph then run
 * live, as the current profile.
 */
static int
tui_captures(const char *pa, const char *pb, const struct gp_flags *flags,
    uint64_t rounds, struct ui_tui_opts *to)
{
	struct gp_capture_info ca, cb;
	struct gp_profile *a, *b = NULL;
	struct gp_session *s = NULL;
	struct gp_err err;
	bool hca = false;
	int kind, rc = 2;

	if (pb == NULL) {
		if ((a = gp_capture_load(pa, &ca, &err)) == NULL) {
			fprintf(stderr, "gptop: %s\n", err.msg);
			return (2);
		}
		to->capture = a;
		rc = ui_tui_run(NULL, to);
		gp_capture_info_done(&ca);
		gp_profile_free(a);
		return (rc);
	}
	if ((a = diff_side(pa, flags, rounds, &ca, &hca)) == NULL)
		return (2);
	if (ui_sig_quit() != 0) {
		rc = 128 + ui_sig_quit();
		goto out;
	}
	if ((kind = gp_capture_detect(pb, &err)) < 0) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		goto out;
	}
	to->baseline = a;
	if (kind == 1) {
		if ((b = gp_capture_load(pb, &cb, &err)) == NULL) {
			fprintf(stderr, "gptop: %s\n", err.msg);
			goto out;
		}
		gp_capture_info_done(&cb);
		to->capture = b;
	} else if ((s = gp_session_open(pb, flags, &err)) == NULL) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		goto out;
	} else
		crash_context(pb, s);
	rc = ui_tui_run(s, to);
	gp_session_free(s);
out:
	if (hca)
		gp_capture_info_done(&ca);
	gp_profile_free(a);
	gp_profile_free(b);
	return (rc);
}

static int
run_diff(const char *pa, const char *pb, const struct gp_flags *flags,
    uint64_t rounds)
{
	struct gp_capture_info ca, cb;
	struct gp_diff_report_opts o = {0};
	struct gp_diff_opts dopts;
	struct gp_profile *a, *b = NULL;
	struct gp_diff *d;
	bool hca = false, hcb = false;
	int rc = 2;

	if ((a = diff_side(pa, flags, rounds, &ca, &hca)) == NULL ||
	    (b = diff_side(pb, flags, rounds, &cb, &hcb)) == NULL)
		goto out;
	gp_diff_opts_init(&dopts);
	/* runs of different lengths: compare per call */
	dopts.per_call = gp_diff_calls_differ(a, b);
	d = gp_diff_compute(a, b, &dopts);
	o.n_ops = (int)flags->n_ops;
	o.n_apply = (int)flags->n_apply;
	o.width = (int)flags->output_line_width;
	o.label_a = pa;
	o.label_b = pb;
	o.info_a = hca ? &ca : NULL;
	o.info_b = hcb ? &cb : NULL;
	gp_diff_report(stdout, d, &o);
	gp_diff_free(d);
	rc = 0;
out:
	if (hca)
		gp_capture_info_done(&ca);
	if (hcb)
		gp_capture_info_done(&cb);
	gp_profile_free(a);
	gp_profile_free(b);
	return (rc);
}

/* `gptop merge A B ... -o OUT` */
static int
cmd_merge(int argc, char **argv)
{
	const char *out = NULL;
	const char **paths = gp_xcalloc((size_t)argc + 1, sizeof(*paths));
	struct gp_profile **ps = gp_xcalloc((size_t)argc + 1, sizeof(*ps));
	struct gp_capture_info *ci = gp_xcalloc((size_t)argc + 1,
	    sizeof(*ci));
	struct gp_capture_info oci;
	struct gp_profile *m = NULL;
	struct gp_err err;
	uint64_t calls = 0;
	int n = 0, rc = 2;

	catch_signals(NULL);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i],
		    "--output") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "gptop merge: %s needs a file "
				    "name\n", argv[i]);
				goto out;
			}
			out = argv[++i];
		} else if (strncmp(argv[i], "-o", 2) == 0)
			out = argv[i] + 2;
		else if (strcmp(argv[i], "--help") == 0) {
			printf("Usage: gptop merge CAPTURE... -o OUT\n"
			    "Sum captures of one graph and rewrite set "
			    "(calls, times, histograms) into OUT.\n");
			rc = 0;
			goto out;
		} else
			paths[n++] = argv[i];
	}
	if (out == NULL || n == 0) {
		fprintf(stderr, "usage: gptop merge CAPTURE... -o OUT\n");
		goto out;
	}
	{
		struct named_file *in = gp_xcalloc((size_t)n, sizeof(*in));
		const struct named_file o = {"-o", out};
		int orc;

		for (int i = 0; i < n; i++)
			in[i] = (struct named_file){"the input", paths[i]};
		orc = check_overlap(in, n, &o, 1);
		free(in);
		if (orc != 0)
			goto out;
		if (gp_outfile_check(out, &err) < 0) {
			fprintf(stderr, "gptop merge: -o: %s\n", err.msg);
			goto out;
		}
	}
	for (int i = 0; i < n; i++)
		if ((ps[i] = gp_capture_load(paths[i], &ci[i], &err)) == NULL) {
			fprintf(stderr, "gptop merge: %s\n", err.msg);
			goto out;
		}
	m = gp_capture_merge(ps, ci, paths, n, &oci, &err);
	if (m == NULL) {
		fprintf(stderr, "gptop merge: %s\n", err.msg);
		goto out;
	}
	if (gp_capture_save_info(m, &oci, out, &err) < 0)
		fprintf(stderr, "gptop merge: %s\n", err.msg);
	else {
		for (int f = 0; f < m->n_fn; f++)
			calls += m->fn[f].call.n;
		printf("gptop: merged %d capture%s (%llu call%s) into %s\n",
		    n, n == 1 ? "" : "s", (unsigned long long)calls,
		    calls == 1 ? "" : "s", out);
		rc = 0;
	}
	gp_capture_info_done(&oci);
out:
	for (int i = 0; i < n; i++) {
		gp_profile_free(ps[i]);
		gp_capture_info_done(&ci[i]);
	}
	gp_profile_free(m);
	free(ps);
	free(ci);
	free(paths);
	return (rc);
}

/* Whether every write to stdout went through (its close too): a report
 * that did not reach its reader is a failure, not a success.  Says so and
 * turns status 0 into 1. */
static int
finish_stdout(int rc)
{
	bool failed;
	int e;

	errno = 0;
	failed = fflush(stdout) != 0;
	e = errno;
	if (ferror(stdout))
		failed = true;
	if (fclose(stdout) != 0 && !failed) {
		failed = true;
		e = errno;
	}
	if (!failed)
		return (rc);
	if (e != 0)
		fprintf(stderr, "gptop: cannot write the standard output: "
		    "%s\n", strerror(e));
	else
		fprintf(stderr, "gptop: cannot write the standard output "
		    "(a write failed)\n");
	return (rc == 0 ? 1 : rc);
}

static int
run(int argc, char **argv)
{
	struct gp_flags flags;
	struct gp_err err;
	struct gp_report_opts ro;
	struct gp_session *s;
	struct outputs out = {.trace_calls = GP_TRACE_CALLS_DEFAULT};
	struct gp_trace *tr = NULL;
	uint64_t rounds = 0, delay = 10;
	bool have_rounds = false, batch = false, check = false;
	bool no_mouse = false, interactive;
	struct ui_tui_opts to = {0};
	bool by_sig = false, allow_extern = false, diff = false;
	bool conformance = false;
	const char *cli_flags = NULL;
	int c, rc, kind;

	if (argc >= 2 && strcmp(argv[1], "merge") == 0)
		return (exit_status(cmd_merge(argc - 1, argv + 1)));
	opterr = 0;	/* one message of our own, below */
	while ((c = getopt_long(argc, argv, ":n:d:M", long_options,
	    NULL)) != -1) {
		switch (c) {
		case ':':
			fprintf(stderr, "gptop: option '%s' needs a value "
			    "(gptop --help lists the options)\n",
			    argv[optind - 1]);
			return (2);
		case '?':
			if (optopt != 0)
				fprintf(stderr, "gptop: unknown option '-%c' "
				    "(gptop --help lists the options)\n",
				    optopt);
			else
				fprintf(stderr, "gptop: unknown option '%s' "
				    "(gptop --help lists the options)\n",
				    argv[optind - 1]);
			return (2);
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
		case 'M':
			no_mouse = true;
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
		case OPT_SAVE:
			out.save = optarg;
			break;
		case OPT_DIFF:
			diff = true;
			break;
		case OPT_EXPORT_TRACE:
			out.trace = optarg;
			break;
		case OPT_TRACE_CALLS:
			if (parse_count(optarg, "--trace-calls",
			    &out.trace_calls) < 0)
				return (2);
			if (out.trace_calls == 0 || out.trace_calls >
			    1000000) {
				fprintf(stderr, "gptop: --trace-calls: between "
				    "1 and 1000000\n");
				return (2);
			}
			break;
		case OPT_EXPORT_CSV:
			out.csv = optarg;
			break;
		case OPT_EXPORT_CSV_OPS:
			out.csv_ops = optarg;
			break;
		case OPT_DIM:
			onnx_opt_add(&onnx_dims, optarg);
			break;
		case OPT_INPUT:
			onnx_opt_add(&onnx_inputs, optarg);
			break;
		case OPT_CONFORMANCE:
			conformance = true;
			break;
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
	if (optind >= argc) {
		usage_short(stderr);
		return (2);
	}
	if (!have_rounds)
		rounds = 10;
	if (conformance) {
		if (make_flags(&flags, NULL, cli_flags, allow_extern) < 0)
			return (2);
		rc = ui_conformance_main(argc - optind, argv + optind, &flags);
		gp_flags_done(&flags);
		return (exit_status(rc));
	}
	if (diff) {
		if (argc - optind != 2) {
			fprintf(stderr, "gptop: --diff compares two profiles: "
			    "A (the baseline) and B (got %d argument%s)\n",
			    argc - optind, argc - optind == 1 ? "" : "s");
			return (2);
		}
		if (out.save != NULL || out.trace != NULL || out.csv != NULL ||
		    out.csv_ops != NULL || check) {
			fprintf(stderr, "gptop: --diff prints a report only "
			    "(save or export each side on its own)\n");
			return (2);
		}
		if (make_flags(&flags, NULL, cli_flags, allow_extern) < 0)
			return (2);
		rc = run_diff(argv[optind], argv[optind + 1], &flags, rounds);
		gp_flags_done(&flags);
		return (exit_status(rc));
	}
	if (batch && check) {
		fprintf(stderr, "gptop: --check validates without running: "
		    "use it or --batch, not both\n");
		return (2);
	}
	interactive = !batch && !check && isatty(STDOUT_FILENO) &&
	    isatty(STDIN_FILENO) && out.save == NULL && out.trace == NULL &&
	    out.csv == NULL && out.csv_ops == NULL;
	if (!interactive)
		catch_signals(NULL);	/* a --save of a capture, too */
	to.limit = have_rounds ? rounds : 0;
	to.delay_tenths = (int)delay;
	to.by_signature = by_sig;
	to.no_mouse = no_mouse;
	if (argc - optind == 2 && interactive) {
		/* A (baseline) and B on a terminal: the Diff view */
		if (make_flags(&flags, NULL, cli_flags, allow_extern) < 0)
			return (2);
		rc = tui_captures(argv[optind], argv[optind + 1], &flags,
		    rounds, &to);
		gp_flags_done(&flags);
		return (rc);
	}
	if (argc - optind > 1) {
		fprintf(stderr, "gptop: one graph at a time (got %d "
		    "arguments; --diff compares two)\n", argc - optind);
		return (2);
	}
	if (gp_onnx_is_model_path(argv[optind]) && check) {
		if (make_flags(&flags, NULL, cli_flags, allow_extern) < 0)
			return (2);
		rc = ui_onnx_check(argv[optind], &flags);
		gp_flags_done(&flags);
		return (rc);
	}
	if (gp_onnx_is_model_path(argv[optind]))
		kind = 0;	/* a model: run like a graph */
	else if ((kind = gp_capture_detect(argv[optind], &err)) < 0) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		return (2);
	}
	if (kind == 1) {
		if (interactive)
			return (tui_captures(argv[optind], NULL, NULL, 0,
			    &to));
		return (exit_status(report_capture(argv[optind], cli_flags,
		    allow_extern, by_sig, check, &out)));
	}
	if (make_flags(&flags, NULL, cli_flags, allow_extern) < 0)
		return (2);
	if (!check && check_outputs(argv[optind], &out,
	    flags.profile && !interactive ? flags.destination : NULL) != 0) {
		gp_flags_done(&flags);
		return (2);
	}
	if (check) {
		/* validation is the loader's: parse, resolve, infer every
		 * type, find cycles; nothing is rewritten, linked or run */
		struct gp_load_opts lo = {
			.limit_bytes = (uint64_t)flags.memory_limit,
			.allow_extern = flags.allow_extern,
		};
		struct gp_graph *g = gp_graph_load(argv[optind], &lo, &err);

		gp_flags_done(&flags);
		if (g == NULL) {
			fprintf(stderr, "gptop: %s\n", err.msg);
			return (2);
		}
		ui_batch_check(stdout, g);
		gp_graph_free(g);
		return (exit_status(0));
	}
	s = gp_session_open(argv[optind], &flags, &err);
	if (s == NULL) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		gp_flags_done(&flags);
		return (2);
	}
	crash_context(argv[optind], s);
	gp_report_opts_from_flags(&ro, &flags);
	ro.by_signature = by_sig;
	if (interactive) {
		rc = ui_tui_run(s, &to);
		gp_session_free(s);
		gp_flags_done(&flags);
		return (rc);
	}
	if (out.trace != NULL)
		tr = gp_export_trace_new(gp_session_profile(s),
		    gp_session_vm(s), (int)out.trace_calls);
	else if (out.save != NULL) {
		/* the capture keeps each function's last and median timed
		 * call for the Timeline: recorded as the interface's worker
		 * does, sampling left as it is */
		tr = gp_export_trace_new(gp_session_profile(s), NULL,
		    GP_TRACE_CALLS_DRAWN);
		gp_session_profile(s)->tracer_sampled = true;
	}
	catch_signals(s);
	rc = ui_batch_run(s, rounds, &ro);
	ui_sig_settled();
	if (tr != NULL) {
		gp_export_trace_stop(tr);
		if (out.save != NULL)
			gp_export_trace_keep(tr, gp_session_profile(s));
	}
	if (tr != NULL && out.trace != NULL) {
		if (gp_export_trace_write(tr, out.trace, &err) < 0) {
			fprintf(stderr, "gptop: --export-trace: %s\n",
			    err.msg);
			rc = 2;
		}
	}
	gp_export_trace_free(tr);
	{
		int orc = write_outputs(&out, gp_session_profile(s), NULL);

		if (rc == 0)
			rc = orc;
	}
	gp_session_free(s);
	gp_flags_done(&flags);
	return (exit_status(rc));
}

int
main(int argc, char **argv)
{
	gp_par_init(argv);
	ui_sig_init();
	return (finish_stdout(run(argc, argv)));
}
