/*
 * test-elemwise.c: the elementwise op family.  Every op in float32 and
 * float64 against numpy's values, the integer and bool dtypes, broadcasting,
 * promotion, strided and in-place operands, the integer division rules, NaN
 * and overflow edges, cast clamping, n-ary add and mul, prepare errors, and
 * the scalar op API fusion and the JIT use.  Kernels run directly: each test
 * builds a tiny graph, allocates the output and calls n->kernel.
 */
#include "config.h"

#include <jansson.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "ops/elemwise.h"
#include "graph/tensor.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static struct gp_graph *g;
static struct gp_err err;

static void
reset(void)
{
	gp_graph_free(g);
	g = gp_graph_new("test");
	memset(&err, 0, sizeof(err));
}

/* A new input variable holding vals in C order (NULL: 0, 1, 2, ...). */
static int
input(enum gp_dtype dt, int ndim, const int64_t *shape, const double *vals)
{
	static const int64_t none[1] = {1};
	struct gp_type t = {.dtype = dt, .ndim = ndim};
	struct gp_tensor *v;
	int idx;
	int64_t n;

	if (shape == NULL)	/* a 0-d tensor (memcpy wants a pointer) */
		shape = none;
	memcpy(t.shape, shape, sizeof(int64_t) * (size_t)ndim);
	idx = gp_graph_add_var(g, NULL, GP_VAR_INPUT, &t);
	v = &g->vars[idx].value;
	gp_tensor_alloc(v, dt, ndim, shape);
	n = gp_tensor_numel(v);
	for (int64_t i = 0; i < n; i++)
		gp_dtype_store(gp_tensor_data(v) + i * (int64_t)gp_dtype_size(dt),
		    dt, vals != NULL ? vals[i] : (double)i);
	return (idx);
}

static int
input1(enum gp_dtype dt, int64_t n, const double *vals)
{
	return (input(dt, 1, &n, vals));
}

static struct gp_tensor *
value(int v)
{
	return (&g->vars[v].value);
}

/* Add op(in...) with params (stolen); the node, or -1 with err set. */
static int
node(const char *name, json_t *params, int n, const int *in)
{
	const struct gp_op *op = gp_op_find(name);

	if (op == NULL) {
		diag("no op '%s'", name);
		if (params != NULL)
			json_decref(params);
		return (-1);
	}
	return (gp_graph_add_node(g, op, params, n, in, 1, &err));
}

static int
node2(const char *name, int a, int b)
{
	int in[2] = {a, b};

	return (node(name, NULL, 2, in));
}

static const struct gp_type *
out_type(int i)
{
	return (gp_graph_out_type(g, &g->nodes[i], 0));
}

/* Run node i's kernel with its inputs' values; out is the output tensor
 * (allocated here when alloc, else given: an input's tensor in place). */
static void
run_into(int i, struct gp_tensor *out, bool alloc)
{
	struct gp_node *n = &g->nodes[i];
	struct gp_tensor *in[64], *o[1] = {out};
	const struct gp_type *t = out_type(i);

	if (alloc)
		gp_tensor_alloc(out, t->dtype, t->ndim, t->shape);
	for (int k = 0; k < n->n_in; k++)
		in[k] = value(n->in[k]);
	n->kernel(n, in, o);
}

static void
run(int i, struct gp_tensor *out)
{
	run_into(i, out, true);
}

/* Every element of t is within tol (relative above 1) of want. */
static bool
close_to(const struct gp_tensor *t, const double *want, double tol)
{
	int64_t n = gp_tensor_numel(t);

	for (int64_t i = 0; i < n; i++) {
		double got = gp_tensor_get(t, i), w = want[i];
		double scale = fabs(w) > 1 ? fabs(w) : 1;
		bool good = isnan(w) ? isnan(got) : isinf(w) ? got == w :
		    fabs(got - w) <= tol * scale;

		if (!good) {
			diag("  [%lld] got %.17g, want %.17g", (long long)i,
			    got, w);
			return (false);
		}
	}
	return (true);
}

static bool
shape_is(const struct gp_type *t, int ndim, const int64_t *shape)
{
	if (t->ndim != ndim)
		return (false);
	for (int i = 0; i < ndim; i++)
		if (t->shape[i] != shape[i])
			return (false);
	return (true);
}

/*
 * Expected values: printed by numpy 1.24.2 (python3-numpy of Debian 12),
 * in float64, with this script, then pasted:
 *
 *   import numpy as np
 *   np.seterr(all="ignore")
 *   x = np.array([-2.5, -1, -0.25, 0, 0.5, 1, 2.25, 7.5])
 *   y = np.array([1.5, -4, 0.75, 2, -0.5, 1, -3, 0.5])
 *   p = np.array([0.125, 0.25, 0.5, 1, 2, 3.75, 10, 123.5])
 *   sig = lambda v: 1 / (1 + np.exp(-v))
 *   un = [("neg", np.negative, x), ("abs", np.abs, x),
 *         ("sqr", np.square, x), ("sqrt", np.sqrt, p), ("exp", np.exp, x),
 *         ("log", np.log, p), ("log1p", np.log1p, p),
 *         ("expm1", np.expm1, x), ("sigmoid", sig, x),
 *         ("softplus", lambda v: np.logaddexp(0, v), x),
 *         ("tanh", np.tanh, x), ("sin", np.sin, x), ("cos", np.cos, x)]
 *   bi = [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
 *         ("true_div", np.true_divide), ("int_div", np.floor_divide),
 *         ("mod", np.remainder), ("maximum", np.maximum),
 *         ("minimum", np.minimum), ("gt", np.greater),
 *         ("ge", np.greater_equal), ("lt", np.less),
 *         ("le", np.less_equal), ("eq", np.equal),
 *         ("neq", np.not_equal)]
 *   f = lambda a: ", ".join(repr(float(v)) for v in a)
 *   for n, fn, d in un:
 *       print('{"%s", %s, {%s}},' % (n, "X" if d is x else "P", f(fn(d))))
 *   for n, fn in bi:
 *       print('{"%s", X, Y, {%s}},' % (n, f(fn(x, y))))
 *   print('{"pow", P, Y, {%s}},' % f(np.power(p, y)))
 *
 * The ops numpy lacks (or that it has but with no second opinion) are
 * computed with mpmath 1.2.1 (python3-mpmath of Debian 12) at 50 digits,
 * then rounded to float64, by this script:
 *
 *   import mpmath as mp
 *   mp.mp.dps = 50
 *   X = [-2.5, -1, -0.25, 0, 0.5, 1, 2.25, 7.5]
 *   R = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.25, -3.75]
 *   U = [-1, -0.75, -0.5, -0.125, 0, 0.25, 0.5, 0.875]
 *   H = [1, 1.25, 1.5, 2, 3.75, 10, 123.5, 1e6]
 *   def sp(v): return mp.log(1 + mp.exp(v))
 *   def rnd(v):   # halves to even
 *       f = mp.floor(v); d = v - f
 *       return f + 1 if d > 0.5 or (d == 0.5 and f % 2 == 1) else f
 *   un = [("tan", mp.tan, "X"), ("asin", mp.asin, "U"),
 *         ("acos", mp.acos, "U"), ("atan", mp.atan, "X"),
 *         ("sinh", mp.sinh, "X"), ("cosh", mp.cosh, "X"),
 *         ("asinh", mp.asinh, "X"), ("acosh", mp.acosh, "H"),
 *         ("atanh", mp.atanh, "U"), ("erf", mp.erf, "X"),
 *         ("floor", mp.floor, "R"), ("ceil", mp.ceil, "R"),
 *         ("round", rnd, "R"),
 *         ("gelu", lambda v: v * (1 + mp.erf(v / mp.sqrt(2))) / 2, "X"),
 *         ("gelu_tanh", lambda v: v * (1 + mp.tanh(mp.sqrt(2 / mp.pi) *
 *             (v + mp.mpf("0.044715") * v ** 3))) / 2, "X"),
 *         ("mish", lambda v: v * mp.tanh(sp(v)), "X")]
 *   D = dict(X=X, R=R, U=U, H=H)
 *   def f(vals):
 *       return ", ".join(("-INFINITY" if v < 0 else "INFINITY")
 *           if mp.isinf(v) else repr(float(v)) for v in vals)
 *   for n, fn, d in un:
 *       vals = [mp.inf * mp.sign(v) if n == "atanh" and abs(v) == 1
 *               else fn(mp.mpf(v)) for v in D[d]]
 *       print('{"%s", %s, {%s}},' % (n, d, f(vals)))
 *
 * Every input is exact in float32, so the float32 runs compare against the
 * same values at float32 precision.
 */
enum {
	X, Y, P, R, U, H
};

static const double dom[6][8] = {
	[X] = {-2.5, -1, -0.25, 0, 0.5, 1, 2.25, 7.5},
	[Y] = {1.5, -4, 0.75, 2, -0.5, 1, -3, 0.5},
	[P] = {0.125, 0.25, 0.5, 1, 2, 3.75, 10, 123.5},
	[R] = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.25, -3.75},
	[U] = {-1, -0.75, -0.5, -0.125, 0, 0.25, 0.5, 0.875},
	[H] = {1, 1.25, 1.5, 2, 3.75, 10, 123.5, 1e6},
};

