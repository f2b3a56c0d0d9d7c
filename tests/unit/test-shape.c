/*
 * test-shape.c: the shape family run through its kernels on tiny graphs:
 * dimshuffle and transpose (views), reshape and flatten (views of
 * contiguous inputs, copies of non-contiguous ones), alloc, zeros_like,
 * ones_like, join, subtensor (views with numpy's slice rules, negative
 * steps included), inc_subtensor and set_subtensor (copies and in place),
 * take (ONNX's Gather),
 * in float32, float64 and integer types, with Theano's op names and every
 * prepare error.
 *
 * X is the (2, 3, 4) tensor with X.flat[i] = ((i*7+3)%11-5)*0.25.
 * Expected values were made once with /usr/bin/python3 and numpy 1.24.2:
 *
 *   import numpy as np
 *   def A(n): return np.array([((i*7+3)%11-5)*0.25 for i in range(n)])
 *   X = A(24).reshape(2,3,4)
 *   want_ds = X.transpose(2,0,1)[:, None]     # pattern [2, "x", 0, 1]
 *   want_tr = X.transpose()                   # also X.T.reshape(4, 6)
 *   want_tr102 = X.transpose(1,0,2)
 *   want_sub1 = X[1, ::-1, 1:3]               # shape (3, 2)
 *   want_sub3 = X[:, -1::-2, ::3]             # shape (2, 2, 2)
 *   X[:, 5:1:-1].shape == (2, 1, 4)
 *   want_sub5 = X[0, -10:2]                   # shape (2, 4)
 *   Y = A(4)*2
 *   Z = X.copy(); Z[0, 1:] += Y;                       want_inc = Z
 *   Z = X.copy(); Z[:, ::2, 0] = 9;                    want_set = Z
 *   Z = X.copy(); Z[1, :, 1] += np.array([1,2,3.]);    want_inc2 = Z
 *   M = A(6).reshape(2,3); N = A(3).reshape(1,3)*4; P = A(4).reshape(2,2)
 *   want_join0 = np.concatenate([M, N], axis=0)
 *   want_join1 = np.concatenate([M, P, M], axis=-1)
 *
 * take's were made with plain /usr/bin/python3 (numpy's take raises on an
 * index out of range; gptop's gives zeros), X as nested lists:
 *   want_take1[i][j][k] = X[i][idx[j] % 3][k] for idx = [2, -1, 0, 5],
 *       zeros for 5;
 *   want_take0 = XT[[[3, 0], [-4, 1]]] with XT = X.transpose() (4, 3, 2);
 *   want_take_scalar = X[:, :, 1].
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "graph/op.h"
#include "ops/ops.h"

#include "ops-helpers.h"

static const double want_ds[24] = {-0.5, 1.0, -0.25, 1.25, 0.0, -1.25, 1.25,
    0.0, -1.25, 0.25, -1.0, 0.5, 0.25, -1.0, 0.5, -0.75, 0.75, -0.5, -0.75,
    0.75, -0.5, 1.0, -0.25, 1.25};
static const double want_tr[24] = {-0.5, 1.25, 1.0, 0.0, -0.25, -1.25, 1.25,
    0.25, 0.0, -1.0, -1.25, 0.5, 0.25, -0.75, -1.0, 0.75, 0.5, -0.5, -0.75,
    1.0, 0.75, -0.25, -0.5, 1.25};
static const double want_tr102[24] = {-0.5, 1.25, 0.25, -0.75, 1.25, 0.25,
    -0.75, 1.0, 1.0, 0.0, -1.0, 0.75, 0.0, -1.0, 0.75, -0.25, -0.25, -1.25,
    0.5, -0.5, -1.25, 0.5, -0.5, 1.25};
static const double want_sub1[6] = {0.5, -0.5, -1.0, 0.75, 0.25, -0.75};
static const double want_sub3[8] = {-0.25, -0.5, -0.5, -0.75, -1.25, 1.25,
    1.25, 1.0};
static const double want_sub5[8] = {-0.5, 1.25, 0.25, -0.75, 1.0, 0.0, -1.0,
    0.75};
static const double want_inc[24] = {-0.5, 1.25, 0.25, -0.75, 0.0, 2.5, -0.5,
    -0.75, -1.25, 1.25, 1.0, -2.0, 1.25, 0.25, -0.75, 1.0, 0.0, -1.0, 0.75,
    -0.25, -1.25, 0.5, -0.5, 1.25};
static const double want_set[24] = {9.0, 1.25, 0.25, -0.75, 1.0, 0.0, -1.0,
    0.75, 9.0, -1.25, 0.5, -0.5, 9.0, 0.25, -0.75, 1.0, 0.0, -1.0, 0.75,
    -0.25, 9.0, 0.5, -0.5, 1.25};
static const double want_inc2[24] = {-0.5, 1.25, 0.25, -0.75, 1.0, 0.0, -1.0,
    0.75, -0.25, -1.25, 0.5, -0.5, 1.25, 1.25, -0.75, 1.0, 0.0, 1.0, 0.75,
    -0.25, -1.25, 3.5, -0.5, 1.25};
static const double want_join0[9] = {-0.5, 1.25, 0.25, -0.75, 1.0, 0.0, -2.0,
    5.0, 1.0};
static const double want_join1[16] = {-0.5, 1.25, 0.25, -0.5, 1.25, -0.5,
    1.25, 0.25, -0.75, 1.0, 0.0, 0.25, -0.75, -0.75, 1.0, 0.0};

static const double want_take1[32] = {-0.25, -1.25, 0.5, -0.5, -0.25,
    -1.25, 0.5, -0.5, -0.5, 1.25, 0.25, -0.75, 0.0, 0.0, 0.0, 0.0, -1.25,
    0.5, -0.5, 1.25, -1.25, 0.5, -0.5, 1.25, 1.25, 0.25, -0.75, 1.0, 0.0,
    0.0, 0.0, 0.0};
static const double want_take0[24] = {-0.75, 1.0, 0.75, -0.25, -0.5, 1.25,
    -0.5, 1.25, 1.0, 0.0, -0.25, -1.25, -0.5, 1.25, 1.0, 0.0, -0.25, -1.25,
    1.25, 0.25, 0.0, -1.0, -1.25, 0.5};
static const double want_take_scalar[6] = {1.25, 0.0, -1.25, 0.25, -1.0,
    0.5};

/*
 * The tests.
 */

