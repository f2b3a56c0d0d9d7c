/*
 * test-tensor.c: dtypes and promotion, the allocator's counts, tensor views
 * and copies, broadcasting and the strided iterator.
 */
#include "config.h"

#include <string.h>

#include "../tap.h"
#include "graph/tensor.h"
#include "ops/trcopy.h"

static void
test_promote(void)
{
	static const struct {
		enum gp_dtype a, b, want;
	} cases[] = {
		/* expected values are numpy's np.result_type on arrays */
		{GP_BOOL, GP_INT8, GP_INT8},
		{GP_INT8, GP_UINT8, GP_INT16},
		{GP_INT32, GP_UINT32, GP_INT64},
		{GP_INT64, GP_UINT64, GP_FLOAT64},
		{GP_INT16, GP_FLOAT32, GP_FLOAT32},
		{GP_INT32, GP_FLOAT32, GP_FLOAT64},
		{GP_UINT8, GP_FLOAT32, GP_FLOAT32},
		{GP_FLOAT32, GP_FLOAT64, GP_FLOAT64},
		{GP_INT64, GP_INT32, GP_INT64},
		{GP_UINT16, GP_INT32, GP_INT32},
		{GP_BOOL, GP_BOOL, GP_BOOL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum gp_dtype r = gp_dtype_promote(cases[i].a, cases[i].b);
		enum gp_dtype r2 = gp_dtype_promote(cases[i].b, cases[i].a);

		ok(r == cases[i].want && r2 == cases[i].want,
		    "promote %s, %s -> %s (got %s)", gp_dtype_name(cases[i].a),
		    gp_dtype_name(cases[i].b), gp_dtype_name(cases[i].want),
		    gp_dtype_name(r));
	}
	ok(gp_dtype_to_float(GP_INT16) == GP_FLOAT32, "int16 upgrades to float32");
	ok(gp_dtype_to_float(GP_INT32) == GP_FLOAT64, "int32 upgrades to float64");
}

static void
test_convert(void)
{
	double src[5] = {1.9, -1.9, 300.0, -300.0, 0.0};
	int8_t d8[5];
	uint8_t u8[5];
	int64_t big = (int64_t)1 << 40;
	int32_t wrap;

	gp_dtype_convert(d8, GP_INT8, src, GP_FLOAT64, sizeof(double), 5);
	ok(d8[0] == 1 && d8[1] == -1 && d8[2] == 127 && d8[3] == -128,
	    "float64 -> int8 truncates and clamps");
	gp_dtype_convert(u8, GP_UINT8, src, GP_FLOAT64, sizeof(double), 5);
	ok(u8[0] == 1 && u8[1] == 0 && u8[2] == 255 && u8[3] == 0,
	    "float64 -> uint8 clamps at 0 and 255");
	gp_dtype_convert(&wrap, GP_INT32, &big, GP_INT64, 0, 1);
	is_int(wrap, 0, "int64 -> int32 wraps like C and numpy astype");
	is_double(gp_dtype_load(&d8[1], GP_INT8), -1, 0, "load int8");
	/* a stride-0 source: one value broadcast, converted once and
	 * copied in doubling runs; every length up to past a power of 2 */
	{
		static const size_t lens[] = {1, 2, 3, 7, 8, 9, 1000};
		int16_t h = -3;
		double two = 2.5;
		float f[1000];
		int64_t q[1000];

		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			size_t n = lens[l], bad = 0;

			memset(f, 0, sizeof(f));
			memset(q, 0, sizeof(q));
			gp_dtype_convert(f, GP_FLOAT32, &h, GP_INT16, 0, n);
			gp_dtype_convert(q, GP_INT64, &two, GP_FLOAT64, 0, n);
			for (size_t i = 0; i < 1000; i++)
				bad += i < n ? f[i] != -3.0f || q[i] != 2 :
				    f[i] != 0 || q[i] != 0;
			ok(bad == 0, "stride 0: int16 -3 and float64 2.5 into "
			    "%zu float32 and int64 values, nothing past them",
			    n);
		}
	}
}