static const struct {
	const char	*op;
	int		 a;
	double		 want[8];
} unary[] = {
	{"neg", X, {2.5, 1.0, 0.25, -0.0, -0.5, -1.0, -2.25, -7.5}},
	{"abs", X, {2.5, 1.0, 0.25, 0.0, 0.5, 1.0, 2.25, 7.5}},
	{"sqr", X, {6.25, 1.0, 0.0625, 0.0, 0.25, 1.0, 5.0625, 56.25}},
	{"sqrt", P, {0.3535533905932738, 0.5, 0.7071067811865476, 1.0,
	    1.4142135623730951, 1.9364916731037085, 3.1622776601683795,
	    11.113055385446435}},
	{"exp", X, {0.0820849986238988, 0.3678794411714424,
	    0.7788007830714049, 1.0, 1.6487212707001282, 2.718281828459045,
	    9.487735836358526, 1808.0424144560632}},
	{"log", P, {-2.0794415416798357, -1.3862943611198906,
	    -0.6931471805599453, 0.0, 0.6931471805599453, 1.3217558399823195,
	    2.3025850929940455, 4.816241156068032}},
	{"log1p", P, {0.11778303565638346, 0.22314355131420974,
	    0.4054651081081644, 0.6931471805599453, 1.0986122886681096,
	    1.55814461804655, 2.3978952727983707, 4.824305715904762}},
	{"expm1", X, {-0.9179150013761012, -0.6321205588285577,
	    -0.22119921692859512, 0.0, 0.6487212707001282, 1.7182818284590453,
	    8.487735836358526, 1807.0424144560632}},
	{"sigmoid", X, {0.07585818002124355, 0.2689414213699951,
	    0.43782349911420193, 0.5, 0.6224593312018546, 0.7310585786300049,
	    0.9046505351008906, 0.9994472213630764}},
	{"softplus", X, {0.07888973429254963, 0.31326168751822286,
	    0.5759394198788436, 0.6931471805599453, 0.9740769841801067,
	    1.3132616875182228, 2.350206558916747, 7.500552931475361}},
	{"tanh", X, {-0.9866142981514303, -0.7615941559557649,
	    -0.24491866240370913, 0.0, 0.46211715726000974,
	    0.7615941559557649, 0.9780261147388136, 0.9999993881955461}},
	{"sin", X, {-0.5984721441039564, -0.8414709848078965,
	    -0.24740395925452296, 0.0, 0.47942553860420295,
	    0.8414709848078965, 0.7780731968879213, 0.9379999767747389}},
	{"cos", X, {-0.8011436155469338, 0.5403023058681397,
	    0.968912421710645, 1.0, 0.8775825618903725, 0.5403023058681397,
	    -0.628173622722739, 0.3466353178350259}},
	/* from mpmath (above) */
	{"tan", X, {0.7470222972386603, -1.5574077246549023,
	    -0.25534192122103627, 0.0, 0.5463024898437905,
	    1.5574077246549023, -1.2386276162240966,
	    2.706013866772691}},
	{"asin", U, {-1.5707963267948966, -0.848062078981481,
	    -0.5235987755982989, -0.1253278311680654, 0.0,
	    0.25268025514207865, 0.5235987755982989,
	    1.0654358165107394}},
	{"acos", U, {3.141592653589793, 2.4188584057763776,
	    2.0943951023931957, 1.696124157962962, 1.5707963267948966,
	    1.318116071652818, 1.0471975511965979, 0.5053605102841573}},
	{"atan", X, {-1.1902899496825317, -0.7853981633974483,
	    -0.24497866312686414, 0.0, 0.4636476090008061,
	    0.7853981633974483, 1.1525719972156676,
	    1.4382447944982226}},
	{"sinh", X, {-6.0502044810397875, -1.1752011936438014,
	    -0.2526123168081683, 0.0, 0.5210953054937474,
	    1.1752011936438014, 4.691168305898331, 904.0209306858466}},
	{"cosh", X, {6.132289479663686, 1.5430806348152437,
	    1.0314130998795732, 1.0, 1.1276259652063807,
	    1.5430806348152437, 4.796567530460195, 904.0214837702167}},
	{"asinh", X, {-1.6472311463710958, -0.881373587019543,
	    -0.24746646154726346, 0.0, 0.48121182505960347,
	    0.881373587019543, 1.5501579568690622, 2.712465305184344}},
	{"acosh", H, {0.0, 0.6931471805599453, 0.9624236501192069,
	    1.3169578969248168, 1.9966315184985717, 2.993222846126381,
	    5.509371945200689, 14.508657738523969}},
	{"atanh", U, {-INFINITY, -0.9729550745276566,
	    -0.5493061443340549, -0.12565721414045303, 0.0,
	    0.25541281188299536, 0.5493061443340549,
	    1.354025100551105}},
	{"erf", X, {-0.999593047982555, -0.8427007929497149,
	    -0.27632639016823696, 0.0, 0.5204998778130465,
	    0.8427007929497149, 0.9985372834133188, 1.0}},
	{"floor", R, {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 2.0, -4.0}},
	{"ceil", R, {-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 3.0, -3.0}},
	{"round", R, {-2.0, -2.0, 0.0, 0.0, 2.0, 2.0, 2.0, -4.0}},
	{"gelu", X, {-0.015524163314440337, -0.15865525393145705,
	    -0.10032341857926907, 0.0, 0.34573123063700656,
	    0.8413447460685429, 2.2224949365261493, 7.499999999999761}},
	{"gelu_tanh", X, {-0.015084266089998582, -0.1588080093917233,
	    -0.100324649298315, 0.0, 0.34571400982514394,
	    0.8411919906082767, 2.2227986701027116, 7.5}},
	{"mish", X, {-0.19681620390653334, -0.3034014613741089,
	    -0.12992696367914103, 0.0, 0.37524521130489513,
	    0.8650983882673103, 2.209456757662626, 7.499995416538079}},
	/* not from numpy: identity is the input */
	{"identity", X, {-2.5, -1, -0.25, 0, 0.5, 1, 2.25, 7.5}},
};

static const struct {
	const char	*op;
	int		 a, b;
	double		 want[8];
} binary[] = {
	{"add", X, Y, {-1.0, -5.0, 0.5, 2.0, 0.0, 2.0, -0.75, 8.0}},
	{"sub", X, Y, {-4.0, 3.0, -1.0, -2.0, 1.0, 0.0, 5.25, 7.0}},
	{"mul", X, Y, {-3.75, 4.0, -0.1875, 0.0, -0.25, 1.0, -6.75, 3.75}},
	{"true_div", X, Y, {-1.6666666666666667, 0.25, -0.3333333333333333,
	    0.0, -1.0, 1.0, -0.75, 15.0}},
	{"int_div", X, Y, {-2.0, 0.0, -1.0, 0.0, -1.0, 1.0, -1.0, 15.0}},
	{"mod", X, Y, {0.5, -1.0, 0.5, 0.0, -0.0, 0.0, -0.75, 0.0}},
	{"maximum", X, Y, {1.5, -1.0, 0.75, 2.0, 0.5, 1.0, 2.25, 7.5}},
	{"minimum", X, Y, {-2.5, -4.0, -0.25, 0.0, -0.5, 1.0, -3.0, 0.5}},
	{"gt", X, Y, {0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0}},
	{"ge", X, Y, {0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0}},
	{"lt", X, Y, {1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0}},
	{"le", X, Y, {1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0}},
	{"eq", X, Y, {0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0}},
	{"neq", X, Y, {1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0}},
	{"pow", P, Y, {0.04419417382415922, 256.0, 0.5946035575013605, 1.0,
	    0.7071067811865476, 3.75, 0.001, 11.113055385446433}},
	/* C's fmod (the dividend's sign), with mpmath at 50 digits:
	 *   tr = lambda v: mp.floor(v) if v >= 0 else mp.ceil(v)
	 *   [mp.mpf(a) - tr(mp.mpf(a) / b) * b for a, b in zip(X, Y)] */
	{"fmod", X, Y, {-1.0, -1.0, -0.25, 0.0, 0.0, 0.0, 2.25, 0.0}},
	/* not from numpy: fill (second) gives its second input */
	{"fill", X, Y, {1.5, -4, 0.75, 2, -0.5, 1, -3, 0.5}},
	{"second", X, Y, {1.5, -4, 0.75, 2, -0.5, 1, -3, 0.5}},
};

static bool
is_compare(const char *op)
{
	static const char *const cmp[] = {"gt", "ge", "lt", "le", "eq", "neq"};

	for (size_t i = 0; i < NELEM(cmp); i++)
		if (strcmp(op, cmp[i]) == 0)
			return (true);
	return (false);
}

static void
test_float_ops(void)
{
	static const enum gp_dtype fdt[2] = {GP_FLOAT32, GP_FLOAT64};

	for (int f = 0; f < 2; f++) {
		enum gp_dtype dt = fdt[f];
		double tol = dt == GP_FLOAT32 ? 1e-6 : 1e-13;

		for (size_t c = 0; c < NELEM(unary); c++) {
			struct gp_tensor o = {0};
			int a, i;

			reset();
			a = input1(dt, 8, dom[unary[c].a]);
			i = node(unary[c].op, NULL, 1, &a);
			if (!ok(i >= 0, "%s %s prepares", unary[c].op,
			    gp_dtype_name(dt)))
				continue;
			run(i, &o);
			ok(o.dtype == dt && close_to(&o, unary[c].want, tol),
			    "%s %s matches numpy", unary[c].op,
			    gp_dtype_name(dt));
			gp_tensor_release(&o);
		}
		for (size_t c = 0; c < NELEM(binary); c++) {
			struct gp_tensor o = {0};
			enum gp_dtype want_dt = is_compare(binary[c].op) ?
			    GP_BOOL : dt;
			int i;

			reset();
			i = node2(binary[c].op, input1(dt, 8, dom[binary[c].a]),
			    input1(dt, 8, dom[binary[c].b]));
			if (!ok(i >= 0, "%s %s prepares", binary[c].op,
			    gp_dtype_name(dt)))
				continue;
			run(i, &o);
			ok(o.dtype == want_dt &&
			    close_to(&o, binary[c].want, tol),
			    "%s %s matches numpy", binary[c].op,
			    gp_dtype_name(dt));
			gp_tensor_release(&o);
		}
	}
}

/* add, mul, maximum, comparisons ... in every dtype, against the same
 * arithmetic done in double (values small enough not to wrap). */
static void
test_all_dtypes(void)
{
	static const double a[5] = {0, 1, 2, 5, 3};
	static const double b[5] = {1, 1, 3, 2, 3};
	static const char *const ops[] = {"add", "sub", "mul", "maximum",
	    "minimum", "gt", "le", "eq", "neq", "neg", "abs", "sqr",
	    "identity"};

	for (int dt = 0; dt < GP_DTYPE__COUNT; dt++) {
		bool good = true;

		for (size_t k = 0; k < NELEM(ops); k++) {
			const char *op = ops[k];
			bool un = strcmp(op, "neg") == 0 ||
			    strcmp(op, "abs") == 0 || strcmp(op, "sqr") == 0 ||
			    strcmp(op, "identity") == 0;
			struct gp_tensor o = {0};
			double want[5];
			int va, vb, i;

			if (dt == GP_BOOL && (strcmp(op, "sub") == 0 ||
			    strcmp(op, "neg") == 0))
				continue;
			reset();
			va = input1(dt, 5, a);
			vb = input1(dt, 5, b);
			i = un ? node(op, NULL, 1, &va) : node2(op, va, vb);
			if (i < 0) {
				diag("%s %s: %s", op, gp_dtype_name(dt),
				    err.msg);
				good = false;
				continue;
			}
			for (int e = 0; e < 5; e++) {
				double x = gp_tensor_get(value(va), e);
				double y = gp_tensor_get(value(vb), e);
				bool bl = dt == GP_BOOL;

				if (strcmp(op, "add") == 0)
					want[e] = bl ? (x || y) : x + y;
				else if (strcmp(op, "sub") == 0)
					want[e] = x - y;
				else if (strcmp(op, "mul") == 0)
					want[e] = x * y;
				else if (strcmp(op, "maximum") == 0)
					want[e] = x > y ? x : y;
				else if (strcmp(op, "minimum") == 0)
					want[e] = x < y ? x : y;
				else if (strcmp(op, "gt") == 0)
					want[e] = x > y;
				else if (strcmp(op, "le") == 0)
					want[e] = x <= y;
				else if (strcmp(op, "eq") == 0)
					want[e] = x == y;
				else if (strcmp(op, "neq") == 0)
					want[e] = x != y;
				else if (strcmp(op, "neg") == 0)
					want[e] = -x;
				else if (strcmp(op, "abs") == 0)
					want[e] = fabs(x);
				else if (strcmp(op, "sqr") == 0)
					want[e] = x * x;
				else
					want[e] = x;
				/* sub of unsigned wraps */
				if (want[e] < 0 &&
				    gp_dtype_table[dt].kind == GP_KIND_UINT)
					want[e] += ldexp(1,
					    8 * (int)gp_dtype_size(dt));
			}
			run(i, &o);
			if (!close_to(&o, want, 1e-6)) {
				diag("%s %s", op, gp_dtype_name(dt));
				good = false;
			}
			gp_tensor_release(&o);
		}
		ok(good, "arithmetic and comparisons in %s", gp_dtype_name(dt));
	}
}

