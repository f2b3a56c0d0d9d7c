/*
 * batch.c: the batch frontend (see batch.h).  Used for --batch, whenever
 * stdout is not a terminal, and for --check.
 */
#include "config.h"

#include "batch.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "prof/advice.h"
#include "sig.h"
#include "run/vm.h"

static void
checksum(FILE *fp, const char *label, const char *name,
    const struct gp_tensor *t)
{
	struct gp_buf b = {0};
	int64_t n = gp_tensor_numel(t);
	double sum = 0, mn = INFINITY, mx = -INFINITY;

	gp_shape_format(&b, t->ndim, t->shape);
	for (int64_t i = 0; i < n; i++) {
		double v = gp_tensor_get(t, i);

		sum += v;
		if (v < mn)
			mn = v;
		if (v > mx)
			mx = v;
	}
	fprintf(fp, "  %s %s: %s%s", label, name, gp_dtype_name(t->dtype),
	    gp_buf_str(&b));
	if (n > 0) {
		fprintf(fp, " sum=%.10g min=%.10g max=%.10g first=[", sum, mn,
		    mx);
		for (int64_t i = 0; i < n && i < 4; i++)
			fprintf(fp, "%s%.6g", i ? ", " : "", gp_tensor_get(t, i));
		fprintf(fp, "%s]", n > 4 ? ", ..." : "");
	}
	fprintf(fp, "\n");
	gp_buf_free(&b);
}

void
ui_batch_outputs(FILE *fp, struct gp_session *s)
{
	struct gp_graph *g = gp_session_graph(s);
	struct gp_vm *vm = gp_session_vm(s);

	for (size_t f = 0; f < g->n_fns; f++) {
		const struct gp_function *fn = &g->fns[f];

		fprintf(fp, "function %s:\n", fn->name);
		for (int k = 0; k < fn->n_out; k++) {
			const struct gp_tensor *t = gp_vm_output(vm, (int)f, k);

			/* -n 0: no call ran (an empty output has
			 * no storage either) */
			if (t->storage == NULL && gp_tensor_numel(t) > 0)
				fprintf(fp, "  output %s: not computed\n",
				    fn->out_name[k]);
			else
				checksum(fp, "output", fn->out_name[k], t);
		}
	}
	for (size_t v = 0; v < g->n_vars; v++)
		if (g->vars[v].kind == GP_VAR_SHARED)
			checksum(fp, "shared", g->vars[v].name,
			    &g->vars[v].value);
}

FILE *
ui_batch_open_destination(const char *dest, struct gp_outfile *of,
    struct gp_err *err)
{
	memset(of, 0, sizeof(*of));
	of->slot = -1;
	if (dest == NULL || strcmp(dest, "stdout") == 0)
		return (stdout);
	if (strcmp(dest, "stderr") == 0)
		return (stderr);
	return (gp_outfile_open(of, dest, err));
}

int
ui_batch_close_destination(FILE *fp, struct gp_outfile *of,
    struct gp_err *err)
{
	if (of->fp == NULL || fp != of->fp)
		return (0);	/* a standard stream */
	return (gp_outfile_commit(of, err));
}

int
ui_batch_run(struct gp_session *s, uint64_t rounds,
    const struct gp_report_opts *ro)
{
	const struct gp_flags *fl = gp_session_flags(s);
	struct gp_outfile of;
	struct gp_err err;
	FILE *fp;

	gp_session_run(s, -1, rounds);
	ui_sig_settled();	/* a quit signal's grace: the run stopped */
	rounds = gp_session_rounds(s);
	printf("gptop: %llu round%s of %s\n", (unsigned long long)rounds,
	    rounds == 1 ? "" : "s", gp_session_graph(s)->path);
	ui_batch_outputs(stdout, s);
	if (!fl->profile)
		return (0);
	fflush(stdout);
	fp = ui_batch_open_destination(fl->destination, &of, &err);
	if (fp == NULL) {
		fprintf(stderr, "gptop: profiling__destination: %s\n",
		    err.msg);
		return (2);
	}
	if (fp == stdout)
		fprintf(fp, "\n");
	gp_report_all(fp, gp_session_profile(s), ro);
	gp_advice_report(fp, gp_session_profile(s), -1, ro->width);
	if (ui_batch_close_destination(fp, &of, &err) != 0) {
		fprintf(stderr, "gptop: profiling__destination: %s\n",
		    err.msg);
		return (2);
	}
	return (0);
}

void
ui_batch_check(FILE *fp, const struct gp_graph *g)
{	uint64_t in_bytes = 0, shared_bytes = 0, const_bytes = 0;
	size_t live = 0;

	for (size_t i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i].dead)
			live++;
	fprintf(fp, "%s: graph %s is valid\n", g->path, g->name);
	fprintf(fp, "  %zu function%s, %zu apply node%s\n", g->n_fns,
	    g->n_fns == 1 ? "" : "s", live, live == 1 ? "" : "s");
	for (size_t f = 0; f < g->n_fns; f++) {
		const struct gp_function *fn = &g->fns[f];

		fprintf(fp, "  function %s: %d output%s, %d update%s\n",
		    fn->name, fn->n_out, fn->n_out == 1 ? "" : "s", fn->n_upd,
		    fn->n_upd == 1 ? "" : "s");
	}
	fprintf(fp, "  variables:\n");
	for (size_t v = 0; v < g->n_vars; v++) {
		const struct gp_var *var = &g->vars[v];
		static const char *const kinds[] = {"input", "shared",
			"constant", "temp"};
		struct gp_buf b = {0};
		size_t nb = gp_type_nbytes(&var->type);

		if (var->kind == GP_VAR_TEMP)
			continue;
		gp_type_format(&b, &var->type);
		fprintf(fp, "    %-8s %-24s %s (%zu bytes)\n", kinds[var->kind],
		    var->name, gp_buf_str(&b), nb);
		gp_buf_free(&b);
		if (var->kind == GP_VAR_INPUT)
			in_bytes += nb;
		else if (var->kind == GP_VAR_SHARED)
			shared_bytes += nb;
		else
			const_bytes += nb;
	}
	fprintf(fp, "  bytes: inputs %llu, shared %llu, constants %llu\n",
	    (unsigned long long)in_bytes, (unsigned long long)shared_bytes,
	    (unsigned long long)const_bytes);
}
