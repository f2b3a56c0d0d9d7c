/*
 * test-extern.c: the extern op.  Values of libm functions and of the test
 * library (tests/extern/libgptest.so, built by make check) against direct
 * C computation, in both modes and on both elementwise call routes;
 * broadcasting, strided inputs and dtype conversion; the library cache;
 * Op names and the profile's detail text; and every load-time error:
 * refusal without allow_extern, missing library or symbol, unparsable
 * signatures, unsupported types, arity and type mismatches, bad modes and
 * shape rules.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "ops/extern.h"
#include "graph/tensor.h"

#define LIBM "libm.so.6"

static char builddir[PATH_MAX];
static char libdir[PATH_MAX + 16];	/* builddir/tests/extern */
static char libpath[PATH_MAX + 32];	/* .../libgptest.so */

static struct gp_graph *
new_graph(bool allow)
{
	struct gp_graph *g = gp_graph_new("t");

	free(g->dir);
	g->dir = gp_xasprintf("%s/tests", builddir);
	g->allow_extern = allow;
	return (g);
}

static int
add_input(struct gp_graph *g, const char *name, enum gp_dtype dt, int ndim,
    const int64_t *shape)
{
	struct gp_type t = {.dtype = dt, .ndim = ndim};

	for (int i = 0; i < ndim; i++)
		t.shape[i] = shape[i];
	return (gp_graph_add_var(g, name, GP_VAR_INPUT, &t));
}

/* Add an extern node with params given as JSON text; -1 with err set. */
static int
add_ext(struct gp_graph *g, const char *params, int n_in, const int *in,
    int n_out, struct gp_err *err)
{
	json_error_t je;
	json_t *p = json_loads(params, 0, &je);

	if (p == NULL) {
		diag("bad test JSON: %s: %s", params, je.text);
		abort();
	}
	return (gp_graph_add_node(g, gp_op_find("extern"), p, n_in, in, n_out,
	    err));
}

/* Run node i on the given input tensors; outputs allocated here. */
static void
run(struct gp_graph *g, int i, struct gp_tensor *const *in,
    struct gp_tensor *out)
{
	struct gp_node *n = &g->nodes[i];
	struct gp_tensor *po[GP_MAX_OUT];

	for (int k = 0; k < n->n_out; k++) {
		const struct gp_type *t = &g->vars[n->out[k]].type;

		memset(&out[k], 0, sizeof(out[k]));
		gp_tensor_alloc(&out[k], t->dtype, t->ndim, t->shape);
		po[k] = &out[k];
	}
	n->kernel(n, in, po);
}

static void
fill_f64(struct gp_tensor *t, int ndim, const int64_t *shape, double lo,
    double step)
{
	memset(t, 0, sizeof(*t));
	gp_tensor_alloc(t, GP_FLOAT64, ndim, shape);
	for (int64_t i = 0; i < gp_tensor_numel(t); i++)
		((double *)gp_tensor_data(t))[i] = lo + step * (double)i;
}

/* Expect add_ext to fail with a message containing want (and want2). */
static void
expect_err(struct gp_graph *g, const char *params, int n_in, const int *in,
    int n_out, const char *want, const char *want2, const char *what)
{
	struct gp_err err = {{0}};
	int rc = add_ext(g, params, n_in, in, n_out, &err);

	if (!ok(rc < 0 && strstr(err.msg, want) != NULL && (want2 == NULL ||
	    strstr(err.msg, want2) != NULL), "error: %s", what))
		diag("  rc %d, message: %s", rc, err.msg);
}

static void
test_refused(void)
{
	struct gp_graph *g = new_graph(false);
	int64_t s[1] = {4};
	int x = add_input(g, "x", GP_FLOAT64, 1, s);
	int before = gp_extern_libs_open();
	struct gp_err err = {{0}};
	int rc;

	rc = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_sq\", \"signature\": \"double(double)\"}", 1, &x, 1, &err);
	ok(rc < 0, "refused without allow_extern");
	ok(strstr(err.msg, "--allow-extern") != NULL &&
	    strstr(err.msg, "allow_extern=True") != NULL,
	    "the message says how to allow it: %s", err.msg);
	ok(strstr(err.msg, "'gpt_sq'") != NULL &&
	    strstr(err.msg, "'extern/libgptest.so'") != NULL,
	    "the message names the library and the symbol");
	is_int(gp_extern_libs_open(), before, "nothing was loaded");
	/* refused before anything else is checked */
	rc = add_ext(g, "{\"lib\": \"nope.so\", \"signature\": \"(((\"}", 1,
	    &x, 1, &err);
	ok(rc < 0 && strstr(err.msg, "--allow-extern") != NULL,
	    "refusal comes first, even for a bad signature");
	gp_graph_free(g);
}