/* A variable whose value is a view of var src's value with the dimensions
 * reversed (a transpose: not contiguous). */
static int
var_reversed(int src)
{
	const struct gp_tensor *s = &g->vars[src].value;
	struct gp_type t = {.dtype = s->dtype, .ndim = s->ndim};
	struct gp_tensor *v;
	int idx;

	for (int d = 0; d < s->ndim; d++)
		t.shape[d] = s->shape[s->ndim - 1 - d];
	idx = gp_graph_add_var(g, NULL, GP_VAR_INPUT, &t);
	v = &g->vars[idx].value;
	gp_tensor_view(v, &g->vars[src].value);
	for (int d = 0; d < v->ndim; d++) {
		v->shape[d] = t.shape[d];
		v->strides[d] = g->vars[src].value.strides[v->ndim - 1 - d];
	}
	return (idx);
}

/* Run op on inputs; check the dtype, shape (as printed) and values.  A
 * view output must share the storage of input 0 (one more reference);
 * copy must not. */
enum { COPY, VIEW };

static void
shp(const char *op, const char *params, int nin, const int *in,
    enum gp_dtype dt, const char *shape, const double *want, int view,
    const char *what)
{
	int ni = node_ok(op, params, nin, in);
	const struct gp_tensor *x = &g->vars[in[0]].value;
	int64_t rc = x->storage->refcount;
	struct gp_tensor o;

	if (ni < 0)
		return;
	run_check(ni, &o, dt, shape, want, 0, what);
	if (view == VIEW)
		ok(o.storage == x->storage && x->storage->refcount == rc + 1,
		    "%s: a view sharing the input's storage (refcount %lld)",
		    what, (long long)x->storage->refcount);
	else
		ok(o.storage != x->storage && x->storage->refcount == rc,
		    "%s: a new storage", what);
	gp_tensor_release(&o);
	ok(x->storage->refcount == rc, "%s: released", what);
}