static void
test_alloc(void)
{
	struct gp_alloc_stats a, b, c;
	struct gp_storage *s;

	gp_alloc_get_stats(&a);
	s = gp_alloc_storage(1000);
	ok(((uintptr_t)s->data % GP_ALIGN) == 0, "storage is 64-byte aligned");
	gp_alloc_get_stats(&b);
	is_int((long long)(b.live - a.live), 1000, "live counts requested bytes");
	is_int((long long)(b.n_alloc - a.n_alloc), 1, "one allocation counted");
	gp_alloc_ref(s);
	gp_alloc_unref(s);
	gp_alloc_get_stats(&c);
	is_int((long long)(c.live - a.live), 1000, "a second reference keeps it");
	gp_alloc_unref(s);
	gp_alloc_get_stats(&c);
	is_int((long long)(c.live - a.live), 0, "the last unref frees");
	ok(c.peak >= a.live + 1000, "peak saw it");
	s = gp_alloc_storage(990);	/* same class: recycled */
	gp_alloc_get_stats(&c);
	is_int((long long)(c.n_sys - b.n_sys), 0,
	    "a block of the same class is reused, not allocated again");
	gp_alloc_unref(s);
}

static void
test_views(void)
{
	struct gp_tensor t = {0}, v = {0}, c = {0};
	int64_t shape[2] = {2, 3};
	double *d;

	gp_tensor_alloc(&t, GP_FLOAT64, 2, shape);
	d = (double *)gp_tensor_data(&t);
	for (int i = 0; i < 6; i++)
		d[i] = i;
	ok(gp_tensor_is_contiguous(&t), "fresh tensor is contiguous");
	is_int(t.strides[0], 24, "row stride 24 bytes");
	gp_tensor_view(&v, &t);
	is_int(t.storage->refcount, 2, "a view holds a reference");
	/* transpose by swapping the header */
	v.shape[0] = 3;
	v.shape[1] = 2;
	v.strides[0] = 8;
	v.strides[1] = 24;
	ok(!gp_tensor_is_contiguous(&v), "the transpose is not contiguous");
	is_double(gp_tensor_get(&v, 1), 3, 0, "transpose[0,1] = t[1,0]");
	gp_tensor_copy(&c, &v);
	ok(gp_tensor_is_contiguous(&c), "a copy is contiguous");
	is_double(((double *)gp_tensor_data(&c))[1], 3, 0,
	    "copy of transpose [0,1]");
	is_double(((double *)gp_tensor_data(&c))[4], 2, 0,
	    "copy of transpose [2,0]");
	gp_tensor_release(&t);
	is_int(v.storage->refcount, 1, "release drops a reference");
	gp_tensor_release(&v);
	gp_tensor_release(&c);
}

static void
test_broadcast(void)
{
	int64_t a[3] = {4, 1, 3}, b[2] = {5, 1}, out[GP_MAX_DIMS];
	int64_t bad[1] = {2};
	int nd;
	struct gp_err err;

	ok(gp_shape_broadcast(3, a, 2, b, &nd, out, &err) == 0 && nd == 3 &&
	    out[0] == 4 && out[1] == 5 && out[2] == 3,
	    "(4,1,3) with (5,1) broadcasts to (4,5,3)");
	ok(gp_shape_broadcast(3, a, 1, bad, &nd, out, &err) < 0 &&
	    strstr(err.msg, "(4, 1, 3)") && strstr(err.msg, "(2,)"),
	    "a mismatch names both shapes: %s", err.msg);
}

static void
test_broadcast_copy(void)
{
	struct gp_tensor row = {0}, dst = {0};
	int64_t rs[1] = {3}, ds[2] = {2, 3};
	float *r;
	bool good = true;

	gp_tensor_alloc(&row, GP_FLOAT32, 1, rs);
	r = (float *)gp_tensor_data(&row);
	r[0] = 1;
	r[1] = 2;
	r[2] = 3;
	gp_tensor_alloc(&dst, GP_FLOAT64, 2, ds);
	gp_tensor_copy_into(&dst, &row);
	for (int i = 0; i < 6; i++)
		if (gp_tensor_get(&dst, i) != (double)(i % 3 + 1))
			good = false;
	ok(good, "copy_into broadcasts a float32 row into float64 rows");
	gp_tensor_release(&row);
	gp_tensor_release(&dst);
}

