/*
 * fuzz-onnx.c: fuzz target for the ONNX reader (src/load/onnx-read.c).  The
 * input becomes a model file (a memfd, reached through /proc/self/fd, so
 * nothing touches the disk) read by gp_onnx_read with a small memory
 * limit.  Properties: a refused file gives one line naming it; a model
 * that reads has a graph and a default opset no newer than supported; its
 * summary prints; every initializer it validated copies out whole; binding
 * no dims fails exactly when it has symbolic dims, naming the first one;
 * the dtype check's refusal names the file.  Then the ONNX front-end
 * (src/load/onnx-build.c) builds it with every symbolic dim bound to 1:
 * a refusal names the file; a graph that builds has one function with the
 * model's outputs, and runs once (optimizer=None: the ops as built).
 */
#include "config.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "load/onnx-build.h"
#include "load/onnx-read.h"
#include "load/onnx-summary.h"
#include "run/vm.h"

/* Build m with every symbolic dim 1, and run it once. */
static void
build_and_run(struct gp_onnx_model *m, const char *prefix)
{
	struct gp_onnx_binding *b = calloc((size_t)m->n_syms + 1, sizeof(*b));
	struct gp_onnx_build_opts o = {0};
	struct gp_vm_opts vo = {.allow_gc = true};
	struct gp_err err = {{0}};
	struct gp_graph *g;
	struct gp_vm *vm;

	if (b == NULL)
		abort();
	for (int i = 0; i < m->n_syms; i++) {
		b[i].name = m->syms[i];
		b[i].value = 1;
	}
	o.dims = b;
	o.n_dims = m->n_syms;
	if ((g = gp_onnx_build(m, &o, NULL, &err)) == NULL) {
		fz_check_msg(err.msg, prefix, 0);
		free(b);
		return;
	}
	if (g->n_fns != 1 || g->fns[0].n_out != m->n_outputs)
		fz_fail("the built graph's function does not give the model's "
		    "outputs", "");
	if ((vm = gp_vm_new(g, &vo, NULL, &err)) == NULL)
		fz_fail("a built graph does not link", err.msg);
	gp_vm_call(vm, 0, NULL);
	gp_vm_free(vm);
	gp_graph_free(g);
	free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64], prefix[72];
	struct gp_onnx_opts o = {.limit_bytes = FZ_LIMIT_BYTES};
	struct gp_err err = {{0}};
	struct gp_onnx_model *m;
	const Onnx__GraphProto *g;
	FILE *fp;

	if (fd < 0) {
		if ((fd = memfd_create("fuzz.onnx", 0)) < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		snprintf(prefix, sizeof(prefix), "%s: ", path);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if ((m = gp_onnx_read(path, &o, &err)) == NULL) {
		fz_check_msg(err.msg, prefix, 0);
		return (0);
	}
	g = m->graph;
	if (g == NULL || m->opset > GP_ONNX_OPSET_MAX)
		fz_fail("a model read with no graph or too new an opset", "");
	if ((fp = fopen("/dev/null", "w")) == NULL)
		abort();
	gp_onnx_summary_print(fp, m);
	fclose(fp);
	for (size_t i = 0; i < g->n_initializer; i++) {
		const Onnx__TensorProto *t = g->initializer[i];
		uint64_t nb = gp_onnx_tensor_nbytes(t);
		void *buf;

		if (gp_onnx_dtype_size(t->data_type) == 0)
			continue;
		if (nb > FZ_LIMIT_BYTES)
			fz_fail("an initializer over the limit was read", "");
		buf = malloc(nb + 1);
		if (gp_onnx_tensor_read(m, t, buf, &err) < 0)
			fz_fail("a validated initializer does not read",
			    err.msg);
		free(buf);
	}
	if (gp_onnx_bind(m, NULL, 0, &err) < 0) {
		fz_check_msg(err.msg, prefix, 0);
		if (m->n_syms > 0) {
			/* messages escape control bytes: look for the
			 * name as the message writes it */
			char *name = gp_text_dup(m->syms[0]);

			if (name == NULL)
				abort();
			if (strstr(err.msg, name) == NULL)
				fz_fail("the unbound dims are not named",
				    err.msg);
			free(name);
		}
	} else if (m->n_syms > 0) {
		fz_fail("symbolic dims bound with no bindings", "");
	}
	if (gp_onnx_check_dtypes(m, &err) < 0)
		fz_check_msg(err.msg, prefix, 0);
	else
		build_and_run(m, prefix);
	gp_onnx_free(m);
	return (0);
}