static void
test_dimshuffle(enum gp_dtype dt)
{
	int64_t s[3] = {2, 3, 4}, s13[2] = {1, 3};
	int x = var_fn(dt, 3, s, fa), r = var_fn(dt, 2, s13, fa);
	double w3[3] = {fa(0), fa(1), fa(2)};
	int ni;

	diag("%s", gp_dtype_name(dt));
	shp("dimshuffle", "{\"pattern\": [2, \"x\", 0, 1]}", 1, &x, dt,
	    "(4, 1, 2, 3)", want_ds, VIEW, "dimshuffle [2, x, 0, 1]");
	shp("dimshuffle", "{\"pattern\": [1]}", 1, &r, dt, "(3,)", w3, VIEW,
	    "dimshuffle drops a size-1 dimension");
	shp("transpose", NULL, 1, &x, dt, "(4, 3, 2)", want_tr, VIEW,
	    "transpose reverses by default");
	shp("transpose", "{\"axes\": [-2, 0, 2]}", 1, &x, dt, "(3, 2, 4)",
	    want_tr102, VIEW, "transpose axes [-2, 0, 2]");
	if ((ni = node_ok("dimshuffle", "{\"pattern\": [\"x\", 1, 0]}", 1,
	    &r)) >= 0) {
		format_is(ni, "DimShuffle{x,1,0}");
		ok(g->nodes[ni].view[0] == 0 &&
		    g->nodes[ni].impl == GP_IMPL_VIEW,
		    "dimshuffle declares view[0] = 0, impl View");
	}
	if ((ni = node_ok("transpose", NULL, 1, &r)) >= 0)
		format_is(ni, "DimShuffle{1,0}");
}

static void
test_reshape(enum gp_dtype dt)
{
	int64_t s[3] = {2, 3, 4};
	int x = var_fn(dt, 3, s, fa), xt = var_reversed(x);
	double xs[24];
	int ni;

	for (int i = 0; i < 24; i++)
		xs[i] = fa(i);
	shp("reshape", "{\"shape\": [6, -1]}", 1, &x, dt, "(6, 4)", xs, VIEW,
	    "reshape contiguous (2, 3, 4) to (6, -1)");
	shp("reshape", "{\"shape\": [4, 6]}", 1, &xt, dt, "(4, 6)", want_tr,
	    COPY, "reshape of a transpose copies");
	shp("reshape", "{\"shape\": [24]}", 1, &xt, dt, "(24,)", want_tr, COPY,
	    "reshape of a transpose to a vector copies");
	/* strides can address these (numpy views them too) */
	shp("reshape", "{\"shape\": [2, 2, 3, 2]}", 1, &xt, dt,
	    "(2, 2, 3, 2)", want_tr, VIEW, "reshape of a transpose that "
	    "splits its first dimension is a view");
	shp("reshape", "{\"shape\": [1, 4, 3, 1, 2]}", 1, &xt, dt,
	    "(1, 4, 3, 1, 2)", want_tr, VIEW, "reshape of a transpose that "
	    "adds size-1 dimensions is a view");
	shp("reshape", "{\"shape\": [4, 3, 2]}", 1, &xt, dt, "(4, 3, 2)",
	    want_tr, VIEW, "reshape of a transpose to its own shape is a view");
	shp("flatten", NULL, 1, &x, dt, "(24,)", xs, VIEW, "flatten");
	shp("flatten", "{\"ndim\": 2}", 1, &x, dt, "(2, 12)", xs, VIEW,
	    "flatten ndim 2");
	shp("flatten", "{\"ndim\": 2}", 1, &xt, dt, "(4, 6)", want_tr, COPY,
	    "flatten of a transpose copies");
	shp("flatten", "{\"ndim\": 3}", 1, &x, dt, "(2, 3, 4)", xs, VIEW,
	    "flatten ndim 3 keeps the shape");
	if ((ni = node_ok("reshape", "{\"shape\": [4, 6]}", 1, &x)) >= 0) {
		format_is(ni, "Reshape{2}");
		ok(g->nodes[ni].view[0] == 0, "reshape is declared a view");
	}
	if ((ni = node_ok("flatten", NULL, 1, &x)) >= 0)
		format_is(ni, "Flatten{1}");
	/* a scalar reshaped and flattened */
	{
		int sc = var_scalar(dt, 2.5);
		double w[1] = {2.5};

		shp("reshape", "{\"shape\": [1, 1]}", 1, &sc, dt, "(1, 1)", w,
		    VIEW, "reshape a 0-d tensor to (1, 1)");
		shp("flatten", NULL, 1, &sc, dt, "(1,)", w, VIEW,
		    "flatten a 0-d tensor");
	}
}