/*
 * The ops with operands for ONNX's attributes, and the predicates and
 * shifts.  celu and shrink from mpmath at 50 digits (the script above):
 *   [v if v > 0 else 2 * mp.expm1(mp.mpf(v) / 2) for v in X]
 *   [v + 0.25 if v < -0.5 else v - 0.25 if v > 0.5 else 0 for v in X]
 * the rest by hand.
 */
static void
test_math_params(void)
{
	static const double celu2[8] = {-1.4269904062796197,
	    -0.7869386805747332, -0.2350061948308092, 0.0, 0.5, 1.0, 2.25,
	    7.5};
	static const double shrunk[8] = {-2.25, -0.75, 0, 0, 0, 0.75, 2.0,
	    7.25};
	static const double two[8] = {2, 2, 2, 2, 2, 2, 2, 2};
	static const double special[6] = {NAN, INFINITY, -INFINITY, 0, 1.5,
	    -2};
	static const double nan_want[6] = {1, 0, 0, 0, 0, 0};
	static const double inf_want[6] = {0, 1, 1, 0, 0, 0};
	static const double none[6] = {0, 0, 0, 0, 0, 0};
	static const double u8a[4] = {1, 3, 255, 16}, u8b[4] = {1, 2, 1, 8};
	static const double u8l[4] = {2, 12, 254, 0}, u8r[4] = {0, 0, 127, 0};
	static const double i32a[4] = {-8, 8, -1, 100}, i32b[4] = {1, 2, 40,
	    3};
	static const double i32r[4] = {-4, 2, -1, 12};
	static const double i32l[4] = {-16, 32, 0, 800};
	static const enum gp_dtype fdt[2] = {GP_FLOAT32, GP_FLOAT64};
	struct gp_tensor o = {0};
	int i, in[3];

	for (int f = 0; f < 2; f++) {
		enum gp_dtype dt = fdt[f];
		const char *dn = gp_dtype_name(dt);
		double tol = dt == GP_FLOAT32 ? 1e-6 : 1e-13;

		reset();
		i = node2("celu", input1(dt, 8, dom[X]), input1(dt, 8, two));
		if (ok(i >= 0, "celu %s prepares", dn)) {
			run(i, &o);
			ok(o.dtype == dt && close_to(&o, celu2, tol),
			    "celu(x, 2) %s matches mpmath", dn);
			gp_tensor_release(&o);
		}
		reset();
		in[0] = input1(dt, 8, dom[X]);
		in[1] = input(dt, 0, NULL, (const double[]){0.5});
		in[2] = input(dt, 0, NULL, (const double[]){0.25});
		i = node("shrink", NULL, 3, in);
		if (ok(i >= 0, "shrink %s prepares", dn)) {
			run(i, &o);
			ok(o.dtype == dt && close_to(&o, shrunk, tol),
			    "shrink(x, 0.5, 0.25) %s", dn);
			gp_tensor_release(&o);
		}
		for (int k = 0; k < 2; k++) {
			reset();
			in[0] = input1(dt, 6, special);
			i = node(k ? "isinf" : "isnan", NULL, 1, in);
			if (!ok(i >= 0, "%s %s prepares", k ? "isinf" : "isnan",
			    dn))
				continue;
			run(i, &o);
			ok(o.dtype == GP_BOOL && close_to(&o, k ? inf_want :
			    nan_want, 0), "%s %s of NaN, inf, -inf, 0, 1.5, -2",
			    k ? "isinf" : "isnan", dn);
			gp_tensor_release(&o);
		}
	}
	/* integers are never NaN nor infinite */
	for (int k = 0; k < 2; k++) {
		reset();
		in[0] = input1(GP_INT32, 3, special + 3);
		i = node(k ? "isinf" : "isnan", NULL, 1, in);
		if (ok(i >= 0, "%s int32 prepares", k ? "isinf" : "isnan")) {
			run(i, &o);
			ok(o.dtype == GP_BOOL && close_to(&o, none, 0),
			    "%s int32: all false", k ? "isinf" : "isnan");
			gp_tensor_release(&o);
		}
	}
	/* shifts: bits shifted out are lost, a count of the width or more
	 * gives 0 (-1 for a negative number shifted right) */
	for (int k = 0; k < 4; k++) {
		bool u8 = k < 2, left = k % 2 == 0;
		enum gp_dtype dt = u8 ? GP_UINT8 : GP_INT32;

		reset();
		i = node2(left ? "lshift" : "rshift",
		    input1(dt, 4, u8 ? u8a : i32a), input1(dt, 4, u8 ? u8b :
		    i32b));
		if (!ok(i >= 0, "%s %s prepares", left ? "lshift" : "rshift",
		    gp_dtype_name(dt)))
			continue;
		run(i, &o);
		ok(o.dtype == dt && close_to(&o, u8 ? (left ? u8l : u8r) :
		    (left ? i32l : i32r), 0), "%s %s", left ? "lshift" :
		    "rshift", gp_dtype_name(dt));
		gp_tensor_release(&o);
	}
	reset();
	i = node2("lshift", input1(GP_FLOAT64, 4, u8a), input1(GP_FLOAT64, 4,
	    u8b));
	ok(i < 0 && strstr(err.msg, "not defined for float64") != NULL,
	    "lshift of floats is an error: %s", err.msg);
}

/* gelu, gelu_tanh, mish, erf, tan, asinh over 37 elements (the vector
 * loops' full vectors and tail where libmvec runs them) against the same
 * formulas in double with C's libm. */
static double
ref_gelu(double x)
{
	return (x * 0.5 * (1 + erf(x / sqrt(2))));
}

static double
ref_gelu_tanh(double x)
{
	return (0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x *
	    x))));
}

static double
ref_mish(double x)
{
	return (x * tanh(log1p(exp(-fabs(x))) + (x > 0 ? x : 0)));
}

static void
test_math_long(void)
{
	static const struct {
		const char	*op;
		double		 (*f)(double);
	} fs[] = {
		{"gelu", ref_gelu}, {"gelu_tanh", ref_gelu_tanh},
		{"mish", ref_mish}, {"erf", erf}, {"tan", tan},
		{"asinh", asinh},
	};
	double x[37], want[37];

	for (int i = 0; i < 37; i++)
		x[i] = -4.5 + 0.25 * i;
	for (int f = 0; f < 2; f++) {
		enum gp_dtype dt = f ? GP_FLOAT64 : GP_FLOAT32;

		for (size_t k = 0; k < NELEM(fs); k++) {
			struct gp_tensor o = {0};
			int a, i;

			for (int e = 0; e < 37; e++)
				want[e] = fs[k].f(x[e]);
			reset();
			a = input1(dt, 37, x);
			i = node(fs[k].op, NULL, 1, &a);
			if (!ok(i >= 0, "%s %s prepares", fs[k].op,
			    gp_dtype_name(dt)))
				continue;
			run(i, &o);
			ok(close_to(&o, want, f ? 1e-13 : 2e-6), "%s %s over 37 "
			    "elements matches libm in double", fs[k].op,
			    gp_dtype_name(dt));
			gp_tensor_release(&o);
		}
	}
}

static void
test_int_div_mod(void)
{
	/* numpy 1.24: a // b and a % b on int32 arrays (numpy gives 0 for a
	 * zero divisor and wraps INT32_MIN // -1, as here) */
	static const double a[10] = {7, -7, 7, -7, 5, 0, -2147483648.0,
	    -2147483648.0, -1, 3};
	static const double b[10] = {2, 2, -2, -2, 0, 0, -1, 1, 3, -5};
	static const double q[10] = {3, -4, -4, 3, 0, 0, -2147483648.0,
	    -2147483648.0, -1, -1};
	static const double r[10] = {1, 1, -1, -1, 0, 0, 0, 0, 2, -2};
	static const double ua[4] = {200, 200, 7, 0};
	static const double ub[4] = {7, 0, 200, 0};
	static const double uq[4] = {28, 0, 0, 0};
	static const double ur[4] = {4, 0, 7, 0};
	/* numpy: floor_divide and remainder of floats by 0 */
	static const double fa[3] = {1, -1, 0};
	static const double fz[3] = {0, 0, 0};
	static const double fq[3] = {INFINITY, -INFINITY, NAN};
	static const double fr[3] = {NAN, NAN, NAN};
	struct gp_tensor o = {0};
	int i, j;

	reset();
	i = node2("int_div", input1(GP_INT32, 10, a), input1(GP_INT32, 10, b));
	j = node2("mod", g->nodes[i].in[0], g->nodes[i].in[1]);
	run(i, &o);
	ok(o.dtype == GP_INT32 && close_to(&o, q, 0),
	    "int32 int_div floors, x // 0 is 0, INT32_MIN // -1 wraps");
	gp_tensor_release(&o);
	run(j, &o);
	ok(close_to(&o, r, 0), "int32 mod has the divisor's sign, x %% 0 "
	    "is 0");
	gp_tensor_release(&o);
	for (int dt = GP_INT8; dt <= GP_INT64; dt++) {
		static const double sa[4] = {-7, 7, -128, 100};
		static const double sb[4] = {2, -3, -1, 0};
		static const double sq[4] = {-4, -3, -128, 0};
		static const double sr[4] = {1, -2, 0, 0};
		double wq[4], wr[4];
		bool good;

		memcpy(wq, sq, sizeof(wq));
		memcpy(wr, sr, sizeof(wr));
		if (dt != GP_INT8)
			wq[2] = 128;	/* -128 // -1 only wraps in int8 */
		reset();
		i = node2("int_div", input1((enum gp_dtype)dt, 4, sa),
		    input1((enum gp_dtype)dt, 4, sb));
		j = node2("mod", g->nodes[i].in[0], g->nodes[i].in[1]);
		run(i, &o);
		good = close_to(&o, wq, 0);
		gp_tensor_release(&o);
		run(j, &o);
		good = good && close_to(&o, wr, 0);
		gp_tensor_release(&o);
		ok(good, "%s int_div and mod", gp_dtype_name((enum gp_dtype)dt));
	}
	reset();
	i = node2("int_div", input1(GP_UINT8, 4, ua), input1(GP_UINT8, 4, ub));
	j = node2("mod", g->nodes[i].in[0], g->nodes[i].in[1]);
	run(i, &o);
	ok(o.dtype == GP_UINT8 && close_to(&o, uq, 0),
	    "uint8 int_div, by zero 0");
	gp_tensor_release(&o);
	run(j, &o);
	ok(close_to(&o, ur, 0), "uint8 mod, by zero 0");
	gp_tensor_release(&o);
	for (int f = 0; f < 2; f++) {
		enum gp_dtype dt = f ? GP_FLOAT64 : GP_FLOAT32;

		reset();
		i = node2("int_div", input1(dt, 3, fa), input1(dt, 3, fz));
		j = node2("mod", g->nodes[i].in[0], g->nodes[i].in[1]);
		run(i, &o);
		ok(close_to(&o, fq, 0), "%s int_div by 0: inf, -inf, nan",
		    gp_dtype_name(dt));
		gp_tensor_release(&o);
		run(j, &o);
		ok(close_to(&o, fr, 0), "%s mod by 0: nan", gp_dtype_name(dt));
		gp_tensor_release(&o);
	}
	/* bool // bool computes in int8, as numpy */
	reset();
	i = node2("int_div", input1(GP_BOOL, 2, (double[]){1, 0}),
	    input1(GP_BOOL, 2, (double[]){1, 1}));
	ok(i >= 0 && out_type(i)->dtype == GP_INT8, "bool int_div gives int8");
	reset();
	i = node2("pow", input1(GP_INT32, 6, (double[]){2, -3, 2, 1, -1, 3}),
	    input1(GP_INT32, 6, (double[]){10, 3, -1, -5, -5, 0}));
	run(i, &o);
	ok(close_to(&o, (double[]){1024, -27, 0, 1, -1, 1}, 0),
	    "int32 pow; negative exponents truncate");
	gp_tensor_release(&o);
}