/* gp_iter_order_by: rows recorded by the inner function. */
struct rec {
	int	 calls;
	int64_t	 n[16], step0[16];
	int	 seen[12];
	char	*base;
};

static void
rec_inner(char **ptrs, const int64_t *steps, int64_t n, void *ctx)
{
	struct rec *r = ctx;

	if (r->calls < 16) {
		r->n[r->calls] = n;
		r->step0[r->calls] = steps[0];
	}
	r->calls++;
	for (int64_t i = 0; i < n; i++)
		r->seen[(ptrs[0] + i * steps[0] - r->base) / 4]++;
}

/* An output that is the transpose view (4, 3) of a (3, 4) float32 buffer
 * (strides 4, 16), plus a broadcast column (4, 1): in the output's memory
 * order the rows are the buffer's 3 rows of 4 (step 4), not 4 rows of 3
 * (step 16); every element once either way. */
static void
test_iter_order(void)
{
	struct gp_tensor buf = {0}, o = {0}, col = {0};
	struct gp_iter it;
	struct rec r;
	int64_t bs[2] = {3, 4}, cs[2] = {4, 1};
	bool once = true;

	gp_tensor_alloc(&buf, GP_FLOAT32, 2, bs);
	gp_tensor_alloc(&col, GP_FLOAT32, 2, cs);
	gp_tensor_view(&o, &buf);
	o.shape[0] = 4;
	o.shape[1] = 3;
	o.strides[0] = 4;
	o.strides[1] = 16;
	for (int order = 0; order < 2; order++) {
		memset(&r, 0, sizeof(r));
		r.base = gp_tensor_data(&buf);
		gp_iter_init(&it, 2, o.shape, 2);
		gp_iter_add(&it, 0, &o);
		gp_iter_add(&it, 1, &col);
		if (order)
			gp_iter_order_by(&it, 0);
		gp_iter_run(&it, rec_inner, &r);
		once = true;
		for (int i = 0; i < 12; i++)
			once = once && r.seen[i] == 1;
		if (order)
			ok(once && r.calls == 3 && r.n[0] == 4 &&
			    r.step0[0] == 4, "ordered by the output: 3 rows "
			    "of 4, step 4 (%d rows of %lld, step %lld)",
			    r.calls, (long long)r.n[0], (long long)r.step0[0]);
		else
			ok(once && r.calls == 4 && r.n[0] == 3 &&
			    r.step0[0] == 16, "in C order: 4 rows of 3, step "
			    "16");
	}
	gp_tensor_release(&o);
	gp_tensor_release(&buf);
	gp_tensor_release(&col);
}

/* ops/trcopy.c against the strided iterator's copy, bit for bit: views of
 * a tensor of 0, 1, 2, ... (as 4-byte patterns) permuted by perm; want
 * says whether the tile copy takes the layout. */
