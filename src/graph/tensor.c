/*
 * tensor.c: tensor headers over counted storage, shape arithmetic and the
 * strided n-d iterator (see tensor.h).
 */
#include "config.h"

#include "graph/tensor.h"

#include <stdlib.h>
#include <string.h>

int64_t
gp_shape_numel(int ndim, const int64_t *shape)
{
	int64_t n = 1;

	for (int i = 0; i < ndim; i++)
		n *= shape[i];
	return (n);
}

bool
gp_shape_nbytes(int ndim, const int64_t *shape, enum gp_dtype dt,
    size_t *out)
{
	uint64_t n = gp_dtype_size(dt);
	bool zero = false;

	/* the rule variables follow (gp_npy_nbytes): the byte count of the
	 * non-zero dimensions fits in 64 bits even when another dimension
	 * is 0, so element counts and strides never overflow either */
	for (int i = 0; i < ndim; i++) {
		if (shape[i] < 0)
			goto overflow;
		if (shape[i] == 0) {
			zero = true;
			continue;
		}
		if (__builtin_mul_overflow(n, (uint64_t)shape[i], &n) ||
		    n > (uint64_t)INT64_MAX)
			goto overflow;
	}
	if (n > (uint64_t)SIZE_MAX / 2)
		goto overflow;
	*out = zero ? 0 : (size_t)n;
	return (true);
overflow:
	*out = SIZE_MAX;
	return (false);
}

void
gp_shape_format(struct gp_buf *b, int ndim, const int64_t *shape)
{
	gp_buf_puts(b, "(");
	for (int i = 0; i < ndim; i++)
		gp_buf_printf(b, "%s%lld", i ? ", " : "", (long long)shape[i]);
	if (ndim == 1)
		gp_buf_puts(b, ",");
	gp_buf_puts(b, ")");
}

int
gp_shape_broadcast(int na, const int64_t *a, int nb, const int64_t *b,
    int *ondim, int64_t *out, struct gp_err *err)
{
	int n = na > nb ? na : nb;
	int64_t tmp[GP_MAX_DIMS];

	for (int i = 0; i < n; i++) {
		int ia = na - n + i, ib = nb - n + i;
		int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;

		if (da == db || db == 1)
			tmp[i] = da;
		else if (da == 1)
			tmp[i] = db;
		else {
			struct gp_buf sa = {0}, sb = {0};

			gp_shape_format(&sa, na, a);
			gp_shape_format(&sb, nb, b);
			gp_err_set(err, "shapes %s and %s do not broadcast "
			    "(dimension %d: %lld vs %lld)", gp_buf_str(&sa),
			    gp_buf_str(&sb), i, (long long)da, (long long)db);
			gp_buf_free(&sa);
			gp_buf_free(&sb);
			return (-1);
		}
	}
	if (n > 0)
		memcpy(out, tmp, sizeof(int64_t) * (size_t)n);
	*ondim = n;
	return (0);
}

void
gp_shape_strides(int ndim, const int64_t *shape, size_t itemsize,
    int64_t *strides)
{
	int64_t s = (int64_t)itemsize;

	for (int i = ndim - 1; i >= 0; i--) {
		strides[i] = s;
		s *= shape[i] > 0 ? shape[i] : 1;
	}
}

bool
gp_tensor_is_contiguous(const struct gp_tensor *t)
{
	int64_t s = (int64_t)gp_dtype_size(t->dtype);

	for (int i = t->ndim - 1; i >= 0; i--) {
		if (t->shape[i] == 0)
			return (true);
		if (t->shape[i] != 1 && t->strides[i] != s)
			return (false);
		s *= t->shape[i];
	}
	return (true);
}

static void
alloc_common(struct gp_tensor *t, enum gp_dtype dt, int ndim,
    const int64_t *shape, bool zero)
{
	size_t nbytes;

	t->dtype = dt;
	t->ndim = ndim;
	if (ndim > 0)
		memcpy(t->shape, shape, sizeof(int64_t) * (size_t)ndim);
	gp_shape_strides(ndim, shape, gp_dtype_size(dt), t->strides);
	(void)gp_shape_nbytes(ndim, shape, dt, &nbytes);
	t->storage = zero ? gp_alloc_storage_zero(nbytes) :
	    gp_alloc_storage(nbytes);
	t->offset = 0;
}

void
gp_tensor_alloc(struct gp_tensor *t, enum gp_dtype dt, int ndim,
    const int64_t *shape)
{
	alloc_common(t, dt, ndim, shape, false);
}

void
gp_tensor_alloc_zero(struct gp_tensor *t, enum gp_dtype dt, int ndim,
    const int64_t *shape)
{
	alloc_common(t, dt, ndim, shape, true);
}

void
gp_tensor_view(struct gp_tensor *dst, const struct gp_tensor *src)
{
	struct gp_storage *old = dst->storage;

	if (src->storage != NULL)
		gp_alloc_ref(src->storage);
	*dst = *src;
	if (old != NULL)
		gp_alloc_unref(old);
}

struct conv_ctx {
	enum gp_dtype dt, st;
};