static void
test_alloc(enum gp_dtype dt)
{
	int64_t s3[1] = {3}, s21[2] = {2, 1};
	int sc = var_scalar(dt, 3.5), row = var_fn(dt, 1, s3, fa);
	int col = var_fn(dt, 2, s21, fa);
	double w1[6] = {3.5, 3.5, 3.5, 3.5, 3.5, 3.5};
	double w2[6] = {fa(0), fa(1), fa(2), fa(0), fa(1), fa(2)};
	double w3[6] = {fa(0), fa(0), fa(0), fa(1), fa(1), fa(1)};
	double z[6] = {0}, one[6] = {1, 1, 1, 1, 1, 1};
	int ni;

	shp("alloc", "{\"shape\": [2, 3]}", 1, &sc, dt, "(2, 3)", w1, COPY,
	    "alloc a 0-d value to (2, 3)");
	shp("alloc", "{\"shape\": [2, 3]}", 1, &row, dt, "(2, 3)", w2, COPY,
	    "alloc broadcasts a row");
	shp("alloc", "{\"shape\": [2, 3]}", 1, &col, dt, "(2, 3)", w3, COPY,
	    "alloc broadcasts a column");
	shp("alloc", "{\"shape\": []}", 1, &sc, dt, "()", w1, COPY,
	    "alloc to a 0-d tensor");
	if ((ni = node_ok("alloc", "{\"shape\": [2, 3]}", 1, &sc)) >= 0)
		format_is(ni, "Alloc");
	{
		int64_t s23[2] = {2, 3};
		int x = var_fn(dt, 2, s23, fa), xi = var_fn(GP_INT32, 2, s23,
		    fa);

		shp("zeros_like", NULL, 1, &x, dt, "(2, 3)", z, COPY,
		    "zeros_like");
		shp("ones_like", NULL, 1, &x, dt, "(2, 3)", one, COPY,
		    "ones_like");
		shp("ones_like", NULL, 1, &xi, GP_INT32, "(2, 3)", one, COPY,
		    "ones_like int32");
	}
}

static double
fa4(int i)
{
	return (fa(i) * 4);
}

/* Element i of the large join's inputs: distinct, exact in float32. */
static double
big_a(int i)
{
	return (i % 4093 + 0.5);
}

static double
big_b(int i)
{
	return (-(i % 3001) - 0.25);
}

/*
 * A join of inputs of several times the parallel join's piece (64 KB),
 * two rows of them (outer 2), on axis 1, with an input of one row between
 * them: its pieces spread over the threads (ops/shape.c, join_flat).  The
 * expected values come from the index arithmetic of numpy's concatenate.
 */
static void
test_join_large(enum gp_dtype dt)
{
	int64_t sa[3] = {2, 3000, 7}, sb[3] = {2, 5000, 7}, s1[3] = {2, 1, 7};
	int in[3] = {var_fn(dt, 3, sa, big_a), var_fn(dt, 3, s1, fa),
	    var_fn(dt, 3, sb, big_b)};
	int64_t rows = 3000 + 1 + 5000;
	double *want = malloc(sizeof(double) * (size_t)(2 * rows * 7));

	for (int64_t i = 0; i < 2; i++)
		for (int64_t j = 0; j < rows; j++)
			for (int64_t l = 0; l < 7; l++) {
				double v;

				if (j < 3000)
					v = big_a((int)((i * 3000 + j) * 7 + l));
				else if (j == 3000)
					v = fa((int)(i * 7 + l));
				else
					v = big_b((int)((i * 5000 + j - 3001) *
					    7 + l));
				want[(i * rows + j) * 7 + l] = v;
			}
	shp("join", "{\"axis\": 1}", 3, in, dt, "(2, 8001, 7)", want, COPY,
	    "join of inputs of several 64 KB pieces on axis 1");
	free(want);
}