static void
test_libm(void)
{
	struct gp_graph *g = new_graph(true);
	int64_t s1[1] = {1000}, s2[2] = {3, 4}, s4[1] = {4};
	int x = add_input(g, "x", GP_FLOAT64, 1, s1);
	int a = add_input(g, "a", GP_FLOAT64, 2, s2);
	int b = add_input(g, "b", GP_FLOAT64, 1, s4);
	int xi = add_input(g, "xi", GP_INT32, 1, s4);
	int xf = add_input(g, "xf", GP_FLOAT32, 1, s1);
	struct gp_err err = {{0}};
	struct gp_tensor tx, ta, tb, ti, tf, out[2];
	struct gp_buf buf = {0};
	int n1, n2, n3, n4, n5, n6, n7, ab[2] = {a, b}, ff[2] = {xf, xf};
	bool good;

	n1 = add_ext(g, "{\"lib\": \"" LIBM "\", \"symbol\": \"erf\", "
	    "\"signature\": \"double(double)\", \"mode\": \"elemwise\"}", 1,
	    &x, 1, &err);
	if (!ok(n1 >= 0, "erf from " LIBM " prepares"))
		diag("  %s", err.msg);
	n2 = add_ext(g, "{\"lib\": \"" LIBM "\", \"symbol\": \"erf\", "
	    "\"signature\": \"double(double)\", \"route\": \"ffi\"}", 1, &x,
	    1, &err);
	n3 = add_ext(g, "{\"lib\": \"" LIBM "\", \"signature\": "
	    "\"double pow(double x, double y)\"}", 2, ab, 1, &err);
	ok(n2 >= 0 && n3 >= 0, "erf through ffi, and pow named in the "
	    "signature, prepare");
	n4 = add_ext(g, "{\"lib\": \"" LIBM "\", \"symbol\": \"erf\", "
	    "\"signature\": \"double(double)\", \"dtype\": \"float32\"}", 1,
	    &xi, 1, &err);
	n5 = add_ext(g, "{\"lib\": \"" LIBM "\", \"symbol\": \"cbrtf\", "
	    "\"signature\": \"float(float)\"}", 1, &xf, 1, &err);
	n6 = add_ext(g, "{\"lib\": \"" LIBM "\", \"symbol\": \"powf\", "
	    "\"signature\": \"float(float, float)\"}", 2, ff, 1, &err);
	n7 = add_ext(g, "{\"lib\": \"" LIBM "\", \"symbol\": \"powf\", "
	    "\"signature\": \"float(float, float)\", \"route\": \"ffi\"}", 2,
	    ff, 1, &err);
	ok(n4 >= 0 && n5 >= 0 && n6 >= 0 && n7 >= 0,
	    "int32 -> erf -> float32, cbrtf, powf prepare");
	is_int(gp_extern_libs_open() >= 1, 1, "a library is open");

	ok(g->nodes[n1].impl == GP_IMPL_EXTERN &&
	    strcmp(g->nodes[n1].op->cls, "Extern") == 0,
	    "impl Extern, class Extern");
	gp_node_format_op(g, &g->nodes[n1], &buf);
	ok(strcmp(gp_buf_str(&buf), "Extern{erf: double(double)}") == 0,
	    "Op name: %s", gp_buf_str(&buf));
	gp_buf_clear(&buf);
	gp_node_format_op(g, &g->nodes[n3], &buf);
	ok(strcmp(gp_buf_str(&buf), "Extern{pow: double(double, double)}") ==
	    0, "Op name without parameter names: %s", gp_buf_str(&buf));
	gp_buf_clear(&buf);
	gp_extern_describe(g, &g->nodes[n1], &buf);
	ok(strcmp(gp_buf_str(&buf), "erf(x: ndarray(dtype=float64, "
	    "shape=(1000,))) -> double(double) [" LIBM ", direct]") == 0,
	    "describe: %s", gp_buf_str(&buf));
	gp_buf_clear(&buf);
	gp_extern_describe(g, &g->nodes[n3], &buf);
	ok(strcmp(gp_buf_str(&buf), "pow(a: ndarray(dtype=float64, "
	    "shape=(3, 4)), b: ndarray(dtype=float64, shape=(4,))) -> "
	    "double(double, double) [" LIBM ", direct]") == 0,
	    "describe, two inputs: %s", gp_buf_str(&buf));
	gp_buf_clear(&buf);
	gp_extern_describe(g, &g->nodes[n2], &buf);
	ok(strstr(gp_buf_str(&buf), "[" LIBM ", ffi_call]") != NULL,
	    "describe names the ffi route: %s", gp_buf_str(&buf));
	gp_buf_free(&buf);

	fill_f64(&tx, 1, s1, -3, 0.006);
	{
		struct gp_tensor *pi[1] = {&tx};

		run(g, n1, pi, out);
		good = true;
		for (int i = 0; i < 1000; i++)
			good &= ((double *)gp_tensor_data(&out[0]))[i] ==
			    erf(-3 + 0.006 * i);
		ok(good, "erf direct route == erf() for 1000 elements");
		gp_tensor_release(&out[0]);
		run(g, n2, pi, out);
		good = true;
		for (int i = 0; i < 1000; i++)
			good &= ((double *)gp_tensor_data(&out[0]))[i] ==
			    erf(-3 + 0.006 * i);
		ok(good, "erf ffi route == erf() for 1000 elements");
		gp_tensor_release(&out[0]);
	}
	/* pow with broadcasting: (3, 4) ** (4,) */
	fill_f64(&ta, 2, s2, 0.5, 0.25);
	fill_f64(&tb, 1, s4, -1, 0.5);
	{
		struct gp_tensor *pi[2] = {&ta, &tb};
		const struct gp_type *ot = &g->vars[g->nodes[n3].out[0]].type;

		ok(ot->ndim == 2 && ot->shape[0] == 3 && ot->shape[1] == 4 &&
		    ot->dtype == GP_FLOAT64, "pow output float64 (3, 4)");
		run(g, n3, pi, out);
		good = true;
		for (int i = 0; i < 12; i++)
			good &= ((double *)gp_tensor_data(&out[0]))[i] ==
			    pow(0.5 + 0.25 * i, -1 + 0.5 * (i % 4));
		ok(good, "pow broadcasts (3, 4) with (4,)");
		gp_tensor_release(&out[0]);
	}
	/* a transposed (strided) input */
	{
		struct gp_tensor tt = ta, *pi[2];
		int64_t s43[2] = {4, 3};
		int at = add_input(g, "at", GP_FLOAT64, 2, s43);
		int c = add_input(g, "c", GP_FLOAT64, 1, (int64_t[]){3});
		int in2[2] = {at, c}, nt;
		struct gp_tensor tc;

		tt.shape[0] = 4;
		tt.shape[1] = 3;
		tt.strides[0] = ta.strides[1];
		tt.strides[1] = ta.strides[0];
		fill_f64(&tc, 1, (int64_t[]){3}, 2, 1);
		nt = add_ext(g, "{\"lib\": \"" LIBM "\", \"symbol\": \"pow\", "
		    "\"signature\": \"double(double, double)\"}", 2, in2, 1,
		    &err);
		pi[0] = &tt;
		pi[1] = &tc;
		run(g, nt, pi, out);
		good = true;
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 3; j++)
				good &= ((double *)gp_tensor_data(
				    &out[0]))[i * 3 + j] == pow(0.5 + 0.25 *
				    (j * 4 + i), 2 + j);
		ok(good, "pow of a transposed view");
		gp_tensor_release(&out[0]);
		gp_tensor_release(&tc);
	}
	/* int32 in, converted to double, float32 out */
	memset(&ti, 0, sizeof(ti));
	gp_tensor_alloc(&ti, GP_INT32, 1, s4);
	for (int i = 0; i < 4; i++)
		((int32_t *)gp_tensor_data(&ti))[i] = i - 1;
	{
		struct gp_tensor *pi[1] = {&ti};

		ok(g->vars[g->nodes[n4].out[0]].type.dtype == GP_FLOAT32,
		    "param dtype sets the output dtype");
		run(g, n4, pi, out);
		good = true;
		for (int i = 0; i < 4; i++)
			good &= ((float *)gp_tensor_data(&out[0]))[i] ==
			    (float)erf(i - 1);
		ok(good, "int32 input converted to double, result to float32");
		gp_tensor_release(&out[0]);
	}
	/* float routes */
	memset(&tf, 0, sizeof(tf));
	gp_tensor_alloc(&tf, GP_FLOAT32, 1, s1);
	for (int i = 0; i < 1000; i++)
		((float *)gp_tensor_data(&tf))[i] = 0.01f * (float)i;
	{
		struct gp_tensor *pi[2] = {&tf, &tf};
		bool g2 = true;

		run(g, n5, pi, out);
		good = true;
		for (int i = 0; i < 1000; i++)
			good &= ((float *)gp_tensor_data(&out[0]))[i] ==
			    cbrtf(0.01f * (float)i);
		ok(good, "cbrtf direct route == cbrtf()");
		gp_tensor_release(&out[0]);
		run(g, n6, pi, out);
		run(g, n7, pi, out + 1);
		good = true;
		for (int i = 0; i < 1000; i++) {
			float v = 0.01f * (float)i, w = powf(v, v);

			good &= ((float *)gp_tensor_data(&out[0]))[i] == w;
			g2 &= ((float *)gp_tensor_data(&out[1]))[i] == w;
		}
		ok(good && g2, "powf direct and ffi routes == powf()");
		gp_tensor_release(&out[0]);
		gp_tensor_release(&out[1]);
	}
	/* flops and clone */
	{
		struct gp_graph *c;
		int n8 = add_ext(g, "{\"lib\": \"" LIBM "\", \"symbol\": "
		    "\"erf\", \"signature\": \"double(double)\", \"flops\": "
		    "20}", 1, &x, 1, &err);

		is_double(gp_node_flops(g, &g->nodes[n8]), 20000, 0,
		    "flops: per output element");
		is_double(gp_node_flops(g, &g->nodes[n1]), 0, 0,
		    "flops: none by default");
		c = gp_graph_clone(g);
		ok(!c->nodes[n8].dead && c->nodes[n8].priv != NULL &&
		    c->nodes[n8].kernel != NULL, "a clone re-prepares");
		gp_graph_free(c);
	}
	gp_tensor_release(&tx);
	gp_tensor_release(&ta);
	gp_tensor_release(&tb);
	gp_tensor_release(&ti);
	gp_tensor_release(&tf);
	gp_graph_free(g);
}