static void
test_broadcast(void)
{
	int64_t s23[2] = {2, 3}, s3[1] = {3}, s21[2] = {2, 1};
	int64_t s213[3] = {2, 1, 3}, s41[2] = {4, 1}, s243[3] = {2, 4, 3};
	struct gp_tensor o = {0};
	double want[24];
	int i, m;

	reset();
	m = input(GP_FLOAT64, 2, s23, NULL);
	i = node2("add", input(GP_FLOAT64, 0, NULL, (double[]){10}), m);
	run(i, &o);
	ok(shape_is(out_type(i), 2, s23) &&
	    close_to(&o, (double[]){10, 11, 12, 13, 14, 15}, 0),
	    "scalar + (2, 3)");
	gp_tensor_release(&o);
	i = node2("sub", m, input(GP_FLOAT64, 1, s3, (double[]){1, 2, 4}));
	run(i, &o);
	ok(close_to(&o, (double[]){-1, -1, -2, 2, 2, 1}, 0), "(2, 3) - row");
	gp_tensor_release(&o);
	i = node2("mul", input(GP_FLOAT64, 2, s21, (double[]){10, 100}), m);
	run(i, &o);
	ok(close_to(&o, (double[]){0, 10, 20, 300, 400, 500}, 0),
	    "column * (2, 3)");
	gp_tensor_release(&o);
	/* a column of another dtype: converted once per row */
	i = node2("add", m, input(GP_INT32, 2, s21, (double[]){-1, 7}));
	run(i, &o);
	ok(o.dtype == GP_FLOAT64 &&
	    close_to(&o, (double[]){-1, 0, 1, 10, 11, 12}, 0),
	    "(2, 3) float64 + int32 column");
	gp_tensor_release(&o);
	/* 3-d: (2, 1, 3) with (4, 1) gives (2, 4, 3) */
	i = node2("add", input(GP_FLOAT32, 3, s213, NULL),
	    input(GP_FLOAT32, 2, s41, (double[]){0, 10, 20, 30}));
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 4; b++)
			for (int c = 0; c < 3; c++)
				want[(a * 4 + b) * 3 + c] = a * 3 + c + 10 * b;
	ok(shape_is(out_type(i), 3, s243), "(2, 1, 3) + (4, 1) is (2, 4, 3)");
	run(i, &o);
	ok(close_to(&o, want, 0), "3-d broadcast values");
	gp_tensor_release(&o);
	/* broadcasting into a float op of an int: exp(int16 row + ...) */
	i = node2("true_div", input(GP_INT16, 1, s3, (double[]){1, 2, 3}),
	    input(GP_INT16, 2, s21, (double[]){1, 2}));
	run(i, &o);
	ok(o.dtype == GP_FLOAT32 &&
	    close_to(&o, (double[]){1, 2, 3, 0.5, 1, 1.5}, 0),
	    "int16 true_div broadcasts, float32 result");
	gp_tensor_release(&o);
}

static void
test_promotion(void)
{
	struct gp_tensor o = {0};
	int i;

	reset();
	i = node2("add", input1(GP_INT32, 2, (double[]){16777217, -3}),
	    input1(GP_FLOAT32, 2, (double[]){0.5, 0.25}));
	ok(out_type(i)->dtype == GP_FLOAT64, "int32 + float32 -> float64");
	run(i, &o);
	ok(close_to(&o, (double[]){16777217.5, -2.75}, 0),
	    "int32 + float32 keeps the int32 exactly");
	gp_tensor_release(&o);
	i = node2("add", input1(GP_BOOL, 3, (double[]){1, 0, 1}),
	    input1(GP_INT8, 3, (double[]){127, -5, 3}));
	ok(out_type(i)->dtype == GP_INT8, "bool + int8 -> int8");
	run(i, &o);
	ok(close_to(&o, (double[]){-128, -5, 4}, 0), "bool + int8 wraps in "
	    "int8");
	gp_tensor_release(&o);
	i = node2("add", input1(GP_UINT8, 2, (double[]){200, 255}),
	    input1(GP_INT8, 2, (double[]){-100, 127}));
	ok(out_type(i)->dtype == GP_INT16, "uint8 + int8 -> int16");
	run(i, &o);
	ok(close_to(&o, (double[]){100, 382}, 0), "uint8 + int8 in int16");
	gp_tensor_release(&o);
	i = node2("true_div", input1(GP_INT32, 1, (double[]){1}),
	    input1(GP_INT32, 1, (double[]){3}));
	run(i, &o);
	ok(o.dtype == GP_FLOAT64 && close_to(&o, (double[]){1.0 / 3}, 1e-16),
	    "int32 true_div -> float64");
	gp_tensor_release(&o);
	i = node2("gt", input1(GP_INT32, 2, (double[]){16777217, 1}),
	    input1(GP_FLOAT32, 2, (double[]){16777216, 2}));
	run(i, &o);
	ok(o.dtype == GP_BOOL && close_to(&o, (double[]){1, 0}, 0),
	    "int32 > float32 compares in float64");
	gp_tensor_release(&o);
	i = node("exp", NULL, 1, (int[]){input1(GP_UINT8, 2,
	    (double[]){0, 1})});
	run(i, &o);
	ok(o.dtype == GP_FLOAT32 && close_to(&o, (double[]){1, M_E}, 1e-6),
	    "exp of uint8 computes in float32");
	gp_tensor_release(&o);
	i = node("sqrt", NULL, 1, (int[]){input1(GP_INT64, 1,
	    (double[]){16})});
	ok(out_type(i)->dtype == GP_FLOAT64, "sqrt of int64 is float64");
	i = node2("maximum", input1(GP_UINT16, 2, (double[]){65535, 0}),
	    input1(GP_INT16, 2, (double[]){-1, -1}));
	run(i, &o);
	ok(o.dtype == GP_INT32 && close_to(&o, (double[]){65535, 0}, 0),
	    "maximum(uint16, int16) in int32");
	gp_tensor_release(&o);
}

/* A view of base (2, 3) as its transpose (3, 2). */
static void
transpose_view(struct gp_tensor *v, const struct gp_tensor *base)
{
	v->storage = NULL;
	gp_tensor_view(v, base);
	v->shape[0] = base->shape[1];
	v->shape[1] = base->shape[0];
	v->strides[0] = base->strides[1];
	v->strides[1] = base->strides[0];
}

/* Variable v's value becomes a transposed view of a new (2, 3) tensor of
 * 0..5 (v must be (3, 2)). */
static void
make_transposed(int v, enum gp_dtype dt)
{
	struct gp_tensor base = {0};
	int64_t s[2] = {2, 3};

	gp_tensor_alloc(&base, dt, 2, s);
	for (int i = 0; i < 6; i++)
		gp_dtype_store(gp_tensor_data(&base) + i * (int)gp_dtype_size(dt),
		    dt, i);
	gp_tensor_release(value(v));
	transpose_view(value(v), &base);
	gp_tensor_release(&base);
}

static void
test_strided(void)
{
	int64_t s32[2] = {3, 2}, s5 = 5;
	/* transpose of [[0, 1, 2], [3, 4, 5]] is [[0, 3], [1, 4], [2, 5]] */
	static const double tr[6] = {0, 3, 1, 4, 2, 5};
	struct gp_tensor o = {0};
	double want[6];
	int i, t, u;

	reset();
	t = input(GP_FLOAT64, 2, s32, NULL);
	make_transposed(t, GP_FLOAT64);
	ok(!gp_tensor_is_contiguous(value(t)), "the input is a transposed "
	    "view");
	i = node2("add", t, input(GP_FLOAT64, 2, s32, NULL));
	run(i, &o);
	for (int k = 0; k < 6; k++)
		want[k] = tr[k] + k;
	ok(close_to(&o, want, 0), "transposed + contiguous");
	gp_tensor_release(&o);
	i = node("exp", NULL, 1, &t);
	run(i, &o);
	for (int k = 0; k < 6; k++)
		want[k] = exp(tr[k]);
	ok(close_to(&o, want, 1e-15), "exp of a transposed view");
	gp_tensor_release(&o);
	u = input(GP_INT32, 2, s32, NULL);
	make_transposed(u, GP_INT32);
	i = node2("mul", t, u);
	run(i, &o);
	for (int k = 0; k < 6; k++)
		want[k] = tr[k] * tr[k];
	ok(o.dtype == GP_FLOAT64 && close_to(&o, want, 0),
	    "transposed float64 * transposed int32");
	gp_tensor_release(&o);
	i = node("cast", json_pack("{s:s}", "dtype", "int16"), 1, &t);
	run(i, &o);
	ok(o.dtype == GP_INT16 && close_to(&o, tr, 0), "cast of a transposed "
	    "view");
	gp_tensor_release(&o);
	/* a reversed vector: negative stride */
	t = input1(GP_FLOAT32, 5, NULL);
	value(t)->strides[0] = -4;
	value(t)->offset = 16;
	i = node2("add", t, input(GP_FLOAT32, 1, &s5, (double[]){0, 0, 0, 0,
	    10}));
	run(i, &o);
	ok(close_to(&o, (double[]){4, 3, 2, 1, 10}, 0), "negative stride");
	gp_tensor_release(&o);
}