static void
test_join(enum gp_dtype dt)
{
	int64_t s23[2] = {2, 3}, s13[2] = {1, 3}, s22[2] = {2, 2};
	int m = var_fn(dt, 2, s23, fa), n = var_fn(dt, 2, s13, fa4);
	int p = var_fn(dt, 2, s22, fa), in[3];
	int ni;

	in[0] = m;
	in[1] = n;
	shp("join", NULL, 2, in, dt, "(3, 3)", want_join0, COPY,
	    "join axis 0 (default)");
	in[1] = p;
	in[2] = m;
	shp("join", "{\"axis\": -1}", 3, in, dt, "(2, 8)", want_join1, COPY,
	    "join three inputs on axis -1");
	if ((ni = node_ok("join", "{\"axis\": 1}", 3, in)) >= 0)
		format_is(ni, "Join");
	/* a transposed input, and promotion int32 + float32 -> float64 */
	{
		int64_t s32[2] = {3, 2};
		int t = var_fn(dt, 2, s32, NULL), tt;
		int mi = var_fn(GP_INT32, 2, s13, fa4);
		double w[9];

		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 2; j++)
				gp_dtype_store(gp_tensor_data(
				    &g->vars[t].value) + (i * 2 + j) *
				    (int64_t)gp_dtype_size(dt), dt,
				    fa(j * 3 + i));
		tt = var_reversed(t);	/* (2, 3), equal to M */
		in[0] = tt;
		in[1] = mi;
		memcpy(w, want_join0, sizeof(w));
		shp("join", NULL, 2, in, dt == GP_FLOAT32 ? GP_FLOAT64 : dt,
		    "(3, 3)", w, COPY, "join a transposed and an int32 input");
	}
}

static void
test_subtensor(enum gp_dtype dt)
{
	int64_t s[3] = {2, 3, 4};
	int x = var_fn(dt, 3, s, fa);
	double w2[12], w4[4], w8[8];
	int ni;

	for (int i = 0; i < 12; i++)
		w2[i] = fa(12 + i);
	for (int i = 0; i < 8; i++)	/* X[:, 2:3] */
		w8[i] = fa(i < 4 ? 8 + i : 16 + i);
	for (int j = 0; j < 4; j++)
		w4[j] = fa(4 * 2 + j);
	shp("subtensor", "{\"idx\": [1, {\"step\": -1}, {\"start\": 1, "
	    "\"stop\": 3}]}", 1, &x, dt, "(3, 2)", want_sub1, VIEW,
	    "subtensor X[1, ::-1, 1:3]");
	shp("subtensor", "{\"idx\": [-1]}", 1, &x, dt, "(3, 4)", w2, VIEW,
	    "subtensor X[-1]");
	shp("subtensor", "{\"idx\": [{}, {\"start\": -1, \"step\": -2}, "
	    "{\"step\": 3}]}", 1, &x, dt, "(2, 2, 2)", want_sub3, VIEW,
	    "subtensor X[:, -1::-2, ::3]");
	shp("subtensor", "{\"idx\": [{\"start\": null}, {\"start\": 5, "
	    "\"stop\": 1, \"step\": -1}]}", 1, &x, dt, "(2, 1, 4)", w8, VIEW,
	    "subtensor X[:, 5:1:-1] clamps the start");
	shp("subtensor", "{\"idx\": [0, {\"start\": -10, \"stop\": 2}]}", 1,
	    &x, dt, "(2, 4)", want_sub5, VIEW, "subtensor X[0, -10:2]");
	shp("subtensor", "{\"idx\": [0, 2]}", 1, &x, dt, "(4,)", w4, VIEW,
	    "subtensor X[0, 2]");
	shp("subtensor", "{\"idx\": [{\"start\": 5}]}", 1, &x, dt,
	    "(0, 3, 4)", NULL, VIEW, "subtensor X[5:] is empty");
	if ((ni = node_ok("subtensor", "{\"idx\": [{\"start\": 0, \"stop\": "
	    "10, \"step\": 2}, {}]}", 1, &x)) >= 0) {
		format_is(ni, "Subtensor{0:10:2, ::}");
		ok(g->nodes[ni].view[0] == 0 &&
		    g->nodes[ni].impl == GP_IMPL_VIEW,
		    "subtensor declares a view");
	}
	if ((ni = node_ok("subtensor", "{\"idx\": [-1, {\"stop\": 2}]}", 1,
	    &x)) >= 0)
		format_is(ni, "Subtensor{-1, :2:}");
}