static void
test_testlib_scalar(void)
{
	struct gp_graph *g = new_graph(true);
	int64_t s5[1] = {5}, s0[1] = {0};
	int x = add_input(g, "x", GP_FLOAT64, 1, s5);
	int y = add_input(g, "y", GP_FLOAT64, 0, NULL);
	int i8 = add_input(g, "i8", GP_INT8, 1, s5);
	int u16 = add_input(g, "u16", GP_UINT16, 1, s5);
	int i32 = add_input(g, "i32", GP_INT32, 1, s5);
	int f32 = add_input(g, "f32", GP_FLOAT32, 1, s5);
	int e = add_input(g, "e", GP_FLOAT64, 1, s0);
	struct gp_err err = {{0}};
	struct gp_tensor tx, ty, t8, t16, t32, tf, te, out[1];
	int nm, ns, na, nn, nu, nc, nb, nx, ng, ne;
	int64_t *calls;
	void *h;
	bool good;

	nm = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_madd\", \"signature\": \"double(double a, double x, double "
	    "y)\"}", 3, (int[]){x, x, y}, 1, &err);
	if (!ok(nm >= 0, "a 3-argument user function prepares (path "
	    "relative to the graph's folder)"))
		diag("  %s", err.msg);
	ns = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_sq\", \"signature\": \"double(double)\"}", 1, &x, 1, &err);
	na = add_ext(g, "{\"lib\": \"./extern/../extern/libgptest.so\", "
	    "\"symbol\": \"gpt_addf\", \"signature\": \"float(float, "
	    "float)\"}", 2, (int[]){f32, f32}, 1, &err);
	nn = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_neg_i8\", \"signature\": \"int8_t(int8_t)\"}", 1, &i8, 1,
	    &err);
	nu = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_twice_u16\", \"signature\": \"unsigned short(unsigned "
	    "short)\"}", 1, &u16, 1, &err);
	nc = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_clamp\", \"signature\": \"int(int, int, int)\"}", 3,
	    (int[]){i32, i8, u16}, 1, &err);
	nb = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_is_pos\", \"signature\": \"_Bool(double)\"}", 1, &x, 1,
	    &err);
	nx = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_mix\", \"signature\": \"long long(signed char, uint32_t, "
	    "int64_t, float)\"}", 4, (int[]){i8, u16, i32, f32}, 1, &err);
	ng = add_ext(g, "{\"lib\": \"" "extern/libgptest.so" "\", \"symbol\": "
	    "\"gpt_next\", \"signature\": \"int(void)\", \"shape\": [2, 3]}",
	    0, (int[]){-1}, 1, &err);
	ne = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_sq\", \"signature\": \"double(double)\"}", 1, &e, 1, &err);
	if (!ok(ns >= 0 && na >= 0 && nn >= 0 && nu >= 0 && nc >= 0 &&
	    nb >= 0 && nx >= 0 && ng >= 0 && ne >= 0,
	    "scalar functions of many signatures prepare"))
		diag("  %s", err.msg);
	is_int(g->vars[g->nodes[nx].out[0]].type.dtype, GP_INT64,
	    "long long returns int64");
	is_int(g->vars[g->nodes[nb].out[0]].type.dtype, GP_BOOL,
	    "_Bool returns bool");

	h = dlopen(libpath, RTLD_NOW | RTLD_NOLOAD);
	ok(h != NULL, "the library is loaded once (dlopen NOLOAD finds it)");
	calls = h != NULL ? dlsym(h, "gpt_scalar_calls") : NULL;

	fill_f64(&tx, 1, s5, -2, 1);
	fill_f64(&ty, 0, s5, 10, 0);
	memset(&t8, 0, sizeof(t8));
	memset(&t16, 0, sizeof(t16));
	memset(&t32, 0, sizeof(t32));
	memset(&tf, 0, sizeof(tf));
	gp_tensor_alloc(&t8, GP_INT8, 1, s5);
	gp_tensor_alloc(&t16, GP_UINT16, 1, s5);
	gp_tensor_alloc(&t32, GP_INT32, 1, s5);
	gp_tensor_alloc(&tf, GP_FLOAT32, 1, s5);
	for (int i = 0; i < 5; i++) {
		((int8_t *)gp_tensor_data(&t8))[i] = (int8_t)(i * 40 - 128);
		((uint16_t *)gp_tensor_data(&t16))[i] = (uint16_t)(i * 20000);
		((int32_t *)gp_tensor_data(&t32))[i] = i * 100 - 250;
		((float *)gp_tensor_data(&tf))[i] = 1.5f * (float)i;
	}
	{
		struct gp_tensor *pi[3] = {&tx, &tx, &ty};
		int64_t c0 = calls != NULL ? *calls : 0;

		run(g, nm, pi, out);
		good = true;
		for (int i = 0; i < 5; i++)
			good &= ((double *)gp_tensor_data(&out[0]))[i] ==
			    (-2.0 + i) * (-2.0 + i) + 10;
		ok(good, "gpt_madd(x, x, 10) == x*x + 10 (scalar broadcast)");
		is_int(calls != NULL ? *calls - c0 : -1, 5,
		    "called once per element");
		gp_tensor_release(&out[0]);
		run(g, ns, pi, out);
		good = true;
		for (int i = 0; i < 5; i++)
			good &= ((double *)gp_tensor_data(&out[0]))[i] ==
			    (-2.0 + i) * (-2.0 + i);
		ok(good, "gpt_sq direct route");
		gp_tensor_release(&out[0]);
		run(g, nb, pi, out);
		good = true;
		for (int i = 0; i < 5; i++)
			good &= ((_Bool *)gp_tensor_data(&out[0]))[i] ==
			    (-2.0 + i > 0);
		ok(good, "bool return");
		gp_tensor_release(&out[0]);
	}
	{
		struct gp_tensor *pi[2] = {&tf, &tf};

		run(g, na, pi, out);
		good = true;
		for (int i = 0; i < 5; i++)
			good &= ((float *)gp_tensor_data(&out[0]))[i] ==
			    3.0f * (float)i;
		ok(good, "gpt_addf float(float, float) direct route");
		gp_tensor_release(&out[0]);
	}
	{
		struct gp_tensor *pi[1] = {&t8};

		run(g, nn, pi, out);
		good = true;
		for (int i = 0; i < 5; i++)
			good &= ((int8_t *)gp_tensor_data(&out[0]))[i] ==
			    (int8_t)-(int8_t)(i * 40 - 128);
		ok(good, "int8_t return sign-extended by libffi, narrowed "
		    "back");
		gp_tensor_release(&out[0]);
		pi[0] = &t16;
		run(g, nu, pi, out);
		good = true;
		for (int i = 0; i < 5; i++)
			good &= ((uint16_t *)gp_tensor_data(&out[0]))[i] ==
			    (uint16_t)(i * 40000);
		ok(good, "unsigned short return wraps like C");
		gp_tensor_release(&out[0]);
	}
	{
		struct gp_tensor *pi[4] = {&t32, &t8, &t16};
		int8_t *v8 = (int8_t *)gp_tensor_data(&t8);
		uint16_t *v16 = (uint16_t *)gp_tensor_data(&t16);

		run(g, nc, pi, out);
		good = true;
		for (int i = 0; i < 5; i++) {
			int32_t v = ((int32_t *)gp_tensor_data(&t32))[i];
			int32_t lo = v8[i], hi = v16[i];

			good &= ((int32_t *)gp_tensor_data(&out[0]))[i] ==
			    (v < lo ? lo : v > hi ? hi : v);
		}
		ok(good, "gpt_clamp(int32, int8 -> int, uint16 -> int)");
		gp_tensor_release(&out[0]);
		pi[0] = &t8;
		pi[1] = &t16;
		pi[2] = &t32;
		pi[3] = &tf;
		run(g, nx, pi, out);
		good = true;
		for (int i = 0; i < 5; i++)
			good &= ((int64_t *)gp_tensor_data(&out[0]))[i] ==
			    (int64_t)v8[i] * 1000000 +
			    (int64_t)(uint16_t)(i * 20000) * 1000 +
			    (i * 100 - 250) + (int64_t)(1.5f * (float)i);
		ok(good, "four mixed parameter types, int64 return");
		gp_tensor_release(&out[0]);
	}
	{
		run(g, ng, NULL, out);
		good = true;
		for (int i = 0; i < 6; i++)
			good &= ((int32_t *)gp_tensor_data(&out[0]))[i] ==
			    i + 1;
		ok(good, "int(void) fills the explicit shape (2, 3) in order");
		gp_tensor_release(&out[0]);
	}
	{
		struct gp_tensor *pi[1] = {&te};

		fill_f64(&te, 1, s0, 0, 0);
		run(g, ne, pi, out);
		ok(gp_tensor_numel(&out[0]) == 0, "an empty input calls "
		    "nothing");
		gp_tensor_release(&out[0]);
		gp_tensor_release(&te);
	}
	if (h != NULL)
		dlclose(h);
	gp_tensor_release(&tx);
	gp_tensor_release(&ty);
	gp_tensor_release(&t8);
	gp_tensor_release(&t16);
	gp_tensor_release(&t32);
	gp_tensor_release(&tf);
	gp_graph_free(g);
}