static void
conv_inner(char **p, const int64_t *steps, int64_t n, void *vctx)
{
	struct conv_ctx *c = vctx;
	size_t dsz = gp_dtype_size(c->dt);

	if (steps[0] == (int64_t)dsz) {
		gp_dtype_convert(p[0], c->dt, p[1], c->st, steps[1], (size_t)n);
		return;
	}
	for (int64_t i = 0; i < n; i++)
		gp_dtype_convert(p[0] + i * steps[0], c->dt, p[1] + i * steps[1],
		    c->st, 0, 1);
}

void
gp_tensor_copy_into(struct gp_tensor *dst, const struct gp_tensor *src)
{
	struct gp_iter it;
	struct conv_ctx c = {.dt = dst->dtype, .st = src->dtype};

	if (gp_tensor_numel(dst) == 0)
		return;
	gp_iter_init(&it, dst->ndim, dst->shape, 2);
	gp_iter_add(&it, 0, dst);
	gp_iter_add(&it, 1, src);
	gp_iter_run(&it, conv_inner, &c);
}

void
gp_tensor_copy(struct gp_tensor *dst, const struct gp_tensor *src)
{
	gp_tensor_alloc(dst, src->dtype, src->ndim, src->shape);
	gp_tensor_copy_into(dst, src);
}

double
gp_tensor_get(const struct gp_tensor *t, int64_t i)
{
	const char *p = gp_tensor_data(t);

	for (int d = t->ndim - 1; d >= 0; d--) {
		int64_t k = t->shape[d] ? i % t->shape[d] : 0;

		p += k * t->strides[d];
		i = t->shape[d] ? i / t->shape[d] : 0;
	}
	return (gp_dtype_load(p, t->dtype));
}

void
gp_iter_init(struct gp_iter *it, int ndim, const int64_t *shape, int nop)
{
	it->ndim = ndim;
	it->nop = nop;
	if (ndim > 0)
		memcpy(it->shape, shape, sizeof(int64_t) * (size_t)ndim);
}

void
gp_iter_add(struct gp_iter *it, int k, const struct gp_tensor *t)
{
	int off = it->ndim - t->ndim;

	it->base[k] = gp_tensor_data(t);
	for (int d = 0; d < it->ndim; d++) {
		int td = d - off;

		if (td < 0 || t->shape[td] == 1)
			it->strides[k][d] = 0;
		else
			it->strides[k][d] = t->strides[td];
	}
}

void
gp_dims_order_by(int nd, int64_t *shape, int nop, int64_t (*st)[GP_MAX_DIMS],
    int k)
{
	/* insertion sort of the dims by |stride| of operand k, descending */
	for (int d = 1; d < nd; d++) {
		int64_t sh = shape[d], sd[GP_ITER_MAX_OPS];
		int e = d;

		for (int q = 0; q < nop; q++)
			sd[q] = st[q][d];
		while (e > 0 && llabs(st[k][e - 1]) < llabs(sd[k])) {
			shape[e] = shape[e - 1];
			for (int q = 0; q < nop; q++)
				st[q][e] = st[q][e - 1];
			e--;
		}
		shape[e] = sh;
		for (int q = 0; q < nop; q++)
			st[q][e] = sd[q];
	}
}

void
gp_iter_order_by(struct gp_iter *it, int k)
{
	gp_dims_order_by(it->ndim, it->shape, it->nop, it->strides, k);
}

void
gp_iter_run(struct gp_iter *it, gp_inner_fn fn, void *ctx)
{
	int64_t shape[GP_MAX_DIMS], st[GP_ITER_MAX_OPS][GP_MAX_DIMS];
	int64_t idx[GP_MAX_DIMS], steps[GP_ITER_MAX_OPS];
	char *ptrs[GP_ITER_MAX_OPS];
	int nd = 0, nop = it->nop;

	for (int d = 0; d < it->ndim; d++)
		if (it->shape[d] == 0)
			return;
	/* drop size-1 dims, merge a dim into the previous one when every
	 * operand steps through both as one */
	for (int d = 0; d < it->ndim; d++) {
		bool merge = nd > 0;

		if (it->shape[d] == 1)
			continue;
		for (int k = 0; merge && k < nop; k++)
			if (st[k][nd - 1] != it->strides[k][d] * it->shape[d])
				merge = false;
		if (merge) {
			shape[nd - 1] *= it->shape[d];
			for (int k = 0; k < nop; k++)
				st[k][nd - 1] = it->strides[k][d];
		} else {
			shape[nd] = it->shape[d];
			for (int k = 0; k < nop; k++)
				st[k][nd] = it->strides[k][d];
			nd++;
		}
	}
	if (nd == 0) {
		shape[0] = 1;
		for (int k = 0; k < nop; k++)
			st[k][0] = 0;
		nd = 1;
	}
	for (int k = 0; k < nop; k++) {
		steps[k] = st[k][nd - 1];
		ptrs[k] = it->base[k];
	}
	if (nd == 1) {
		fn(ptrs, steps, shape[0], ctx);
		return;
	}
	memset(idx, 0, sizeof(idx));
	for (;;) {
		int d;

		fn(ptrs, steps, shape[nd - 1], ctx);
		for (d = nd - 2; d >= 0; d--) {
			idx[d]++;
			for (int k = 0; k < nop; k++)
				ptrs[k] += st[k][d];
			if (idx[d] < shape[d])
				break;
			for (int k = 0; k < nop; k++)
				ptrs[k] -= st[k][d] * shape[d];
			idx[d] = 0;
		}
		if (d < 0)
			break;
	}
}
