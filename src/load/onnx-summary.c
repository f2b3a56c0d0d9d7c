/*
 * onnx-summary.c: prints what `gptop --check model.onnx` shows of an ONNX
 * model (see onnx-summary.h).  The op types are the main graph's nodes,
 * most frequent first, prefixed with their domain when it is not ONNX's
 * default one.
 */
#include "config.h"

#include "load/onnx-summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "load/onnx-map.h"

struct op_count {
	char	*name;
	size_t	 n;
};

static int
by_count(const void *a, const void *b)
{
	const struct op_count *x = a, *y = b;

	if (x->n != y->n)
		return (x->n < y->n ? 1 : -1);
	return (strcmp(x->name, y->name));
}

static const char *
str(const char *s)
{
	return (s != NULL ? s : "");
}

/* "float32(batch, 784)" of a graph input or output. */
static void
io_print(FILE *fp, const struct gp_onnx_io *io)
{
	fprintf(fp, "    %-24s ", io->name);
	if (strcmp(io->kind, "tensor") != 0) {
		fprintf(fp, "%s", io->kind);
		if (io->elem_type != 0)
			fprintf(fp, " %s", gp_onnx_dtype_name(io->elem_type));
		fprintf(fp, "\n");
		return;
	}
	fprintf(fp, "%s", gp_onnx_dtype_name(io->elem_type));
	if (io->ndim < 0) {
		fprintf(fp, " (shape not given)\n");
		return;
	}
	fprintf(fp, "(");
	for (int d = 0; d < io->ndim; d++) {
		if (d > 0)
			fprintf(fp, ", ");
		if (io->dims[d].param != NULL)
			fprintf(fp, "%s", io->dims[d].param);
		else if (io->dims[d].value >= 0)
			fprintf(fp, "%" PRId64, io->dims[d].value);
		else
			fprintf(fp, "?");
	}
	fprintf(fp, "%s)\n", io->ndim == 1 ? "," : "");
}

void
gp_onnx_summary_print(FILE *fp, const struct gp_onnx_model *m)
{
	const Onnx__ModelProto *p = m->proto;
	const Onnx__GraphProto *g = m->graph;
	struct op_count *ops = gp_xcalloc(g->n_node + 1, sizeof(*ops));
	size_t n_ops = 0;
	int unsupported = 0;
	struct gp_err err = {{0}};

	fprintf(fp, "%s: ONNX model is valid\n", m->path);
	fprintf(fp, "  producer: %s%s%s, ir_version %" PRId64 "\n",
	    p->producer_name != NULL && p->producer_name[0] != '\0' ?
	    p->producer_name : "(none)", p->producer_version != NULL &&
	    p->producer_version[0] != '\0' ? " " : "",
	    str(p->producer_version), p->ir_version);
	fprintf(fp, "  opsets:");
	for (size_t i = 0; i < p->n_opset_import; i++) {
		const char *d = str(p->opset_import[i]->domain);

		fprintf(fp, "%s %s %" PRId64, i ? "," : "",
		    d[0] != '\0' ? d : "ai.onnx", p->opset_import[i]->version);
	}
	fprintf(fp, "\n  inputs:%s\n", m->n_inputs == 0 ? " none" : "");
	for (int i = 0; i < m->n_inputs; i++)
		io_print(fp, &m->inputs[i]);
	fprintf(fp, "  outputs:%s\n", m->n_outputs == 0 ? " none" : "");
	for (int i = 0; i < m->n_outputs; i++)
		io_print(fp, &m->outputs[i]);
	if (m->n_syms > 0) {
		fprintf(fp, "  symbolic dims:");
		for (int i = 0; i < m->n_syms; i++)
			fprintf(fp, "%s %s", i ? "," : "", m->syms[i]);
		fprintf(fp, "\n");
	}
	fprintf(fp, "  initializers: %zu (%" PRIu64 " bytes)\n",
	    g->n_initializer, m->init_bytes);
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		const char *d = str(n->domain);
		char *name = d[0] != '\0' && strcmp(d, "ai.onnx") != 0 ?
		    gp_xasprintf("%s.%s", d, n->op_type) :
		    gp_xstrdup(n->op_type);
		size_t k;

		for (k = 0; k < n_ops && strcmp(ops[k].name, name) != 0; k++)
			;
		if (k == n_ops)
			ops[n_ops++].name = name;
		else
			free(name);
		ops[k].n++;
	}
	qsort(ops, n_ops, sizeof(*ops), by_count);
	fprintf(fp, "  nodes: %zu\n  op types:", g->n_node);
	for (size_t k = 0; k < n_ops; k++)
		fprintf(fp, "%s %s %zu", k ? "," : "", ops[k].name, ops[k].n);
	fprintf(fp, "%s\n", n_ops == 0 ? " none" : "");
	for (size_t k = 0; k < n_ops; k++) {
		if (strcmp(ops[k].name, "Constant") != 0 &&
		    gp_onnx_map_find(ops[k].name, m->opset, NULL) == NULL) {
			fprintf(fp, "%s %s", unsupported++ ? "," :
			    "  op types not supported:", ops[k].name);
		}
		free(ops[k].name);
	}
	free(ops);
	if (unsupported > 0)
		fprintf(fp, " (at opset %" PRId64 "; doc/onnx.md lists the "
		    "supported ops)\n", m->opset);
	if (gp_onnx_check_dtypes(m, &err) < 0) {
		fprintf(fp, "  not supported: %s\n",
		    err.msg + strlen(m->path) + 2);
		unsupported++;
	}
	fprintf(fp, "  running: %s\n", unsupported == 0 ? "supported "
	    "(gptop MODEL.onnx; symbolic dims need --dim NAME=VALUE)" :
	    "not supported (see above)");
}