static void
test_kernel_mode(void)
{
	struct gp_graph *g = new_graph(true);
	int64_t s100[1] = {100}, s23[2] = {2, 3}, s3[1] = {3};
	int x = add_input(g, "x", GP_FLOAT64, 1, s100);
	int a = add_input(g, "a", GP_FLOAT32, 0, NULL);
	int m = add_input(g, "m", GP_FLOAT32, 2, s23);
	int v = add_input(g, "v", GP_FLOAT64, 1, s3);
	struct gp_err err = {{0}};
	struct gp_tensor tx, ta, tm, tv, out[2];
	struct gp_buf buf = {0};
	int np, nsx, nmm;
	int64_t *calls, c0;
	void *h;
	bool good;

	np = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_prefix_sum\", \"signature\": \"void(const double *x, "
	    "int64_t n, double *y, int64_t m)\", \"mode\": \"kernel\", "
	    "\"shape\": \"like:0\"}", 1, &x, 1, &err);
	if (!ok(np >= 0, "prefix sum kernel prepares"))
		diag("  %s", err.msg);
	nsx = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_saxpy\", \"signature\": \"void(float, const float *, "
	    "int64_t, const float *, int32_t, float *, size_t)\"}", 3,
	    (int[]){a, m, v}, 1, &err);
	if (!ok(nsx >= 0, "saxpy kernel prepares (mode from the pointers)"))
		diag("  %s", err.msg);
	nmm = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_minmax\", \"signature\": \"void(const double *, int64_t, "
	    "double *, int64_t, double *, int64_t)\", \"shape\": [[], []]}",
	    1, &x, 2, &err);
	if (!ok(nmm >= 0, "two-output kernel prepares"))
		diag("  %s", err.msg);
	{
		const struct gp_type *t = &g->vars[g->nodes[nsx].out[0]].type;

		ok(t->dtype == GP_FLOAT32 && t->ndim == 2 &&
		    t->shape[0] == 2 && t->shape[1] == 3,
		    "saxpy output: float32 (2, 3), the broadcast default");
	}
	gp_node_format_op(g, &g->nodes[np], &buf);
	ok(strcmp(gp_buf_str(&buf), "Extern{gpt_prefix_sum: void(const "
	    "double *, int64_t, double *, int64_t)}") == 0, "kernel Op name: "
	    "%s", gp_buf_str(&buf));
	gp_buf_clear(&buf);
	gp_extern_describe(g, &g->nodes[np], &buf);
	ok(strcmp(gp_buf_str(&buf), "gpt_prefix_sum(x: ndarray(dtype="
	    "float64, shape=(100,))) -> void(const double *, int64_t, double "
	    "*, int64_t) [extern/libgptest.so, kernel, ffi_call]") == 0,
	    "kernel describe: %s", gp_buf_str(&buf));
	gp_buf_free(&buf);

	h = dlopen(libpath, RTLD_NOW | RTLD_NOLOAD);
	calls = h != NULL ? dlsym(h, "gpt_kernel_calls") : NULL;
	c0 = calls != NULL ? *calls : 0;
	fill_f64(&tx, 1, s100, 1, 1);
	{
		struct gp_tensor *pi[1] = {&tx};

		run(g, np, pi, out);
		good = true;
		for (int i = 0; i < 100; i++)
			good &= ((double *)gp_tensor_data(&out[0]))[i] ==
			    (double)(i + 1) * (i + 2) / 2;
		ok(good, "prefix sum of 1..100");
		gp_tensor_release(&out[0]);
		run(g, nmm, pi, out);
		ok(*(double *)gp_tensor_data(&out[0]) == 1 &&
		    *(double *)gp_tensor_data(&out[1]) == 100,
		    "min and max into two 0-d outputs");
		gp_tensor_release(&out[0]);
		gp_tensor_release(&out[1]);
	}
	memset(&ta, 0, sizeof(ta));
	gp_tensor_alloc(&ta, GP_FLOAT32, 0, s3);
	*(float *)gp_tensor_data(&ta) = 2;
	memset(&tm, 0, sizeof(tm));
	gp_tensor_alloc(&tm, GP_FLOAT32, 2, s23);
	for (int i = 0; i < 6; i++)
		((float *)gp_tensor_data(&tm))[i] = (float)i;
	fill_f64(&tv, 1, s3, 0.5, 1);
	{
		struct gp_tensor *pi[3] = {&ta, &tm, &tv}, tt = tm;

		run(g, nsx, pi, out);
		good = true;
		for (int i = 0; i < 6; i++)
			good &= ((float *)gp_tensor_data(&out[0]))[i] ==
			    2.0f * (float)i + (float)(0.5 + i % 3);
		ok(good, "saxpy: 0-d scalar, float32 matrix, float64 vector "
		    "converted to float");
		gp_tensor_release(&out[0]);
		/* a non-contiguous input is copied contiguous first */
		tt.shape[0] = 2;
		tt.shape[1] = 3;
		tt.strides[0] = 4;
		tt.strides[1] = 8;	/* element (i, j) at 2 * j + i */
		pi[1] = &tt;
		run(g, nsx, pi, out);
		good = true;
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 3; j++)
				good &= ((float *)gp_tensor_data(
				    &out[0]))[i * 3 + j] == 2.0f * (float)(2 *
				    j + i) + (float)(0.5 + j);
		ok(good, "saxpy of a strided view");
		gp_tensor_release(&out[0]);
	}
	is_int(calls != NULL ? *calls - c0 : -1, 4,
	    "each kernel-mode apply is one call");
	if (h != NULL)
		dlclose(h);
	gp_tensor_release(&tx);
	gp_tensor_release(&ta);
	gp_tensor_release(&tm);
	gp_tensor_release(&tv);
	gp_graph_free(g);
}