static void
trcopy_case(enum gp_dtype dt, int nd, const int64_t *shape, const int *perm,
    bool want)
{
	struct gp_tensor base = {0}, v = {0}, a = {0}, b = {0};
	int64_t vs[GP_MAX_DIMS], n = gp_shape_numel(nd, shape);
	size_t sz = gp_dtype_size(dt);
	char what[96];
	bool took;
	int k = snprintf(what, sizeof(what), "%s (", gp_dtype_name(dt));

	gp_tensor_alloc(&base, dt, nd, shape);
	for (int64_t i = 0; i < n; i++) {
		uint64_t u = (uint64_t)i * 2654435761u;

		memcpy(gp_tensor_data(&base) + i * (int64_t)sz, &u, sz);
	}
	gp_tensor_view(&v, &base);
	for (int d = 0; d < nd; d++) {
		v.shape[d] = shape[perm[d]];
		v.strides[d] = base.strides[perm[d]];
		vs[d] = v.shape[d];
		k += snprintf(what + k, sizeof(what) - (size_t)k, "%s%lld",
		    d ? ", " : "", (long long)vs[d]);
	}
	snprintf(what + k, sizeof(what) - (size_t)k, ")");
	gp_tensor_alloc(&a, dt, nd, vs);
	gp_tensor_alloc(&b, dt, nd, vs);
	took = gp_trcopy(&a, &v);
	gp_tensor_copy_into(&b, &v);
	if (want)
		ok(took && memcmp(gp_tensor_data(&a), gp_tensor_data(&b),
		    (size_t)n * sz) == 0, "trcopy: %s view: the iterator's "
		    "copy, bit for bit", what);
	else
		ok(!took, "trcopy: %s view: not a transpose of 4-byte values, "
		    "left to the iterator", what);
	gp_tensor_release(&a);
	gp_tensor_release(&b);
	gp_tensor_release(&v);
	gp_tensor_release(&base);
}

static void
test_trcopy(void)
{
	/* channels-last: whole tiles, and edges on both sides */
	trcopy_case(GP_FLOAT32, 4, (const int64_t[]){1, 96, 56, 56},
	    (const int[]){0, 2, 3, 1}, true);
	trcopy_case(GP_FLOAT32, 4, (const int64_t[]){2, 13, 5, 7},
	    (const int[]){0, 2, 3, 1}, true);
	trcopy_case(GP_INT32, 3, (const int64_t[]){3, 5, 7},
	    (const int[]){2, 0, 1}, true);
	trcopy_case(GP_FLOAT32, 2, (const int64_t[]){13, 17},
	    (const int[]){1, 0}, true);
	trcopy_case(GP_UINT32, 3, (const int64_t[]){3, 9, 24},
	    (const int[]){0, 2, 1}, true);
	trcopy_case(GP_FLOAT32, 4, (const int64_t[]){1, 16, 8, 8},
	    (const int[]){0, 3, 1, 2}, true);
	/* not for it: 8-byte values, the last dimension contiguous, no
	 * permutation */
	trcopy_case(GP_FLOAT64, 2, (const int64_t[]){4, 5},
	    (const int[]){1, 0}, false);
	trcopy_case(GP_FLOAT32, 3, (const int64_t[]){4, 5, 6},
	    (const int[]){1, 0, 2}, false);
	trcopy_case(GP_FLOAT32, 3, (const int64_t[]){4, 5, 6},
	    (const int[]){0, 1, 2}, false);
}

/* The byte count of a shape: the non-zero dimensions must fit in 64 bits
 * even when another is 0 (the rule variables follow), hand-computed. */
static void
test_nbytes(void)
{
	size_t nb = 1;

	ok(gp_shape_nbytes(3, (const int64_t[]){0, INT64_MAX, INT64_MAX},
	    GP_INT64, &nb) == false && nb == SIZE_MAX,
	    "(0, INT64_MAX, INT64_MAX) int64 overflows");
	ok(gp_shape_nbytes(2, (const int64_t[]){(int64_t)1 << 60, 0},
	    GP_FLOAT64, &nb) == false, "(2^60, 0) float64: 2^63 bytes, "
	    "past INT64_MAX");
	ok(gp_shape_nbytes(2, (const int64_t[]){((int64_t)1 << 59) - 1, 0},
	    GP_FLOAT64, &nb) && nb == 0, "(2^59 - 1, 0) float64: 0 bytes");
	ok(gp_shape_nbytes(2, (const int64_t[]){3, 5}, GP_FLOAT32, &nb) &&
	    nb == 60, "(3, 5) float32: 60 bytes");
	ok(gp_shape_nbytes(0, NULL, GP_FLOAT64, &nb) && nb == 8,
	    "() float64: 8 bytes");
}

int
main(void)
{
	test_nbytes();
	test_promote();
	test_convert();
	test_alloc();
	test_views();
	test_broadcast();
	test_broadcast_copy();
	test_iter_order();
	test_trcopy();
	return (done_testing());
}