static void
test_incsubtensor(enum gp_dtype dt)
{
	int64_t s[3] = {2, 3, 4}, s4[1] = {4}, s3[1] = {3};
	int x = var_fn(dt, 3, s, fa), y = var_fn(dt, 1, s4, NULL);
	int nine = var_scalar(GP_INT32, 9), y3 = var_fn(GP_INT32, 1, s3, NULL);
	int in[2];
	int ni;

	for (int j = 0; j < 4; j++)
		gp_dtype_store(gp_tensor_data(&g->vars[y].value) + j *
		    (int64_t)gp_dtype_size(dt), dt, 2 * fa(j));
	for (int j = 0; j < 3; j++)
		((int32_t *)gp_tensor_data(&g->vars[y3].value))[j] = j + 1;
	in[0] = x;
	in[1] = y;
	shp("inc_subtensor", "{\"idx\": [0, {\"start\": 1}]}", 2, in, dt,
	    "(2, 3, 4)", want_inc, COPY, "inc_subtensor X[0, 1:] += Y (a row "
	    "broadcast)");
	in[1] = nine;
	shp("set_subtensor", "{\"idx\": [{}, {\"step\": 2}, 0]}", 2, in, dt,
	    "(2, 3, 4)", want_set, COPY, "set_subtensor X[:, ::2, 0] = 9 "
	    "(int32 0-d, cast)");
	in[1] = y3;
	shp("inc_subtensor", "{\"idx\": [1, {}, 1]}", 2, in, dt, "(2, 3, 4)",
	    want_inc2, COPY, "inc_subtensor X[1, :, 1] += [1, 2, 3] (int32, "
	    "cast)");
	if ((ni = node_ok("inc_subtensor", "{\"idx\": [1, {}, 1]}", 2,
	    in)) >= 0) {
		struct gp_node *n = &g->nodes[ni];
		struct gp_tensor xv = {0}, *ins[2], *outs[1] = {&xv};

		format_is(ni, "IncSubtensor{Inc;1, ::, 1}");
		ok(gp_node_flops(g, n) == (gp_dtype_is_float(dt) ? 3 : 0),
		    "inc_subtensor flops: one add per region element");
		n->destroy[0] = 0;
		format_is(ni, "IncSubtensor{InplaceInc;1, ::, 1}[(0, 0)]");
		ins[0] = &g->vars[x].value;
		ins[1] = &g->vars[y3].value;
		gp_tensor_view(&xv, ins[0]);
		n->kernel(n, ins, outs);
		check(&g->vars[x].value, want_inc2, 24, 0,
		    "inc_subtensor in place writes x");
		gp_tensor_release(&xv);
	}
	in[1] = nine;
	if ((ni = node_ok("set_subtensor", "{\"idx\": [0]}", 2, in)) >= 0)
		format_is(ni, "IncSubtensor{Set;0}");
}

static double
idx1(int i)
{
	static const double v[4] = {2, -1, 0, 5};

	return (v[i]);
}

static double
idx0(int i)
{
	static const double v[4] = {3, 0, -4, 1};

	return (v[i]);
}

/* take (ONNX's Gather): along axis 1 with a negative and an out-of-range
 * index; along axis 0 of a transposed (strided) x with 2-d int64
 * indices; a 0-d index that removes the axis */
static void
test_take(enum gp_dtype dt)
{
	int64_t s234[3] = {2, 3, 4}, s4[1] = {4}, s22[2] = {2, 2};
	int x = var_fn(dt, 3, s234, fa), in[2], ni;

	in[0] = x;
	in[1] = var_fn(GP_INT32, 1, s4, idx1);
	shp("take", "{\"axis\": 1}", 2, in, dt, "(2, 4, 4)", want_take1,
	    COPY, "take axis 1, indices 2, -1, 0, 5 (int32)");
	in[0] = var_reversed(x);
	in[1] = var_fn(GP_INT64, 2, s22, idx0);
	shp("take", NULL, 2, in, dt, "(2, 2, 3, 2)", want_take0, COPY,
	    "take axis 0 of a transposed x, 2-d int64 indices");
	in[0] = x;
	in[1] = var_scalar(GP_INT8, 1);
	shp("take", "{\"axis\": -1}", 2, in, dt, "(2, 3)", want_take_scalar,
	    COPY, "take a 0-d index on axis -1");
	if ((ni = node_ok("take", "{\"axis\": 2}", 2, in)) >= 0)
		format_is(ni, "Take{axis=2}");
	in[1] = var_scalar(GP_FLOAT32, 1);
	expect_err("take", NULL, 2, in, "take: the indices must be integers, "
	    "not float32", NULL, "take: float indices");
	in[1] = var_scalar(GP_INT64, 1);
	expect_err("take", "{\"axis\": 3}", 2, in, "param 'axis': axis 3 is "
	    "out of range for 3 dimensions", NULL, "take: axis out of range");
	in[0] = var_scalar(dt, 1);
	expect_err("take", NULL, 2, in, "take: x is 0-d", NULL,
	    "take: a 0-d x");
}