static void
test_inplace(void)
{
	int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s3 = 3;
	static const double tr[6] = {0, 3, 1, 4, 2, 5};
	double want[1100], src[1100];
	int i, a, b, c, t;

	reset();
	a = input(GP_FLOAT64, 2, s23, NULL);
	b = input(GP_FLOAT64, 2, s23, (double[]){10, 20, 30, 40, 50, 60});
	i = node2("add", a, b);
	run_into(i, value(a), false);
	ok(close_to(value(a), (double[]){10, 21, 32, 43, 54, 65}, 0),
	    "add in place over input 0");
	i = node2("sub", a, b);
	run_into(i, value(b), false);
	ok(close_to(value(b), (double[]){0, 1, 2, 3, 4, 5}, 0),
	    "sub in place over input 1");
	/* n-ary, output over the last input */
	c = input(GP_FLOAT64, 2, s23, (double[]){1, 1, 1, 1, 1, 1});
	i = node("add", NULL, 3, (int[]){a, b, c});
	run_into(i, value(c), false);
	ok(close_to(value(c), (double[]){11, 23, 35, 47, 59, 71}, 0),
	    "3-input add in place over input 2");
	/* with conversion and broadcasting of the other input */
	i = node2("mul", a, input1(GP_INT32, 3, (double[]){1, -1, 2}));
	run_into(i, value(a), false);
	ok(close_to(value(a), (double[]){10, -21, 64, 43, -54, 130}, 0),
	    "mul in place with an int32 row");
	/* comparison over a bool input */
	a = input1(GP_BOOL, 3, (double[]){1, 1, 0});
	i = node2("gt", a, input1(GP_BOOL, 3, (double[]){0, 1, 0}));
	run_into(i, value(a), false);
	ok(close_to(value(a), (double[]){1, 0, 0}, 0), "gt in place over bool");
	/* the vector path, several blocks and a tail */
	for (int k = 0; k < 1100; k++) {
		src[k] = (k % 37) * 0.25 - 4;
		want[k] = exp(src[k]);
	}
	a = input1(GP_FLOAT64, 1100, src);
	i = node("exp", NULL, 1, &a);
	run_into(i, value(a), false);
	ok(close_to(value(a), want, 1e-14), "exp in place, 1100 float64");
	a = input1(GP_FLOAT32, 1100, src);
	i = node("exp", NULL, 1, &a);
	run_into(i, value(a), false);
	ok(close_to(value(a), want, 1e-6), "exp in place, 1100 float32");
	/* a strided output: over a transposed view */
	t = input(GP_FLOAT64, 2, s32, NULL);
	make_transposed(t, GP_FLOAT64);
	i = node2("add", t, input(GP_FLOAT64, 2, s32, NULL));
	run_into(i, value(t), false);
	for (int k = 0; k < 6; k++)
		want[k] = tr[k] + k;
	ok(close_to(value(t), want, 0), "add in place over a transposed view");
	i = node("neg", NULL, 1, &t);
	run_into(i, value(t), false);
	for (int k = 0; k < 6; k++)
		want[k] = -want[k];
	ok(close_to(value(t), want, 0), "neg in place over a transposed view");
	i = node("identity", NULL, 1, &t);
	run_into(i, value(t), false);
	ok(close_to(value(t), want, 0), "identity in place is a no-op");
	a = input1(GP_INT32, 3, (double[]){5, 6, 7});
	i = node2("fill", a, input(GP_INT32, 0, NULL, (double[]){-2}));
	run_into(i, value(a), false);
	ok(close_to(value(a), (double[]){-2, -2, -2}, 0),
	    "fill in place over its first input");
	a = input(GP_FLOAT32, 1, &s3, (double[]){-3, 0.5, 3});
	i = node("clip", NULL, 3, (int[]){a, input(GP_FLOAT32, 0, NULL,
	    (double[]){-1}), input(GP_FLOAT32, 0, NULL, (double[]){1})});
	run_into(i, value(a), false);
	ok(close_to(value(a), (double[]){-1, 0.5, 1}, 0), "clip in place");
}

static void
test_nan_and_extremes(void)
{
	static const double xa[4] = {NAN, 1, NAN, 2};
	static const double ya[4] = {1, NAN, NAN, 3};
	static const double nn[4] = {NAN, NAN, NAN, 3};
	static const double nm[4] = {NAN, NAN, NAN, 2};
	static const double big[10] = {-800, -100, -20, -1, 0, 1, 20, 100, 800,
	    NAN};
	/* numpy: 1 / (1 + np.exp(-x)) and np.logaddexp(0, x) in float64 */
	static const double sig[10] = {0, 3.7200759760208356e-44,
	    2.0611536181902037e-09, 0.2689414213699951, 0.5,
	    0.7310585786300049, 0.9999999979388463, 1, 1, NAN};
	static const double sp[10] = {0, 3.720075976020836e-44,
	    2.061153620314381e-09, 0.31326168751822286, 0.6931471805599453,
	    1.3132616875182228, 20.000000002061153, 100, 800, NAN};

	for (int f = 0; f < 2; f++) {
		enum gp_dtype dt = f ? GP_FLOAT64 : GP_FLOAT32;
		double tol = f ? 1e-14 : 1e-6;
		struct gp_tensor o = {0};
		int i, x;

		reset();
		i = node2("maximum", input1(dt, 4, xa), input1(dt, 4, ya));
		run(i, &o);
		ok(close_to(&o, nn, 0), "%s maximum propagates NaN from either "
		    "side", gp_dtype_name(dt));
		gp_tensor_release(&o);
		i = node2("minimum", g->nodes[i].in[0], g->nodes[i].in[1]);
		run(i, &o);
		ok(close_to(&o, nm, 0), "%s minimum propagates NaN from either "
		    "side", gp_dtype_name(dt));
		gp_tensor_release(&o);
		i = node("clip", NULL, 3, (int[]){input1(dt, 2,
		    (double[]){NAN, 5}), input(dt, 0, NULL, (double[]){0}),
		    input(dt, 0, NULL, (double[]){1})});
		run(i, &o);
		ok(close_to(&o, (double[]){NAN, 1}, 0), "%s clip keeps NaN",
		    gp_dtype_name(dt));
		gp_tensor_release(&o);
		x = input1(dt, 10, big);
		i = node("sigmoid", NULL, 1, &x);
		run(i, &o);
		ok(close_to(&o, sig, tol), "%s sigmoid at -800 .. 800 and NaN",
		    gp_dtype_name(dt));
		gp_tensor_release(&o);
		i = node("softplus", NULL, 1, &x);
		run(i, &o);
		ok(close_to(&o, sp, tol), "%s softplus at -800 .. 800 and NaN",
		    gp_dtype_name(dt));
		gp_tensor_release(&o);
	}
}

/*
 * tanh from expm1 (ops/elemwise.c; float32 in ops/vmath.c): float64 and
 * float32 over a sweep of [-20, 20] and the edges, each element against
 * long double's tanhl rounded to the dtype (an independent computation),
 * float64 within 4 ulp, float32 within 3 (ops/vmath.c's measured worst:
 * 2.42 ulp over all 2^32 float32 inputs); the exact cases exact: +-0
 * keep their sign, +-inf give +-1, large |x| gives +-1, NaN stays NaN.  4003
 * elements run the vector loop and its tail, 3 the scalar helper (float64)
 * or the padded vector (float32).  Then float32 over 65536 bit patterns
 * (every 65537th: both signs, subnormals to the largest floats, infinities
 * and NaNs) within 3 ulp.
 */
static double
ulps_f32(float got, long double want)
{
	float w = (float)want, aw = fabsf(w);
	double ulp = aw < FLT_MIN ? 0x1p-149 : (double)(nextafterf(aw,
	    INFINITY) - aw);

	if (isnan(w) || isinf(w))
		return (isnan(w) ? (isnan(got) ? 0 : INFINITY) :
		    (got == w ? 0 : INFINITY));
	return ((double)fabsl((long double)got - want) / ulp);
}

static void
test_tanh_f32_bits(void)
{
	enum { N = 65536 };
	double *x = malloc(sizeof(double) * N), worst = 0, wx = 0;
	struct gp_tensor o = {0};
	int in, i;

	for (uint32_t k = 0; k < N; k++) {
		uint32_t b = k * 65537u;
		float v;

		memcpy(&v, &b, sizeof(v));
		x[k] = v;
	}
	reset();
	in = input1(GP_FLOAT32, N, x);
	i = node("tanh", NULL, 1, &in);
	run(i, &o);
	for (int k = 0; k < N; k++) {
		float got = ((const float *)gp_tensor_data(&o))[k];
		double e = ulps_f32(got, tanhl((long double)x[k]));

		if (e > worst) {
			worst = e;
			wx = x[k];
		}
	}
	ok(worst <= 3, "float32 tanh of 65536 bit patterns (subnormals, "
	    "infinities, NaNs) within 3 ulp of tanhl (worst %.2f ulp at %a)",
	    worst, wx);
	/* the same values repeated past the kernel's parallel size (2^17):
	 * each thread's part gives the serial loop's bits */
	{
		enum { N2 = 2 * N + 13 };
		double *x2 = malloc(sizeof(double) * N2);
		struct gp_tensor o2 = {0};
		bool same = true;

		for (int k = 0; k < N2; k++)
			x2[k] = x[k % N];
		in = input1(GP_FLOAT32, N2, x2);
		i = node("tanh", NULL, 1, &in);
		run(i, &o2);
		for (int k = 0; k < N2; k++)
			same = same && memcmp((const float *)gp_tensor_data(&o2) +
			    k, (const float *)gp_tensor_data(&o) + k % N,
			    sizeof(float)) == 0;
		ok(same, "float32 tanh of %d elements (a parallel loop) gives "
		    "the bits of 65536 (serial)", N2);
		gp_tensor_release(&o2);
		free(x2);
	}
	gp_tensor_release(&o);
	free(x);
}

/*
 * float32 exp (ops/vmath.c where the CPU has AVX2 and FMA, else libmvec or
 * libm): 65536 bit patterns (every 65537th: both signs, subnormals,
 * the largest floats, infinities and NaNs), a sweep of [-104, 89] (the
 * polynomial's range, and past it both ways: overflow, the subnormal
 * results, 0) and 3 elements (the padded vector alone), each against
 * long double's expl rounded to float32, within 1.1 ulp (ops/vmath.c's
 * measured worst over all 2^32 float32 inputs: 1.059); 0, +-inf and NaN
 * exact.
 */