static void
test_cache(void)
{
	int base = gp_extern_libs_open();
	struct gp_graph *g = new_graph(true);
	int64_t s[1] = {3};
	int x = add_input(g, "x", GP_FLOAT64, 1, s);
	struct gp_err err = {{0}};
	char *abs_params;
	int n1, n2, n3;

	n1 = add_ext(g, "{\"lib\": \"extern/libgptest.so\", \"symbol\": "
	    "\"gpt_sq\", \"signature\": \"double(double)\"}", 1, &x, 1, &err);
	n2 = add_ext(g, "{\"lib\": \"./extern/libgptest.so\", \"symbol\": "
	    "\"gpt_sq\", \"signature\": \"double(double)\"}", 1, &x, 1, &err);
	abs_params = gp_xasprintf("{\"lib\": \"%s\", \"symbol\": \"gpt_sq\", "
	    "\"signature\": \"double(double)\"}", libpath);
	n3 = add_ext(g, abs_params, 1, &x, 1, &err);
	free(abs_params);
	ok(n1 >= 0 && n2 >= 0 && n3 >= 0, "three spellings of the path, one "
	    "of them absolute");
	is_int(gp_extern_libs_open() - base, 1, "one cache entry shared by "
	    "three nodes");
	gp_graph_free(g);
	is_int(gp_extern_libs_open(), base, "freeing the graph closes it");
	/* never the current directory implicitly */
	{
		char cwd[PATH_MAX];

		g = new_graph(true);
		x = add_input(g, "x", GP_FLOAT64, 1, s);
		if (getcwd(cwd, sizeof(cwd)) != NULL && chdir(libdir) == 0) {
			expect_err(g, "{\"lib\": \"libgptest.so\", \"symbol\": "
			    "\"gpt_sq\", \"signature\": \"double(double)\"}",
			    1, &x, 1, "cannot load 'libgptest.so'", NULL,
			    "a bare name is not looked up in the current "
			    "directory");
			if (chdir(cwd) != 0)
				diag("cannot return to %s", cwd);
		} else
			ok(false, "chdir %s", libdir);
		gp_graph_free(g);
	}
}

