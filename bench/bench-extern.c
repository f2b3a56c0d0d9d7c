/*
 * bench/bench-extern.c: what an extern elementwise call costs.  For a few
 * libm functions it times, in one run over the same data, a plain C loop
 * calling the function directly (linked against libm), the extern op's
 * kernel on its direct route (a typed function pointer, where the
 * signature has one), and the same kernel forced through ffi_call (param
 * "route": "ffi").  Prints nanoseconds per element, the best of R
 * repetitions.
 *
 * Usage: bench-extern [N [R]]   (default 65536 elements, 30 repetitions)
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph/graph.h"
#include "graph/op.h"
#include "graph/tensor.h"

#define LIBM "libm.so.6"

static int64_t n_elem = 65536;
static int reps = 30;
static double sink;

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec * 1e9 + (double)ts.tv_nsec);
}

enum fn_id {
	F_ERF,
	F_CBRT,
	F_POW,
	F_CBRTF,
	F_POWF,
	F_FMA
};

static const struct {
	enum fn_id	 id;
	const char	*sym, *sig;
	int		 arity;
	enum gp_dtype	 dt;
} cases[] = {
	{F_ERF, "erf", "double(double)", 1, GP_FLOAT64},
	{F_CBRT, "cbrt", "double(double)", 1, GP_FLOAT64},
	{F_POW, "pow", "double(double, double)", 2, GP_FLOAT64},
	{F_CBRTF, "cbrtf", "float(float)", 1, GP_FLOAT32},
	{F_POWF, "powf", "float(float, float)", 2, GP_FLOAT32},
	{F_FMA, "fma", "double(double, double, double)", 3, GP_FLOAT64},
};

/* The direct C loop over contiguous operands. */
static void
direct(enum fn_id id, char *const *in, char *out, int64_t n)
{
	const double *x = (const double *)in[0], *y = (const double *)in[1];
	const double *z = (const double *)in[2];
	const float *xf = (const float *)in[0], *yf = (const float *)in[1];
	double *o = (double *)out;
	float *of = (float *)out;

	switch (id) {
	case F_ERF:
		for (int64_t i = 0; i < n; i++)
			o[i] = erf(x[i]);
		break;
	case F_CBRT:
		for (int64_t i = 0; i < n; i++)
			o[i] = cbrt(x[i]);
		break;
	case F_POW:
		for (int64_t i = 0; i < n; i++)
			o[i] = pow(x[i], y[i]);
		break;
	case F_CBRTF:
		for (int64_t i = 0; i < n; i++)
			of[i] = cbrtf(xf[i]);
		break;
	case F_POWF:
		for (int64_t i = 0; i < n; i++)
			of[i] = powf(xf[i], yf[i]);
		break;
	case F_FMA:
		for (int64_t i = 0; i < n; i++)
			o[i] = fma(x[i], y[i], z[i]);
		break;
	}
}

static double
checksum(const struct gp_tensor *t)
{
	double s = 0;

	for (int64_t i = 0; i < gp_tensor_numel(t); i += 97)
		s += gp_tensor_get(t, i);
	return (s);
}

static int
bench_case(int c)
{
	struct gp_graph *g = gp_graph_new("bench");
	struct gp_type ty = {.dtype = cases[c].dt, .ndim = 1,
	    .shape = {n_elem}};
	struct gp_tensor tin[3], tout, *pin[3], *pout[1] = {&tout};
	char *raw[3] = {NULL, NULL, NULL};
	int in[3], node[2];
	double best[3] = {1e300, 1e300, 1e300}, sums[3] = {0, 0, 0};
	struct gp_err err;

	g->allow_extern = true;
	for (int k = 0; k < cases[c].arity; k++) {
		char name[8];

		snprintf(name, sizeof(name), "x%d", k);
		in[k] = gp_graph_add_var(g, name, GP_VAR_INPUT, &ty);
		memset(&tin[k], 0, sizeof(tin[k]));
		gp_tensor_alloc(&tin[k], ty.dtype, 1, ty.shape);
		for (int64_t i = 0; i < n_elem; i++)
			gp_dtype_store(gp_tensor_data(&tin[k]) + i *
			    (int64_t)gp_dtype_size(ty.dtype), ty.dtype,
			    0.25 + 3.0 * (double)i / (double)n_elem + k);
		pin[k] = &tin[k];
		raw[k] = gp_tensor_data(&tin[k]);
	}
	for (int r = 0; r < 2; r++) {
		json_t *p = json_pack("{s:s, s:s, s:s, s:s}", "lib", LIBM,
		    "symbol", cases[c].sym, "signature", cases[c].sig,
		    "route", r == 0 ? "auto" : "ffi");

		node[r] = gp_graph_add_node(g, gp_op_find("extern"), p,
		    cases[c].arity, in, 1, &err);
		if (node[r] < 0) {
			fprintf(stderr, "bench-extern: %s: %s\n", cases[c].sym,
			    err.msg);
			return (-1);
		}
	}
	memset(&tout, 0, sizeof(tout));
	gp_tensor_alloc(&tout, ty.dtype, 1, ty.shape);
	for (int rep = 0; rep < reps; rep++) {
		for (int w = 0; w < 3; w++) {
			double t0 = now_ns(), t;

			if (w == 0)
				direct(cases[c].id, raw, gp_tensor_data(&tout),
				    n_elem);
			else {
				const struct gp_node *n;

				n = &g->nodes[node[w - 1]];
				n->kernel(n, pin, pout);
			}
			t = now_ns() - t0;
			if (t < best[w])
				best[w] = t;
			sums[w] = checksum(&tout);
		}
	}
	sink += sums[0] + sums[1] + sums[2];
	if (sums[0] != sums[1] || sums[0] != sums[2])
		fprintf(stderr, "bench-extern: %s: results differ (%g %g %g)\n",
		    cases[c].sym, sums[0], sums[1], sums[2]);
	{
		char label[64];

		snprintf(label, sizeof(label), "%s: %s", cases[c].sym,
		    cases[c].sig);
		printf("%-38s %9.2f %9.2f %9.2f", label,
		    best[0] / (double)n_elem, best[1] / (double)n_elem,
		    best[2] / (double)n_elem);
		if (cases[c].arity > 2)
			printf("   (no direct route: both ffi_call)");
		printf("\n");
	}
	for (int k = 0; k < cases[c].arity; k++)
		gp_tensor_release(&tin[k]);
	gp_tensor_release(&tout);
	gp_graph_free(g);
	return (0);
}

int
main(int argc, char **argv)
{
	int rc = 0;

	if (argc > 1)
		n_elem = strtoll(argv[1], NULL, 10);
	if (argc > 2)
		reps = atoi(argv[2]);
	if (n_elem < 1 || reps < 1) {
		fprintf(stderr, "usage: bench-extern [N [R]]\n");
		return (2);
	}
	printf("extern op, elementwise: ns per element, best of %d runs over "
	    "%lld elements\n", reps, (long long)n_elem);
	printf("%-38s %9s %9s %9s\n", "function", "C call", "direct",
	    "ffi_call");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		if (bench_case((int)c) < 0)
			rc = 1;
	return (rc);
}