static void
test_exp_f32(void)
{
	enum { N = 65536, SW = 4001 };
	static const double edge[8] = {0.0, -0.0, INFINITY, -INFINITY, NAN,
	    88.72, 88.73, -103.9};
	double *x = malloc(sizeof(double) * (N + SW + 8));
	int lens[3] = {N + SW + 8, 3}, in, i;

	for (uint32_t k = 0; k < N; k++) {
		uint32_t b = k * 65537u;
		float v;

		memcpy(&v, &b, sizeof(v));
		x[k] = v;
	}
	for (int k = 0; k < SW; k++)
		x[N + k] = -104 + 193.0 * k / (SW - 1);
	memcpy(x + N + SW, edge, sizeof(edge));
	for (int l = 0; l < 2; l++) {
		const double *xs = l ? x + N + SW + 2 : x;
		struct gp_tensor o = {0};
		double worst = 0, wx = 0;
		bool exact = true;

		reset();
		in = input1(GP_FLOAT32, lens[l], xs);
		i = node("exp", NULL, 1, &in);
		run(i, &o);
		for (int k = 0; k < lens[l]; k++) {
			float xv = (float)xs[k];
			float got = ((const float *)gp_tensor_data(&o))[k];
			double e = ulps_f32(got, expl((long double)xv));

			if (xv == 0 || isinf(xv) || isnan(xv))
				exact &= isnan(xv) ? isnan(got) : got ==
				    (xv == 0 ? 1 : xv > 0 ? INFINITY : 0);
			else if (e > worst) {
				worst = e;
				wx = xv;
			}
		}
		ok(exact, "float32 exp of %d: 0, +-inf and NaN exact",
		    lens[l]);
		ok(worst <= 1.1, "float32 exp of %d elements (bit patterns, "
		    "a sweep of [-104, 89]) within 1.1 ulp of expl (worst %.3f "
		    "ulp at %a)", lens[l], worst, wx);
		gp_tensor_release(&o);
	}
	free(x);
}

static void
test_tanh(void)
{
	enum { SWEEP = 4003 - 16 };
	static const double edge[16] = {0.0, -0.0, INFINITY, -INFINITY, NAN,
	    1e-300, -1e-20, 5e-324, 1e-8, -0.55, 0.5493061443340549, 19.06,
	    -22, 710, -800, 3e-5};
	static const double edge32[8] = {1e-40, -3e-39, 1e-30, 0.06, 9.0,
	    -9.02, 10, 1e30};
	double *x = malloc(sizeof(double) * 4003);

	for (int i = 0; i < SWEEP; i++)
		x[i] = -20 + 40.0 * i / (SWEEP - 1);
	memcpy(x + SWEEP, edge, sizeof(edge));
	for (int f = 0; f < 2; f++) {
		if (f == 0)	/* float32: its own small and large values */
			memcpy(x + SWEEP - 8, edge32, sizeof(edge32));
		else
			for (int i = SWEEP - 8; i < SWEEP; i++)
				x[i] = -20 + 40.0 * i / (SWEEP - 1);
		enum gp_dtype dt = f ? GP_FLOAT64 : GP_FLOAT32;

		for (int len = 4003; len >= 3; len = len == 4003 ? 3 : 0) {
			const double *xs = len == 3 ? x + SWEEP : x;
			struct gp_tensor o = {0};
			double worst = 0;
			bool exact = true;
			int in, i;

			reset();
			in = input1(dt, len, xs);
			i = node("tanh", NULL, 1, &in);
			run(i, &o);
			for (int k = 0; k < len; k++) {
				double xv = gp_tensor_get(value(in), k);
				double got = gp_tensor_get(&o, k);
				long double r = tanhl((long double)xv);
				double want = f ? (double)r : (double)(float)r;
				double ulp = f ? nextafter(fabs(want), INFINITY) -
				    fabs(want) : (double)(nextafterf(
				    (float)fabs(want), INFINITY) -
				    (float)fabs(want));

				if (isnan(xv) || xv == 0 || isinf(xv) ||
				    fabs(xv) >= 20) {
					if (!(isnan(xv) ? isnan(got) :
					    got == want && signbit(got) ==
					    signbit(want)))
						exact = false;
					continue;
				}
				if (fabs(got - want) / ulp > worst)
					worst = fabs(got - want) / ulp;
			}
			ok(exact, "%s tanh of %d: +-0, +-inf, |x| >= 20 and NaN "
			    "exact", gp_dtype_name(dt), len);
			ok(worst <= (f ? 4 : 3), "%s tanh of %d elements within "
			    "%d ulp of tanhl (worst %.2f ulp)", gp_dtype_name(dt),
			    len, f ? 4 : 3, worst);
			gp_tensor_release(&o);
		}
	}
	free(x);
	test_tanh_f32_bits();
}

static void
test_cast(void)
{
	static const double src[6] = {300, -300, 1.9, -1.9, NAN, 0.5};
	static const struct {
		const char	*dtype;
		double		 want[6];
	} cases[] = {
		{"int8", {127, -128, 1, -1, 0, 0}},
		{"uint8", {255, 0, 1, 0, 0, 0}},
		{"int64", {300, -300, 1, -1, 0, 0}},
		{"bool", {1, 1, 1, 1, 1, 1}},
		{"float32", {300, -300, 1.899999976158142, -1.899999976158142,
		    NAN, 0.5}},
	};
	struct gp_tensor o = {0};
	struct gp_buf b = {0};
	int i, x;

	reset();
	x = input1(GP_FLOAT64, 6, src);
	for (size_t c = 0; c < NELEM(cases); c++) {
		enum gp_dtype dt;

		gp_dtype_parse(cases[c].dtype, &dt);
		i = node("cast", json_pack("{s:s}", "dtype", cases[c].dtype),
		    1, &x);
		run(i, &o);
		ok(o.dtype == dt && close_to(&o, cases[c].want, 0),
		    "cast float64 to %s", cases[c].dtype);
		gp_tensor_release(&o);
	}
	gp_node_format_op(g, &g->nodes[i], &b);
	ok(strcmp(gp_buf_str(&b), "Elemwise{Cast{float32}}") == 0,
	    "cast formats as %s", gp_buf_str(&b));
	gp_buf_free(&b);
	i = node("cast", json_pack("{s:s}", "dtype", "int8"), 1,
	    (int[]){input1(GP_INT64, 2, (double[]){300, -129})});
	run(i, &o);
	ok(close_to(&o, (double[]){44, 127}, 0), "int64 to int8 wraps");
	gp_tensor_release(&o);
	i = node("cast", json_pack("{s:s}", "dtype", "float64"), 1,
	    (int[]){input1(GP_BOOL, 2, (double[]){1, 0})});
	run(i, &o);
	ok(close_to(&o, (double[]){1, 0}, 0), "bool to float64");
	gp_tensor_release(&o);
}

static void
test_logic_switch_fill(void)
{
	struct gp_tensor o = {0};
	int64_t s2 = 2, s21[2] = {2, 1}, s22[2] = {2, 2};
	int i, p, q;

	reset();
	p = input1(GP_BOOL, 4, (double[]){0, 0, 1, 1});
	q = input1(GP_BOOL, 4, (double[]){0, 1, 0, 1});
	i = node2("and", p, q);
	run(i, &o);
	ok(o.dtype == GP_BOOL && close_to(&o, (double[]){0, 0, 0, 1}, 0),
	    "bool and");
	gp_tensor_release(&o);
	i = node2("or", p, q);
	run(i, &o);
	ok(close_to(&o, (double[]){0, 1, 1, 1}, 0), "bool or");
	gp_tensor_release(&o);
	i = node("not", NULL, 1, &p);
	run(i, &o);
	ok(close_to(&o, (double[]){1, 1, 0, 0}, 0), "bool not");
	gp_tensor_release(&o);
	p = input1(GP_INT32, 2, (double[]){12, -1});
	q = input1(GP_INT32, 2, (double[]){10, 6});
	i = node2("and", p, q);
	run(i, &o);
	ok(close_to(&o, (double[]){8, 6}, 0), "int32 and is bitwise");
	gp_tensor_release(&o);
	i = node2("or", p, q);
	run(i, &o);
	ok(close_to(&o, (double[]){14, -1}, 0), "int32 or is bitwise");
	gp_tensor_release(&o);
	i = node("not", NULL, 1, &p);
	run(i, &o);
	ok(close_to(&o, (double[]){-13, 0}, 0), "int32 not is bitwise");
	gp_tensor_release(&o);
	i = node("not", NULL, 1, (int[]){input1(GP_UINT8, 2,
	    (double[]){0, 15})});
	run(i, &o);
	ok(close_to(&o, (double[]){255, 240}, 0), "uint8 not");
	gp_tensor_release(&o);

	for (int f = 0; f < 2; f++) {
		enum gp_dtype dt = f ? GP_FLOAT64 : GP_FLOAT32;

		i = node("switch", NULL, 3, (int[]){input1(GP_BOOL, 4,
		    (double[]){1, 0, 1, 0}), input1(dt, 4,
		    (double[]){1, 2, 3, 4}), input1(dt, 4,
		    (double[]){-1, -2, -3, -4})});
		run(i, &o);
		ok(o.dtype == dt && close_to(&o, (double[]){1, -2, 3, -4}, 0),
		    "%s switch on a bool condition", gp_dtype_name(dt));
		gp_tensor_release(&o);
	}
	/* a float condition is tested != 0 (NaN is true, like numpy.where) */
	i = node("switch", NULL, 3, (int[]){input1(GP_FLOAT64, 4,
	    (double[]){0.5, 0, NAN, -1}), input(GP_INT32, 0, NULL,
	    (double[]){7}), input(GP_FLOAT32, 0, NULL, (double[]){-7})});
	run(i, &o);
	ok(o.dtype == GP_FLOAT64 && close_to(&o, (double[]){7, -7, 7, 7}, 0),
	    "switch on a float64 condition, int32 and float32 branches");
	gp_tensor_release(&o);
	ok(gp_elemwise_input_dtype(&g->nodes[i], 0) == GP_BOOL &&
	    gp_elemwise_input_dtype(&g->nodes[i], 1) == GP_FLOAT64 &&
	    gp_elemwise_compute_dtype(&g->nodes[i]) == GP_FLOAT64,
	    "switch converts its condition to bool, branches to float64");
	/* the condition broadcast as a column */
	i = node("switch", NULL, 3, (int[]){input(GP_BOOL, 2, s21,
	    (double[]){0, 1}), input(GP_INT64, 2, s22, NULL),
	    input(GP_INT64, 1, &s2, (double[]){-1, -2})});
	run(i, &o);
	ok(close_to(&o, (double[]){-1, -2, 2, 3}, 0),
	    "switch with a column condition");
	gp_tensor_release(&o);

	/* fill: b's value in the broadcast shape, b's dtype */
	i = node2("fill", input(GP_FLOAT64, 2, s22, NULL), input(GP_INT32, 1,
	    &s2, (double[]){5, 6}));
	ok(out_type(i)->dtype == GP_INT32 && shape_is(out_type(i), 2, s22),
	    "fill(float64 (2, 2), int32 (2,)) is int32 (2, 2)");
	run(i, &o);
	ok(close_to(&o, (double[]){5, 6, 5, 6}, 0), "fill values");
	gp_tensor_release(&o);
	ok(gp_elemwise_input_dtype(&g->nodes[i], 0) == GP_DTYPE__COUNT,
	    "fill does not read its first input");
}