static void
test_errors(void)
{
	struct gp_graph *g = new_graph(true);
	int64_t s[1] = {3}, s2[1] = {4}, big[1] = {1000};
	int x = add_input(g, "x", GP_FLOAT64, 1, s);
	int y = add_input(g, "y", GP_FLOAT64, 1, s2);
	int f = add_input(g, "f", GP_FLOAT32, 1, s);
	int b = add_input(g, "big", GP_FLOAT64, 1, big);
	int xy[2] = {x, y}, xx[2] = {x, x};
	int base = gp_extern_libs_open();

#define LIBT "\"lib\": \"extern/libgptest.so\", "
#define LM "\"lib\": \"" LIBM "\", "
	/* missing library, missing symbol */
	expect_err(g, "{\"lib\": \"libgptop-no-such-lib.so.9\", \"symbol\": "
	    "\"erf\", \"signature\": \"double(double)\"}", 1, &x, 1,
	    "param 'lib': cannot load 'libgptop-no-such-lib.so.9'", NULL,
	    "missing library (soname)");
	expect_err(g, "{\"lib\": \"extern/nope.so\", \"symbol\": \"erf\", "
	    "\"signature\": \"double(double)\"}", 1, &x, 1,
	    "cannot load 'extern/nope.so' (relative to the graph's folder",
	    "No such file", "missing library (path)");
	expect_err(g, "{" LM "\"symbol\": \"no_such_function_gp\", "
	    "\"signature\": \"double(double)\"}", 1, &x, 1,
	    "no symbol 'no_such_function_gp' in library '" LIBM "'", NULL,
	    "missing symbol");
	/* params */
	expect_err(g, "{\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\"}", 1, &x, 1, "param 'lib' is required", NULL,
	    "lib missing");
	expect_err(g, "{" LM "\"symbol\": \"erf\"}", 1, &x, 1,
	    "param 'signature' is required", NULL, "signature missing");
	expect_err(g, "{" LM "\"signature\": \"double(double)\"}", 1, &x, 1,
	    "param 'symbol' is required", NULL, "symbol missing");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": \"double "
	    "erfc(double)\"}", 1, &x, 1, "names function 'erfc'", NULL,
	    "symbol and signature disagree");
	expect_err(g, "{" LM "\"symbol\": 3, \"signature\": "
	    "\"double(double)\"}", 1, &x, 1, "param 'symbol' must be a "
	    "non-empty string", NULL, "symbol not a string");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\", \"colour\": 1}", 1, &x, 1,
	    "unknown param 'colour'", NULL, "unknown param");
	/* unparsable signatures */
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double\"}", 1, &x, 1, "cannot parse 'double(double'",
	    "expected ',' or ')' at column 14", "unclosed parameter list");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double,)\"}", 1, &x, 1, "expected a type for parameter "
	    "2 at column 15", NULL, "trailing comma");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double\"}", 1, &x, 1, "expected '(' at column 7", NULL,
	    "no parameter list");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"(double)\"}", 1, &x, 1, "expected a type for the return type",
	    NULL, "no return type");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double) x\"}", 1, &x, 1, "unexpected 'x' at column 16",
	    NULL, "junk after the list");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double[3])\"}", 1, &x, 1, "unexpected character '['",
	    NULL, "arrays");
	expect_err(g, "{" LM "\"symbol\": \"printf\", \"signature\": "
	    "\"int(const char *, ...)\"}", 1, &x, 1, "unsupported type 'char'",
	    NULL, "char");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double, ...)\"}", 1, &x, 1, "variadic", NULL,
	    "varargs");
	/* unsupported types */
	expect_err(g, "{" LM "\"symbol\": \"erfl\", \"signature\": \"long "
	    "double(long double)\"}", 1, &x, 1, "the return type: "
	    "unsupported type 'long double'", NULL, "long double");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(complex)\"}", 1, &x, 1, "parameter 1: unsupported type "
	    "'complex' (supported:", NULL, "unknown type name");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double **p)\"}", 1, &x, 1, "pointers to pointers", NULL,
	    "double pointer");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"void(void *)\"}", 1, &x, 1, "unsupported type 'void *'", NULL,
	    "void pointer");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double *(double)\"}", 1, &x, 1, "pointers are not supported as "
	    "return values", NULL, "pointer return");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(int, void)\"}", 2, xx, 1, "parameter 2: a parameter "
	    "cannot be void", NULL, "void parameter");
	/* arity and types against the inputs */
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\"}", 2, xx, 1, "signature 'double(double)' "
	    "takes 1 argument, but the node has 2 inputs", NULL,
	    "elemwise arity");
	expect_err(g, "{" LM "\"symbol\": \"pow\", \"signature\": "
	    "\"double(double, double)\"}", 2, xy, 1, "do not broadcast", NULL,
	    "inputs that do not broadcast");
	expect_err(g, "{" LIBT "\"symbol\": \"gpt_clamp\", \"signature\": "
	    "\"int(int, int, int)\"}", 3, (int[]){x, x, x}, 1,
	    "input 0 ('x', float64) does not convert to parameter 1 'int' "
	    "(int32)", "same_kind", "float input to an int parameter");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\"}", 1, &x, 2, "mode 'elemwise' has 1 output",
	    NULL, "elemwise with two outputs");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"void(double)\", \"mode\": \"elemwise\"}", 1, &x, 1,
	    "returns void (use mode 'kernel')", NULL, "elemwise void");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(const double *)\", \"mode\": \"elemwise\"}", 1, &x, 1,
	    "parameter 1 is 'const double *' (use mode 'kernel')", NULL,
	    "elemwise pointer");
	/* mode, dtype, route */
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\", \"mode\": \"vector\"}", 1, &x, 1,
	    "param 'mode' must be \"elemwise\" or \"kernel\", got \"vector\"",
	    NULL, "bad mode");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\", \"dtype\": \"float16\"}", 1, &x, 1,
	    "param 'dtype': unknown dtype 'float16'", NULL, "bad dtype");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\", \"route\": \"jit\"}", 1, &x, 1,
	    "param 'route' must be \"auto\" or \"ffi\"", NULL, "bad route");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\", \"flops\": -1}", 1, &x, 1,
	    "param 'flops' must be >= 0", NULL, "negative flops");
	/* shape rules */
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\", \"shape\": \"like:5\"}", 1, &x, 1,
	    "\"like:5\" names input 5, but the node has 1 input", NULL,
	    "like: out of range");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\", \"shape\": \"like:x\"}", 1, &x, 1,
	    "param 'shape' must be \"broadcast\", \"like:K\"", NULL,
	    "like: not a number");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\", \"shape\": {\"n\": 3}}", 1, &x, 1,
	    "param 'shape' must be", NULL, "shape an object");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\", \"shape\": [-1]}", 1, &x, 1,
	    "dimensions must be integers >= 0", NULL, "negative dimension");
	expect_err(g, "{" LM "\"symbol\": \"erf\", \"signature\": "
	    "\"double(double)\", \"shape\": [5]}", 1, &x, 1,
	    "the inputs (broadcast shape (3,)) do not broadcast to the output "
	    "shape (5,)", NULL, "elemwise shape the inputs cannot fill");
	/* kernel mode */
	expect_err(g, "{" LIBT "\"symbol\": \"gpt_prefix_sum\", "
	    "\"signature\": \"void(const double *, int64_t)\"}", 1, &x, 1,
	    "has no output", NULL, "kernel without an output pointer");
	expect_err(g, "{" LIBT "\"symbol\": \"gpt_prefix_sum\", "
	    "\"signature\": \"void(const double *, int64_t, double *, "
	    "int64_t)\"}", 2, xx, 1, "takes 1 input", "the node has 2",
	    "kernel arity");
	expect_err(g, "{" LIBT "\"symbol\": \"gpt_prefix_sum\", "
	    "\"signature\": \"void(const double *, int64_t, double *, "
	    "int64_t)\"}", 1, &x, 2, "writes 1 output", NULL,
	    "kernel output count");
	expect_err(g, "{" LIBT "\"symbol\": \"gpt_saxpy\", \"signature\": "
	    "\"void(float, const float *, int64_t, const float *, int32_t, "
	    "float *, size_t)\"}", 3, (int[]){x, f, f}, 1, "parameter 1 "
	    "'float' takes input 0 ('x') as a scalar, but its shape is (3,)",
	    NULL, "kernel scalar from a vector");
	expect_err(g, "{" LIBT "\"symbol\": \"gpt_prefix_sum\", "
	    "\"signature\": \"void(const double *, int8_t, double *, "
	    "int64_t)\"}", 1, &b, 1, "parameter 2 'int8_t' cannot hold the "
	    "element count 1000", NULL, "count too large for its type");
	expect_err(g, "{" LIBT "\"symbol\": \"gpt_prefix_sum\", "
	    "\"signature\": \"void(const int32_t *, int64_t, double *, "
	    "int64_t)\"}", 1, &x, 1, "does not convert to parameter 1 'const "
	    "int32_t *'", NULL, "kernel input type");
	expect_err(g, "{" LIBT "\"symbol\": \"gpt_prefix_sum\", "
	    "\"signature\": \"void(const double *, int64_t, double *, "
	    "int64_t)\", \"dtype\": \"float32\"}", 1, &x, 1, "param 'dtype' "
	    "is float32, but mode 'kernel' writes output 0", NULL,
	    "kernel dtype disagreeing");
	expect_err(g, "{" LIBT "\"symbol\": \"gpt_minmax\", \"signature\": "
	    "\"void(const double *, int64_t, double *, int64_t, double *, "
	    "int64_t)\", \"shape\": [[], [], []]}", 1, &x, 2,
	    "param 'shape': 3 rules for 2 outputs", NULL,
	    "kernel shape rules count");
	expect_err(g, "{" LIBT "\"symbol\": \"gpt_prefix_sum\", "
	    "\"signature\": \"void(const double *, int64_t, double *, "
	    "int64_t)\", \"route\": \"ffi\"}", 1, &x, 1, "param 'route' "
	    "applies to mode 'elemwise' only", NULL, "kernel route");
	is_int(gp_extern_libs_open(), base, "failed prepares leave no library "
	    "open");
#undef LIBT
#undef LM
	gp_graph_free(g);
}

int
main(void)
{
	const char *bd = getenv("top_builddir");

	if (bd == NULL || realpath(bd, builddir) == NULL) {
		if (getcwd(builddir, sizeof(builddir)) == NULL)
			return (99);
	}
	snprintf(libdir, sizeof(libdir), "%s/tests/extern", builddir);
	snprintf(libpath, sizeof(libpath), "%s/libgptest.so", libdir);
	if (access(libpath, R_OK) != 0) {
		printf("1..0 # SKIP %s not built (make check builds it)\n",
		    libpath);
		return (0);
	}
	test_refused();
	test_libm();
	test_testlib_scalar();
	test_kernel_mode();
	test_cache();
	test_errors();
	return (done_testing());
}