static void
test_ints(void)
{
	int64_t s[2] = {3, 4};
	int x = var_fn(GP_INT16, 2, s, NULL), xu = var_fn(GP_UINT8, 2, s, NULL);
	int in[2];
	double w[4], wt[12], wu[12];

	for (int i = 0; i < 12; i++) {
		((int16_t *)gp_tensor_data(&g->vars[x].value))[i] =
		    (int16_t)(i - 6);
		((uint8_t *)gp_tensor_data(&g->vars[xu].value))[i] =
		    (uint8_t)(250 + i % 4);
		wu[i] = (uint8_t)(250 + i % 4 + (i / 4 == 1 ? 10 : 0));
	}
	for (int j = 0; j < 4; j++)
		w[j] = 4 + j - 6;
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 3; j++)
			wt[i * 3 + j] = j * 4 + i - 6;
	shp("subtensor", "{\"idx\": [1]}", 1, &x, GP_INT16, "(4,)", w, VIEW,
	    "subtensor of int16");
	shp("transpose", NULL, 1, &x, GP_INT16, "(4, 3)", wt, VIEW,
	    "transpose of int16");
	{
		int xt = var_reversed(x);

		shp("reshape", "{\"shape\": [12]}", 1, &xt, GP_INT16, "(12,)",
		    wt, COPY, "reshape of a transposed int16 copies");
	}
	in[0] = xu;
	in[1] = var_scalar(GP_UINT8, 10);
	shp("inc_subtensor", "{\"idx\": [1]}", 2, in, GP_UINT8, "(3, 4)", wu,
	    COPY, "inc_subtensor of uint8 wraps like numpy");
}