static void
test_clip(void)
{
	struct gp_tensor o = {0};
	int i;

	reset();
	i = node("clip", NULL, 3, (int[]){input1(GP_INT32, 4,
	    (double[]){-5, 0, 5, 100}), input(GP_INT32, 0, NULL,
	    (double[]){-1}), input(GP_INT32, 0, NULL, (double[]){3})});
	run(i, &o);
	ok(o.dtype == GP_INT32 && close_to(&o, (double[]){-1, 0, 3, 3}, 0),
	    "int32 clip");
	gp_tensor_release(&o);
	i = node("clip", NULL, 3, (int[]){input1(GP_FLOAT64, 2,
	    (double[]){0, 5}), input(GP_FLOAT64, 0, NULL, (double[]){2}),
	    input(GP_FLOAT64, 0, NULL, (double[]){1})});
	run(i, &o);
	ok(close_to(&o, (double[]){1, 1}, 0), "clip with lo > hi gives hi, "
	    "as numpy");
	gp_tensor_release(&o);
	for (int f = 0; f < 2; f++) {
		enum gp_dtype dt = f ? GP_FLOAT64 : GP_FLOAT32;

		i = node("clip", NULL, 3, (int[]){input1(dt, 8, dom[X]),
		    input1(dt, 8, dom[Y]), input(dt, 0, NULL,
		    (double[]){1.25})});
		run(i, &o);
		/* minimum(maximum(x, y), 1.25), from the numpy table above */
		ok(close_to(&o, (double[]){1.25, -1, 0.75, 1.25, 0.5, 1,
		    1.25, 1.25}, 0), "%s clip", gp_dtype_name(dt));
		gp_tensor_release(&o);
		/* numpy (np.clip and minimum(maximum(x, lo), hi) agree):
		 * clip(-0, 0, 1) = 0, clip(0, -0, 1) = -0 (the second of
		 * equal values), a NaN bound gives NaN, lo = hi = 1 gives 1 */
		i = node("clip", NULL, 3, (int[]){input1(dt, 5, (double[]){
		    -0.0, 0.0, 2, 0.5, 0.5}), input1(dt, 5, (double[]){0.0,
		    -0.0, NAN, 0, 1}), input1(dt, 5, (double[]){1, 1, 3, NAN,
		    1})});
		run(i, &o);
		ok(gp_tensor_get(&o, 0) == 0 && !signbit(gp_tensor_get(&o,
		    0)) && gp_tensor_get(&o, 1) == 0 && signbit(gp_tensor_get(
		    &o, 1)) && isnan(gp_tensor_get(&o, 2)) &&
		    isnan(gp_tensor_get(&o, 3)) && gp_tensor_get(&o, 4) == 1,
		    "%s clip: numpy's signed zeros of ties, NaN bounds",
		    gp_dtype_name(dt));
		gp_tensor_release(&o);
	}
}

static void
test_nary(void)
{
	struct gp_tensor o = {0};
	int64_t s23[2] = {2, 3}, s3 = 3;
	int in[20], i;

	reset();
	in[0] = input(GP_FLOAT64, 2, s23, NULL);
	in[1] = input1(GP_INT32, 3, (double[]){10, 20, 30});
	in[2] = input(GP_FLOAT32, 0, NULL, (double[]){0.5});
	in[3] = input(GP_FLOAT64, 2, s23, (double[]){1, 1, 1, 2, 2, 2});
	i = node("add", NULL, 4, in);
	run(i, &o);
	ok(o.dtype == GP_FLOAT64 && close_to(&o, (double[]){11.5, 22.5, 33.5,
	    15.5, 26.5, 37.5}, 0), "add of 4 mixed, broadcast inputs");
	gp_tensor_release(&o);
	ok(gp_node_flops(g, &g->nodes[i]) == 18, "4-input add counts 3 "
	    "flops an element");
	i = node("mul", NULL, 3, (int[]){in[0], in[3], in[2]});
	run(i, &o);
	ok(close_to(&o, (double[]){0, 0.5, 1, 3, 4, 5}, 0), "mul of 3");
	gp_tensor_release(&o);
	/* more inputs than the iterator takes: 20 rows of k */
	for (int k = 0; k < 20; k++)
		in[k] = input(GP_FLOAT64, 1, &s3, (double[]){k, 1, 0.5});
	i = node("add", NULL, 20, in);
	run(i, &o);
	ok(close_to(&o, (double[]){190, 20, 10}, 0), "add of 20 inputs");
	gp_tensor_release(&o);
	run_into(i, value(in[17]), false);
	ok(close_to(value(in[17]), (double[]){190, 20, 10}, 0),
	    "add of 20 inputs in place over input 17");
	ok(gp_node_flops(g, &g->nodes[i]) == 19 * 3, "20-input add counts 19 "
	    "flops an element");
}

/* Thousands of elements: several blocks, with conversion and broadcast. */
static void
test_blocks(void)
{
	struct gp_tensor o = {0};
	double *want = calloc(5000, sizeof(double));
	int64_t n = 5000, s2[2] = {2, 2500}, s21[2] = {2, 1};
	int i, a, b;

	reset();
	a = input1(GP_FLOAT64, n, NULL);
	b = input1(GP_INT32, n, NULL);
	i = node2("add", a, b);
	run(i, &o);
	for (int k = 0; k < n; k++)
		want[k] = 2.0 * k;
	ok(close_to(&o, want, 0), "5000 float64 + int32");
	gp_tensor_release(&o);
	i = node2("mul", a, input(GP_FLOAT32, 0, NULL, (double[]){0.5}));
	run(i, &o);
	for (int k = 0; k < n; k++)
		want[k] = 0.5 * k;
	ok(close_to(&o, want, 0), "5000 float64 * a float32 scalar");
	gp_tensor_release(&o);
	i = node2("sub", input(GP_FLOAT32, 2, s2, NULL),
	    input(GP_UINT16, 2, s21, (double[]){1, 2}));
	run(i, &o);
	for (int k = 0; k < n; k++)
		want[k] = k - (k < 2500 ? 1 : 2);
	ok(o.dtype == GP_FLOAT32 && close_to(&o, want, 0),
	    "(2, 2500) float32 - uint16 column");
	gp_tensor_release(&o);
	i = node("tanh", NULL, 1, (int[]){input1(GP_INT16, n, NULL)});
	run(i, &o);
	for (int k = 0; k < n; k++)
		want[k] = tanh((double)k);
	ok(o.dtype == GP_FLOAT32 && close_to(&o, want, 1e-6),
	    "tanh of 5000 int16, in float32");
	gp_tensor_release(&o);
	free(want);
}

/* Broadcasts of 32768 elements and more: the general loop over the threads
 * (ew_general_parallel), the output cut along its first dimension of more
 * than one element.  Element k of an input is k (of a (C, 1, 1) input: c). */
static void
test_blocks_parallel(void)
{
	struct gp_tensor o = {0};
	int64_t se[4] = {1, 240, 14, 14}, sc[4] = {1, 240, 1, 1};
	int64_t s3[3] = {2, 300, 60}, col[2] = {300, 1}, row[3] = {1, 1, 40000};
	int64_t n = 240 * 196;
	double *want = calloc(40000, sizeof(double));
	bool good = true;
	int i, x;

	reset();
	/* a squeeze-and-excitation's scale, float32, either operand first */
	x = input(GP_FLOAT32, 4, se, NULL);
	for (int f = 0; f < 2; f++) {
		int c = input(GP_FLOAT32, 4, sc, NULL);

		i = f ? node2("mul", x, c) : node2("mul", c, x);
		run(i, &o);
		good = true;
		for (int64_t k = 0; k < n; k++)
			good = good && gp_tensor_get(&o, k) == (double)k *
			    (double)(k / 196);
		ok(good && o.ndim == 4 && o.shape[1] == 240, "(1, 240, 14, 14) "
		    "float32 * (1, 240, 1, 1)%s: every element",
		    f ? ", operands swapped" : "");
		gp_tensor_release(&o);
	}
	/* with a conversion: float64 (2, 300, 60) - int32 (300, 1); the
	 * cut dimension (2) is not the broadcast one */
	i = node2("sub", input(GP_FLOAT64, 3, s3, NULL), input(GP_INT32, 2,
	    col, NULL));
	run(i, &o);
	good = true;
	for (int64_t k = 0; k < 36000; k++)
		good = good && gp_tensor_get(&o, k) == (double)(k - (k / 60) %
		    300);
	ok(good && o.dtype == GP_FLOAT64, "(2, 300, 60) float64 - (300, 1) "
	    "int32: every element");
	gp_tensor_release(&o);
	/* the cut dimension broadcast in the other operand (of size 1) */
	i = node2("add", input(GP_FLOAT64, 3, s3, NULL), input(GP_FLOAT64, 3,
	    (int64_t[]){1, 300, 60}, NULL));
	run(i, &o);
	good = true;
	for (int64_t k = 0; k < 36000; k++)
		good = good && gp_tensor_get(&o, k) == (double)(k + k % 18000);
	ok(good, "(2, 300, 60) + (1, 300, 60) float64: every element");
	gp_tensor_release(&o);
	/* the cut along the only dimension of more than one element, three
	 * inputs of which one is converted */
	i = node("clip", NULL, 3, (int[]){input(GP_FLOAT32, 3, row, NULL),
	    input(GP_INT16, 0, NULL, (double[]){100}), input(GP_FLOAT32, 0,
	    NULL, (double[]){30000})});
	run(i, &o);
	for (int64_t k = 0; k < 40000; k++)
		want[k] = k < 100 ? 100 : k > 30000 ? 30000 : (double)k;
	ok(close_to(&o, want, 0), "clip of (1, 1, 40000) float32 between an "
	    "int16 and a float32 scalar");
	gp_tensor_release(&o);
	free(want);
}

static void
test_zero_size(void)
{
	struct gp_tensor o = {0};
	int64_t s[2] = {0, 3};
	int i;

	reset();
	i = node2("add", input(GP_FLOAT64, 2, s, NULL),
	    input1(GP_INT8, 3, NULL));
	ok(i >= 0 && shape_is(out_type(i), 2, s), "(0, 3) + (3,) is (0, 3)");
	run(i, &o);
	ok(gp_tensor_numel(&o) == 0, "an empty output runs");
	gp_tensor_release(&o);
}