static void
test_errors(void)
{
	int64_t s[3] = {2, 3, 4}, s3[1] = {3}, s22[2] = {2, 2}, s23[2] = {2, 3};
	int x = var_fn(GP_FLOAT64, 3, s, fa), v3 = var_fn(GP_FLOAT64, 1, s3,
	    fa);
	int m22 = var_fn(GP_FLOAT64, 2, s22, fa), m23 = var_fn(GP_FLOAT64, 2,
	    s23, fa);
	int sc = var_scalar(GP_FLOAT64, 1);
	int in[2];

	/* dimshuffle and transpose */
	expect_err("dimshuffle", NULL, 1, &x, "pattern", "list", "dimshuffle "
	    "needs a pattern");
	expect_err("dimshuffle", "{\"pattern\": [0, \"y\", 1, 2]}", 1, &x,
	    "entry 1", "\"x\"", "dimshuffle: a bad pattern entry");
	expect_err("dimshuffle", "{\"pattern\": [0, 1, 3]}", 1, &x,
	    "dimension 3 is out of range", NULL,
	    "dimshuffle: a dimension out of range");
	expect_err("dimshuffle", "{\"pattern\": [0, 1, 1, 2]}", 1, &x,
	    "repeated", NULL, "dimshuffle: a repeated dimension");
	expect_err("dimshuffle", "{\"pattern\": [0, 2]}", 1, &x,
	    "dimension 1 (size 3) is dropped", NULL,
	    "dimshuffle: dropping a non-broadcastable dimension");
	expect_err("transpose", "{\"axes\": [0, 1]}", 1, &x, "permutation",
	    NULL, "transpose: too few axes");
	expect_err("transpose", "{\"axes\": [0, 1, -3]}", 1, &x, "repeated",
	    NULL, "transpose: a repeated axis");
	/* reshape and flatten */
	expect_err("reshape", "{\"shape\": [5, 5]}", 1, &x, "(2, 3, 4)",
	    "(5, 5)", "reshape: a size mismatch names both shapes");
	expect_err("reshape", "{\"shape\": [-1, -1]}", 1, &x, "only one",
	    NULL, "reshape: two -1");
	expect_err("reshape", "{\"shape\": [5, -1]}", 1, &x, "(2, 3, 4)",
	    "-1", "reshape: -1 does not divide");
	expect_err("reshape", "{\"shape\": [2, -2]}", 1, &x, "negative", NULL,
	    "reshape: a negative size");
	expect_err("reshape", NULL, 1, &x, "param 'shape'", NULL,
	    "reshape needs a shape");
	expect_err("flatten", "{\"ndim\": 0}", 1, &x, "out of range", NULL,
	    "flatten: ndim 0");
	expect_err("flatten", "{\"ndim\": 4}", 1, &x, "1 to 3", NULL,
	    "flatten: ndim above the input's");
	/* alloc */
	expect_err("alloc", "{\"shape\": [2, 2]}", 1, &v3, "(3,)", "(2, 2)",
	    "alloc: a value that does not broadcast names both shapes");
	expect_err("alloc", "{\"shape\": [2, -1]}", 1, &sc, "entry 1", NULL,
	    "alloc: a negative size");
	/* join */
	in[0] = m23;
	in[1] = m22;
	expect_err("join", NULL, 2, in, "(2, 2)", "(2, 3)",
	    "join: a shape mismatch names both shapes");
	in[1] = v3;
	expect_err("join", "{\"axis\": 0}", 2, in, "(3,)", "dimensions",
	    "join: a rank mismatch");
	expect_err("join", "{\"axis\": 2}", 2, in, "axis 2 is out of range",
	    NULL, "join: a bad axis");
	in[0] = sc;
	in[1] = sc;
	expect_err("join", NULL, 2, in, "0-d", NULL, "join: 0-d inputs");
	/* subtensor */
	expect_err("subtensor", "{\"idx\": 1}", 1, &x, "param 'idx'", "list",
	    "subtensor: idx must be a list");
	expect_err("subtensor", "{\"idx\": [0, 0, 0, 0]}", 1, &x,
	    "4 indices for 3 dimensions", NULL, "subtensor: too many indices");
	expect_err("subtensor", "{\"idx\": [0, 3]}", 1, &x,
	    "index 3 is out of bounds for axis 1 with size 3", NULL,
	    "subtensor: an index out of bounds");
	expect_err("subtensor", "{\"idx\": [-3]}", 1, &x, "out of bounds",
	    NULL, "subtensor: a negative index out of bounds");
	expect_err("subtensor", "{\"idx\": [{\"step\": 0}]}", 1, &x,
	    "step cannot be zero", NULL, "subtensor: step 0");
	expect_err("subtensor", "{\"idx\": [\"1:2\"]}", 1, &x, "entry 0",
	    "slice object", "subtensor: a string entry");
	expect_err("subtensor", "{\"idx\": [{\"begin\": 1}]}", 1, &x,
	    "unknown slice key 'begin'", NULL, "subtensor: an unknown key");
	expect_err("subtensor", "{\"idx\": [{\"stop\": 1.5}]}", 1, &x,
	    "stop must be an integer", NULL, "subtensor: a float bound");
	/* inc_subtensor */
	in[0] = x;
	in[1] = m22;
	expect_err("inc_subtensor", "{\"idx\": [0]}", 2, in, "(2, 2)",
	    "(3, 4)", "inc_subtensor: y not broadcastable names both shapes");
	expect_err("set_subtensor", "{\"idx\": [0, 0, 0]}", 2, in, "(2, 2)",
	    "()", "set_subtensor: y larger than the region");
}

int
main(void)
{
	g = gp_graph_new("test-shape");
	test_dimshuffle(GP_FLOAT32);
	test_dimshuffle(GP_FLOAT64);
	test_reshape(GP_FLOAT32);
	test_reshape(GP_FLOAT64);
	test_alloc(GP_FLOAT32);
	test_alloc(GP_FLOAT64);
	test_join(GP_FLOAT32);
	test_join(GP_FLOAT64);
	test_join_large(GP_FLOAT32);
	test_join_large(GP_FLOAT64);
	test_subtensor(GP_FLOAT32);
	test_subtensor(GP_FLOAT64);
	test_incsubtensor(GP_FLOAT32);
	test_incsubtensor(GP_FLOAT64);
	test_take(GP_FLOAT32);
	test_take(GP_FLOAT64);
	test_ints();
	test_errors();
	gp_graph_free(g);
	return (done_testing());
}