static void
test_errors(void)
{
	int64_t s23[2] = {2, 3}, s4 = 4;
	int x, y, f, b;

	reset();
	x = input(GP_FLOAT64, 2, s23, NULL);
	y = input(GP_FLOAT64, 1, &s4, NULL);
	ok(node2("add", x, y) < 0 && strstr(err.msg, "(2, 3)") &&
	    strstr(err.msg, "(4,)"), "a shape mismatch names both shapes: %s",
	    err.msg);
	ok(node("add", NULL, 3, (int[]){x, x, y}) < 0 &&
	    strstr(err.msg, "input 2"), "and which input: %s", err.msg);
	ok(node("neg", NULL, 2, (int[]){x, x}) < 0 &&
	    strstr(err.msg, "takes 1 input"), "neg of 2 inputs: %s", err.msg);
	ok(node("add", NULL, 1, &x) < 0 && strstr(err.msg, "at least 2"),
	    "add of 1 input: %s", err.msg);
	ok(node2("clip", x, x) < 0 && strstr(err.msg, "takes 3 inputs"),
	    "clip of 2 inputs: %s", err.msg);
	ok(node("cast", NULL, 1, &x) < 0 && strstr(err.msg, "dtype"),
	    "cast without dtype: %s", err.msg);
	ok(node("cast", json_pack("{s:s}", "dtype", "float128"), 1, &x) < 0 &&
	    strstr(err.msg, "'float128'") && strstr(err.msg, "float64"),
	    "cast to float128: %s", err.msg);
	ok(node("cast", json_pack("{s:i}", "dtype", 4), 1, &x) < 0 &&
	    strstr(err.msg, "dtype"), "cast to 4: %s", err.msg);
	ok(node("add", json_pack("{s:i}", "axis", 0), 2, (int[]){x, x}) < 0 &&
	    strstr(err.msg, "axis"), "add takes no params: %s", err.msg);
	f = input1(GP_FLOAT32, 2, NULL);
	b = input1(GP_BOOL, 2, NULL);
	ok(node2("and", f, b) < 0 && strstr(err.msg, "float32"),
	    "and of float32: %s", err.msg);
	ok(node("not", NULL, 1, &f) < 0, "not of float32");
	ok(node2("sub", b, b) < 0 && strstr(err.msg, "bool"),
	    "sub of bools: %s", err.msg);
	ok(node("neg", NULL, 1, &b) < 0, "neg of bool");
	ok(node2("add", b, b) >= 0 && node2("mul", b, b) >= 0,
	    "add and mul of bools are or and and");
}

static void
test_registry(void)
{
	size_t n = 0;
	bool good = true;
	struct gp_buf b = {0};
	int i, x;
	int64_t s23[2] = {2, 3};

	for (const struct gp_op *const *p = gp_ops_elemwise; *p; p++, n++) {
		const struct gp_op *op = *p;

		if (strcmp(op->cls, "Elemwise") != 0 || op->scalar == NULL ||
		    op->doc == NULL || op->doc[0] == '\0' ||
		    op->prepare == NULL || op->flops == NULL ||
		    (op->flags & (GP_OPF_ELEMWISE | GP_OPF_INPLACE_OK)) !=
		    (GP_OPF_ELEMWISE | GP_OPF_INPLACE_OK) ||
		    gp_op_find(op->name) != op) {
			diag("op %s", op->name);
			good = false;
		}
	}
	ok(good, "every elementwise op is complete and registered");
	is_int((long long)n, 60, "60 elementwise ops (fill also as second)");
	reset();
	x = input(GP_FLOAT64, 2, s23, NULL);
	i = node("exp", NULL, 1, &x);
	ok(g->nodes[i].impl == GP_IMPL_C && g->nodes[i].kernel != NULL,
	    "prepare sets a C kernel");
	gp_node_format_op(g, &g->nodes[i], &b);
	ok(strcmp(gp_buf_str(&b), "Elemwise{exp}") == 0, "formats as %s",
	    gp_buf_str(&b));
	gp_buf_free(&b);
	ok(gp_node_flops(g, &g->nodes[i]) == 6, "exp counts a flop an "
	    "element");
	i = node("identity", NULL, 1, &x);
	ok(gp_node_flops(g, &g->nodes[i]) == 0, "identity counts none");
}

static void
test_scalar_api(void)
{
	const struct gp_scalar_op *s = gp_elemwise_scalar_find("add");
	const char *args[3] = {"x", "(int8_t)y", "z"};
	struct gp_buf b = {0};
	enum gp_dtype in[3], as[3], out;
	double a[3] = {1, -2, 0}, c[3] = {3, 5, NAN}, r[3];
	const double *ops[3] = {a, c, c};
	float fa[2] = {0, 1}, fr[2];
	const float *fops[1] = {fa};
	size_t n;

	ok(s != NULL && s->arity == 2 && s->nary &&
	    s->rule == GP_SCALAR_PROMOTE &&
	    strcmp(s->c_expr, "gp_ew_add($0, $1)") == 0,
	    "add's scalar op: %s", s ? s->c_expr : "(none)");
	gp_elemwise_c_expr(&b, s, args);
	ok(strcmp(gp_buf_str(&b), "gp_ew_add(x, (int8_t)y)") == 0,
	    "c_expr substitutes operands: %s", gp_buf_str(&b));
	gp_buf_clear(&b);
	s = gp_elemwise_scalar_find("switch");
	gp_elemwise_c_expr(&b, s, args);
	ok(s->arity == 3 && strcmp(gp_buf_str(&b),
	    "gp_ew_switch(x, (int8_t)y, z)") == 0, "switch: %s",
	    gp_buf_str(&b));
	gp_buf_clear(&b);
	(void)gp_elemwise_scalar_all(&n);
	is_int((long long)n, 59, "59 scalar ops");
	ok(gp_elemwise_scalar_find("fill") == NULL &&
	    gp_elemwise_scalar_find("second") != NULL,
	    "fill's scalar op is second");

	gp_elemwise_scalar_find("add")->eval_f64(r, ops, 3);
	ok(r[0] == 4 && r[1] == 3 && isnan(r[2]), "eval_f64 add");
	gp_elemwise_scalar_find("gt")->eval_f64(r, ops, 3);
	ok(r[0] == 0 && r[1] == 0 && r[2] == 0, "eval_f64 gt gives 0 or 1");
	gp_elemwise_scalar_find("and")->eval_f64(r, ops, 3);
	ok(r[0] == 1 && r[1] == 1 && r[2] == 0, "eval_f64 and is logical");
	gp_elemwise_scalar_find("switch")->eval_f64(r, ops, 3);
	ok(r[0] == 3 && r[1] == 5 && isnan(r[2]), "eval_f64 switch");
	gp_elemwise_scalar_find("sigmoid")->eval_f64(a, ops, 3);
	ok(fabs(a[0] - 0.7310585786300049) < 1e-15 && a[2] == 0.5,
	    "eval_f64 sigmoid in place");
	gp_elemwise_scalar_find("exp")->eval_f32(fr, fops, 2);
	ok(fr[0] == 1 && fabsf(fr[1] - 2.7182817f) < 1e-6f, "eval_f32 exp");

	s = gp_elemwise_scalar_find("add");
	in[0] = GP_INT32;
	in[1] = GP_FLOAT32;
	ok(gp_elemwise_dtypes(s, 2, in, GP_BOOL, as, &out, &err) == 0 &&
	    as[0] == GP_FLOAT64 && as[1] == GP_FLOAT64 && out == GP_FLOAT64,
	    "dtypes: int32 + float32 computes in float64");
	in[0] = in[1] = GP_BOOL;
	ok(gp_elemwise_dtypes(gp_elemwise_scalar_find("pow"), 2, in, GP_BOOL,
	    as, &out, &err) == 0 && out == GP_INT8, "dtypes: bool pow is int8");
	in[0] = GP_INT8;
	in[1] = GP_INT16;
	ok(gp_elemwise_dtypes(gp_elemwise_scalar_find("lt"), 2, in, GP_BOOL,
	    as, &out, &err) == 0 && as[0] == GP_INT16 && out == GP_BOOL,
	    "dtypes: comparisons compute promoted, give bool");
	ok(gp_elemwise_dtypes(gp_elemwise_scalar_find("log"), 1, in, GP_BOOL,
	    as, &out, &err) == 0 && out == GP_FLOAT32,
	    "dtypes: log of int8 is float32");
	ok(gp_elemwise_dtypes(gp_elemwise_scalar_find("cast"), 1, in,
	    GP_UINT16, as, &out, &err) == 0 && as[0] == GP_UINT16 &&
	    out == GP_UINT16, "dtypes: cast converts its input");
	in[0] = GP_FLOAT64;
	ok(gp_elemwise_dtypes(gp_elemwise_scalar_find("or"), 2, in, GP_BOOL,
	    as, &out, &err) < 0 && strstr(err.msg, "float64"),
	    "dtypes: or of float64 fails: %s", err.msg);

	gp_elemwise_c_convert(&b, GP_INT8, GP_FLOAT64, "v");
	ok(strcmp(gp_buf_str(&b), "gp_ew_f2i8((double)(v))") == 0,
	    "convert float64 to int8 clamps: %s", gp_buf_str(&b));
	gp_buf_clear(&b);
	gp_elemwise_c_convert(&b, GP_BOOL, GP_FLOAT32, "v");
	ok(strcmp(gp_buf_str(&b), "((v) != 0)") == 0, "to bool: %s",
	    gp_buf_str(&b));
	gp_buf_clear(&b);
	gp_elemwise_c_convert(&b, GP_FLOAT32, GP_INT64, "v");
	ok(strcmp(gp_buf_str(&b), "((float)(v))") == 0, "to float32: %s",
	    gp_buf_str(&b));
	gp_buf_free(&b);
	ok(strstr(gp_elemwise_c_prelude, "#include <math.h>") &&
	    strstr(gp_elemwise_c_prelude, "#define gp_ew_add(a, b) _Generic") &&
	    strstr(gp_elemwise_c_prelude, "gp_ew_f2i8(double v)") &&
	    strstr(gp_elemwise_c_prelude, "gp_ew_softplus_f32(float a)"),
	    "the prelude defines the helpers and dispatch macros");
}

int
main(void)
{
	test_float_ops();
	test_all_dtypes();
	test_int_div_mod();
	test_math_params();
	test_math_long();
	test_broadcast();
	test_promotion();
	test_strided();
	test_inplace();
	test_nan_and_extremes();
	test_tanh();
	test_exp_f32();
	test_cast();
	test_logic_switch_fill();
	test_clip();
	test_nary();
	test_blocks();
	test_blocks_parallel();
	test_zero_size();
	test_errors();
	test_registry();
	test_scalar_api();
	gp_graph_free(g);
	return (done_testing());
}
