/*
 * ops/shape.c: the shape family: dimshuffle and transpose (views), reshape
 * and flatten (views where strides can address the result, copies
 * otherwise), alloc, zeros_like and ones_like (filled outputs),
 * alloc_empty (an output left as the allocator gives it: the rewrite
 * join_into's, whose convs write every element), join (numpy's
 * concatenate),
 * subtensor (numpy basic indexing: integers and slices, a view), and
 * inc_subtensor / set_subtensor (a copy of x with the indexed region
 * incremented by, or set to, y broadcast).  Every kernel takes any dtype
 * and any input strides.
 *
 * Views: dimshuffle, transpose, subtensor, reshape and flatten declare
 * view[0] = 0 and GP_IMPL_VIEW.  reshape and flatten decide at run time:
 * a contiguous input is viewed, and so is a non-contiguous one whose
 * elements the new shape can address with strides (numpy's rule: a slice
 * of columns split into heads, a transpose given a size-1 dimension);
 * any other (a transpose flattened) is copied into a new storage that
 * only the output holds.
 * Each says through its op's view_layout which layouts it views; the VM
 * asks at link time, and allocates the output of a reshape it cannot
 * view as it allocates any other op's (the kernel copies into it), so
 * the memory profile counts that copy as the VM makes it.
 *
 * In place: inc_subtensor and set_subtensor may overwrite x (input 0):
 * with destroy[0] = 0 the output arrives as x and only the region is
 * written.
 */
#include "config.h"

#include "ops/ops.h"
#include "ops/par.h"
#include "ops/scratch.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
err_shape(struct gp_err *err, const char *fmt1, int nd, const int64_t *sh,
    const char *fmt2, int nd2, const int64_t *sh2, const char *tail)
{
	struct gp_buf a = {0}, b = {0};

	gp_shape_format(&a, nd, sh);
	if (sh2 != NULL)
		gp_shape_format(&b, nd2, sh2);
	gp_err_set(err, "%s%s%s%s%s", fmt1, gp_buf_str(&a), fmt2,
	    gp_buf_str(&b), tail);
	gp_buf_free(&a);
	gp_buf_free(&b);
	return (-1);
}

static bool
same_storage(const struct gp_tensor *a, const struct gp_tensor *b)
{
	return (a->storage != NULL && a->storage == b->storage &&
	    a->offset == b->offset);
}

static void
fmt_cls(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	gp_buf_puts(b, n->op->cls);
}

/*
 * dimshuffle and transpose
 */

struct ds_priv {
	int	n;
	int	pat[GP_MAX_DIMS];	/* input dim, or -1 for "x" */
};

/* o (not x) gets the dimensions of x the pattern picks. */
static bool
lay_dimshuffle(const struct gp_graph *g, const struct gp_node *n, int k,
    const struct gp_tensor *x, struct gp_tensor *o)
{
	const struct ds_priv *dp = n->priv;

	(void)g;
	(void)k;
	o->dtype = x->dtype;
	o->ndim = dp->n;
	for (int d = 0; d < dp->n; d++) {
		if (dp->pat[d] < 0) {
			o->shape[d] = 1;
			o->strides[d] = 0;
		} else {
			o->shape[d] = x->shape[dp->pat[d]];
			o->strides[d] = x->strides[dp->pat[d]];
		}
	}
	return (true);
}

static void
k_dimshuffle(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	gp_tensor_view(out[0], in[0]);
	(void)lay_dimshuffle(NULL, n, 0, in[0], out[0]);
}

static void
ds_out(struct gp_graph *g, struct gp_node *n, const struct gp_type *t,
    const struct ds_priv *dp)
{
	int64_t shape[GP_MAX_DIMS];

	for (int k = 0; k < dp->n; k++)
		shape[k] = dp->pat[k] < 0 ? 1 : t->shape[dp->pat[k]];
	gp_ops_set_out(g, n, 0, t->dtype, dp->n, shape);
	n->view[0] = 0;
	n->impl = GP_IMPL_VIEW;
	n->kernel = k_dimshuffle;
}

static int
prep_dimshuffle(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	json_t *v = json_object_get(n->params, "pattern"), *e;
	struct ds_priv *dp = gp_xcalloc(1, sizeof(*dp));
	bool used[GP_MAX_DIMS] = {false};
	size_t i;

	n->priv = dp;
	if (!json_is_array(v))
		return (gp_err_set(err, "param 'pattern' must be a list of "
		    "input dimensions and \"x\" (for example [1, \"x\", 0])"));
	if (json_array_size(v) > GP_MAX_DIMS)
		return (gp_err_set(err, "param 'pattern': %zu entries, at "
		    "most %d dimensions", json_array_size(v), GP_MAX_DIMS));
	json_array_foreach(v, i, e) {
		json_int_t d;

		if (json_is_string(e) && strcmp(json_string_value(e),
		    "x") == 0) {
			dp->pat[dp->n++] = -1;
			continue;
		}
		if (!json_is_integer(e))
			return (gp_err_set(err, "param 'pattern': entry %zu "
			    "must be an input dimension or \"x\"", i));
		d = json_integer_value(e);
		if (d < 0 || d >= t->ndim)
			return (gp_err_set(err, "param 'pattern': dimension "
			    "%lld is out of range for %d input dimensions",
			    (long long)d, t->ndim));
		if (used[d])
			return (gp_err_set(err, "param 'pattern': dimension "
			    "%lld repeated", (long long)d));
		used[d] = true;
		dp->pat[dp->n++] = (int)d;
	}
	for (int d = 0; d < t->ndim; d++)
		if (!used[d] && t->shape[d] != 1)
			return (gp_err_set(err, "param 'pattern': dimension "
			    "%d (size %lld) is dropped, but only broadcastable "
			    "dimensions (size 1) can be", d,
			    (long long)t->shape[d]));
	ds_out(g, n, t, dp);
	return (0);
}

static int
prep_transpose(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	json_t *v = json_object_get(n->params, "axes"), *e;
	struct ds_priv *dp = gp_xcalloc(1, sizeof(*dp));
	bool used[GP_MAX_DIMS] = {false};
	size_t i;

	n->priv = dp;
	dp->n = t->ndim;
	if (v == NULL || json_is_null(v)) {
		for (int d = 0; d < t->ndim; d++)
			dp->pat[d] = t->ndim - 1 - d;
		ds_out(g, n, t, dp);
		return (0);
	}
	if (!json_is_array(v) || json_array_size(v) != (size_t)t->ndim)
		return (gp_err_set(err, "param 'axes' must be a permutation "
		    "of the %d input dimensions", t->ndim));
	json_array_foreach(v, i, e) {
		json_int_t d;

		if (!json_is_integer(e))
			return (gp_err_set(err, "param 'axes': entry %zu must "
			    "be an integer", i));
		d = json_integer_value(e);
		if (d < -t->ndim || d >= t->ndim)
			return (gp_err_set(err, "param 'axes': axis %lld is "
			    "out of range for %d dimensions", (long long)d,
			    t->ndim));
		if (d < 0)
			d += t->ndim;
		if (used[d])
			return (gp_err_set(err, "param 'axes': axis %lld "
			    "repeated", (long long)d));
		used[d] = true;
		dp->pat[i] = (int)d;
	}
	ds_out(g, n, t, dp);
	return (0);
}

static void
fmt_dimshuffle(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	const struct ds_priv *dp = n->priv;

	gp_buf_puts(b, "DimShuffle{");
	for (int k = 0; k < dp->n; k++) {
		if (dp->pat[k] < 0)
			gp_buf_printf(b, "%sx", k ? "," : "");
		else
			gp_buf_printf(b, "%s%d", k ? "," : "", dp->pat[k]);
	}
	gp_buf_puts(b, "}");
}

/*
 * reshape and flatten
 */

struct rs_priv {
	int	ndim;
	int64_t	shape[GP_MAX_DIMS];
};

/*
 * Strides that make x's elements, in C order, a tensor of shape nd/ns
 * without moving them (numpy's _attempt_nocopy_reshape): size-1
 * dimensions aside, each group of x's dimensions that multiplies to a
 * group of the new ones must be one block of one stride (stride[k] =
 * dim[k+1] * stride[k+1] within it); the new group's strides follow from
 * its last.  A slice of a matrix's columns reshaped to split them (an
 * attention's heads: (32, 1, 128) of stride 1536 to (32, 4, 32)) is
 * such a view.  False when a copy is needed, or x has no element.
 */
static bool
nocopy_strides(const struct gp_tensor *x, int nd, const int64_t *ns,
    int64_t *st)
{
	int64_t od[GP_MAX_DIMS], os[GP_MAX_DIMS], last;
	int on = 0, oi = 0, oj = 1, ni = 0, nj = 1;

	if (gp_tensor_numel(x) == 0)
		return (false);
	for (int k = 0; k < x->ndim; k++)
		if (x->shape[k] != 1) {
			od[on] = x->shape[k];
			os[on++] = x->strides[k];
		}
	while (ni < nd && oi < on) {
		int64_t np = ns[ni], op = od[oi];

		while (np != op) {
			if (np < op)
				np *= ns[nj++];
			else
				op *= od[oj++];
		}
		for (int k = oi; k < oj - 1; k++)
			if (os[k] != od[k + 1] * os[k + 1])
				return (false);
		st[nj - 1] = os[oj - 1];
		for (int k = nj - 1; k > ni; k--)
			st[k - 1] = st[k] * ns[k];
		ni = nj++;
		oi = oj++;
	}
	last = ni >= 1 ? st[ni - 1] : (int64_t)gp_dtype_size(x->dtype);
	for (int k = ni; k < nd; k++)
		st[k] = last;
	return (true);
}

/* The new shape over x's elements: contiguous x, or strides that
 * address them; false when only a copy has that shape. */
static bool
lay_reshape(const struct gp_graph *g, const struct gp_node *n, int k,
    const struct gp_tensor *x, struct gp_tensor *o)
{
	const struct rs_priv *rp = n->priv;

	(void)g;
	(void)k;
	o->dtype = x->dtype;
	o->ndim = rp->ndim;
	memcpy(o->shape, rp->shape, sizeof(int64_t) * (size_t)rp->ndim);
	if (gp_tensor_is_contiguous(x)) {
		gp_shape_strides(rp->ndim, rp->shape, gp_dtype_size(x->dtype),
		    o->strides);
		return (true);
	}
	return (nocopy_strides(x, rp->ndim, rp->shape, o->strides));
}

/* A view where lay_reshape finds one; else a copy, into the output the
 * VM allocated for it (it asked lay_reshape at link time), or into a new
 * storage for a caller that gave none (constant folding). */
static void
k_reshape(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct rs_priv *rp = n->priv;
	const struct gp_tensor *x = in[0];
	struct gp_tensor *o = out[0], h = {0}, as_x;

	if (lay_reshape(NULL, n, 0, x, &h)) {
		gp_tensor_view(o, x);
		o->ndim = h.ndim;
		memcpy(o->shape, h.shape, sizeof(h.shape));
		memcpy(o->strides, h.strides, sizeof(h.strides));
		return;
	}
	if (o->storage == NULL || o->storage == x->storage ||
	    o->storage->nbytes < gp_tensor_nbytes(x)) {
		gp_tensor_release(o);
		gp_tensor_alloc(o, x->dtype, rp->ndim, rp->shape);
	}
	o->dtype = x->dtype;
	o->ndim = rp->ndim;
	memcpy(o->shape, rp->shape, sizeof(int64_t) * (size_t)rp->ndim);
	gp_shape_strides(rp->ndim, rp->shape, gp_dtype_size(o->dtype),
	    o->strides);
	/* the same bytes seen in x's shape, to copy x's elements in order */
	as_x = *o;
	as_x.ndim = x->ndim;
	memcpy(as_x.shape, x->shape, sizeof(x->shape));
	gp_shape_strides(x->ndim, x->shape, gp_dtype_size(x->dtype),
	    as_x.strides);
	gp_tensor_copy_into(&as_x, x);
}

static void
rs_out(struct gp_graph *g, struct gp_node *n, const struct gp_type *t,
    const struct rs_priv *rp)
{
	gp_ops_set_out(g, n, 0, t->dtype, rp->ndim, rp->shape);
	n->view[0] = 0;
	n->impl = GP_IMPL_VIEW;
	n->kernel = k_reshape;
}

static int
prep_reshape(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	json_t *v = json_object_get(n->params, "shape"), *e;
	struct rs_priv *rp = gp_xcalloc(1, sizeof(*rp));
	int64_t numel = gp_shape_numel(t->ndim, t->shape), known = 1;
	int free_dim = -1;
	size_t i;

	n->priv = rp;
	if (!json_is_array(v))
		return (gp_err_set(err, "param 'shape' must be a list of "
		    "sizes (one may be -1)"));
	if (json_array_size(v) > GP_MAX_DIMS)
		return (gp_err_set(err, "param 'shape': %zu dimensions, at "
		    "most %d", json_array_size(v), GP_MAX_DIMS));
	json_array_foreach(v, i, e) {
		json_int_t d;

		if (!json_is_integer(e))
			return (gp_err_set(err, "param 'shape': entry %zu must "
			    "be an integer", i));
		d = json_integer_value(e);
		if (d == -1) {
			if (free_dim >= 0)
				return (gp_err_set(err, "param 'shape': only "
				    "one size can be -1"));
			free_dim = (int)i;
		} else if (d < 0)
			return (gp_err_set(err, "param 'shape': size %lld is "
			    "negative", (long long)d));
		else if (__builtin_mul_overflow(known, (int64_t)d, &known))
			return (gp_err_set(err, "param 'shape': too large"));
		rp->shape[rp->ndim++] = d;
	}
	if (free_dim >= 0) {
		if (known == 0 || numel % known != 0)
			return (err_shape(err, "cannot reshape ", t->ndim,
			    t->shape, " into ", rp->ndim, rp->shape,
			    ": the size of the -1 dimension is not defined"));
		rp->shape[free_dim] = numel / known;
		known = numel;
	}
	if (known != numel) {
		char tail[96];

		snprintf(tail, sizeof(tail), ": %lld elements vs %lld",
		    (long long)numel, (long long)known);
		return (err_shape(err, "cannot reshape ", t->ndim, t->shape,
		    " into ", rp->ndim, rp->shape, tail));
	}
	rs_out(g, n, t, rp);
	return (0);
}

static int
prep_flatten(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	struct rs_priv *rp = gp_xcalloc(1, sizeof(*rp));
	int64_t nd, last = 1;

	n->priv = rp;
	if (gp_op_param_int(n->params, "ndim", 1, &nd, err) < 0)
		return (-1);
	if (nd < 1 || nd > (t->ndim > 1 ? t->ndim : 1))
		return (gp_err_set(err, "param 'ndim': %lld is out of range: "
		    "flattening %d dimensions keeps 1 to %d", (long long)nd,
		    t->ndim, t->ndim > 1 ? t->ndim : 1));
	rp->ndim = (int)nd;
	for (int d = 0; d < nd - 1; d++)
		rp->shape[d] = t->shape[d];
	for (int d = (int)nd - 1; d < t->ndim; d++)
		last *= t->shape[d];
	rp->shape[nd - 1] = last;
	rs_out(g, n, t, rp);
	return (0);
}

static void
fmt_reshape(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	const struct rs_priv *rp = n->priv;

	gp_buf_printf(b, "%s{%d}", n->op->cls, rp->ndim);
}

/*
 * alloc, zeros_like, ones_like
 */

static void
k_alloc(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	gp_tensor_copy_into(out[0], in[0]);
}

/* Param shape: a list of at most GP_MAX_DIMS sizes, into shape; their
 * count, or -1. */
static int
param_shape(const struct gp_node *n, int64_t *shape, struct gp_err *err)
{
	json_t *v = json_object_get(n->params, "shape"), *e;
	int nd = 0;
	size_t i;

	if (!json_is_array(v))
		return (gp_err_set(err, "param 'shape' must be a list of "
		    "sizes"));
	if (json_array_size(v) > GP_MAX_DIMS)
		return (gp_err_set(err, "param 'shape': %zu dimensions, at "
		    "most %d", json_array_size(v), GP_MAX_DIMS));
	json_array_foreach(v, i, e) {
		if (!json_is_integer(e) || json_integer_value(e) < 0)
			return (gp_err_set(err, "param 'shape': entry %zu must "
			    "be a size (an integer >= 0)", i));
		shape[nd++] = json_integer_value(e);
	}
	return (nd);
}

static int
prep_alloc(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	int64_t shape[GP_MAX_DIMS];
	int nd = param_shape(n, shape, err);

	if (nd < 0)
		return (-1);
	if (t->ndim > nd)
		goto bad;
	for (int d = 0; d < t->ndim; d++) {
		int64_t s = t->shape[d], want = shape[nd - t->ndim + d];

		if (s != 1 && s != want)
			goto bad;
	}
	gp_ops_set_out(g, n, 0, t->dtype, nd, shape);
	n->kernel = k_alloc;
	return (0);
bad:
	return (err_shape(err, "alloc: a value of shape ", t->ndim, t->shape,
	    " does not broadcast to ", nd, shape, ""));
}

static void
k_alloc_empty(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	(void)n, (void)in, (void)out;
}

static int
prep_alloc_empty(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	json_t *d = json_object_get(n->params, "dtype");
	int64_t shape[GP_MAX_DIMS];
	enum gp_dtype dt;
	int nd;

	if (!json_is_string(d) || !gp_dtype_parse(json_string_value(d), &dt))
		return (gp_err_set(err, "alloc_empty: param 'dtype' must be one "
		    "of %s", gp_dtype_names()));
	if ((nd = param_shape(n, shape, err)) < 0)
		return (-1);
	gp_ops_set_out(g, n, 0, dt, nd, shape);
	n->kernel = k_alloc_empty;
	return (0);
}

static void
k_zeros_like(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	memset(gp_tensor_data(out[0]), 0, gp_tensor_nbytes(out[0]));
}

static void
k_ones_like(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	double one = 1;

	gp_dtype_convert(gp_tensor_data(out[0]), out[0]->dtype, &one,
	    GP_FLOAT64, 0, (size_t)gp_tensor_numel(out[0]));
}

static int
prep_like(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);

	gp_ops_set_out(g, n, 0, t->dtype, t->ndim, t->shape);
	n->kernel = strcmp(n->op->name, "zeros_like") == 0 ? k_zeros_like :
	    k_ones_like;
	return (0);
}

/*
 * join
 */

struct join_priv {
	int	axis;
};

/* The bytes of one piece of a parallel join: large enough that a
 * thread's share is a few long memcpys, small enough to spread one large
 * input over the threads. */
#define JOIN_PIECE	((int64_t)64 << 10)
/* The most inputs join_flat takes (more: the strided copy). */
#define JOIN_FLAT_MAX	16

/* All operands contiguous, of one dtype: each input is outer runs of
 * its bytes per outer index, copied into the output's rows, cut into
 * pieces of at most JOIN_PIECE bytes which the threads share (one
 * thread's memcpy leaves much of the memory bandwidth unused: the 3 MB
 * joins of SqueezeNet's fire modules take about half the time on two). */
static void
join_flat(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *o, int axis)
{
	int64_t outer = 1, inner = (int64_t)gp_dtype_size(o->dtype), row;
	int64_t pieces[JOIN_FLAT_MAX + 1], at[JOIN_FLAT_MAX + 1], total;
	char *dst = gp_tensor_data(o);

	for (int d = 0; d < axis; d++)
		outer *= o->shape[d];
	for (int d = axis + 1; d < o->ndim; d++)
		inner *= o->shape[d];
	row = o->shape[axis] * inner;
	pieces[0] = at[0] = 0;
	for (int k = 0; k < n->n_in; k++) {
		int64_t b = in[k]->shape[axis] * inner;

		at[k + 1] = at[k] + b;
		pieces[k + 1] = pieces[k] + outer * ((b + JOIN_PIECE - 1) /
		    JOIN_PIECE);
	}
	total = pieces[n->n_in];
	GP_PAR_FOR(outer * row / 16)
	for (int64_t j = 0; j < total; j++) {
		int k = 0;
		int64_t b, per, i, off, len;

		while (pieces[k + 1] <= j)
			k++;
		b = at[k + 1] - at[k];
		per = (b + JOIN_PIECE - 1) / JOIN_PIECE;
		i = (j - pieces[k]) / per;
		off = (j - pieces[k]) % per * JOIN_PIECE;
		len = b - off < JOIN_PIECE ? b - off : JOIN_PIECE;
		memcpy(dst + i * row + at[k] + off, (const char *)
		    gp_tensor_data(in[k]) + i * b + off, (size_t)len);
	}
}

static void
k_join(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct join_priv *jp = n->priv;
	struct gp_tensor *o = out[0];
	int64_t at = 0;
	bool flat = n->n_in <= JOIN_FLAT_MAX && gp_tensor_is_contiguous(o);

	for (int k = 0; flat && k < n->n_in; k++)
		flat = in[k]->dtype == o->dtype &&
		    gp_tensor_is_contiguous(in[k]);
	if (flat) {
		join_flat(n, in, o, jp->axis);
		return;
	}
	for (int k = 0; k < n->n_in; k++) {
		struct gp_tensor h = *o;	/* borrowed header: no ref */

		h.shape[jp->axis] = in[k]->shape[jp->axis];
		h.offset = (size_t)((int64_t)o->offset +
		    at * o->strides[jp->axis]);
		gp_tensor_copy_into(&h, in[k]);
		at += in[k]->shape[jp->axis];
	}
}

static int
prep_join(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t0 = gp_graph_in_type(g, n, 0);
	struct join_priv *jp = gp_xcalloc(1, sizeof(*jp));
	enum gp_dtype dt = t0->dtype;
	int64_t axis, shape[GP_MAX_DIMS];

	n->priv = jp;
	if (gp_op_param_int(n->params, "axis", 0, &axis, err) < 0)
		return (-1);
	if (t0->ndim == 0)
		return (gp_err_set(err, "join: 0-d inputs cannot be joined"));
	if (axis < -t0->ndim || axis >= t0->ndim)
		return (gp_err_set(err, "param 'axis': axis %lld is out of "
		    "range for %d dimensions", (long long)axis, t0->ndim));
	if (axis < 0)
		axis += t0->ndim;
	jp->axis = (int)axis;
	memcpy(shape, t0->shape, sizeof(int64_t) * (size_t)t0->ndim);
	shape[axis] = 0;
	for (int k = 0; k < n->n_in; k++) {
		const struct gp_type *t = gp_graph_in_type(g, n, k);
		char head[96], mid[64], tail[64];

		snprintf(head, sizeof(head), "join: input %d has shape ", k);
		snprintf(mid, sizeof(mid), " but input 0 has shape ");
		if (t->ndim != t0->ndim) {
			snprintf(tail, sizeof(tail), ": %d vs %d dimensions",
			    t->ndim, t0->ndim);
			return (err_shape(err, head, t->ndim, t->shape, mid,
			    t0->ndim, t0->shape, tail));
		}
		for (int d = 0; d < t->ndim; d++)
			if (d != axis && t->shape[d] != t0->shape[d]) {
				snprintf(tail, sizeof(tail), ": they differ "
				    "in dimension %d (joining on %d)", d,
				    (int)axis);
				return (err_shape(err, head, t->ndim, t->shape,
				    mid, t0->ndim, t0->shape, tail));
			}
		shape[axis] += t->shape[axis];
		dt = gp_dtype_promote(dt, t->dtype);
	}
	gp_ops_set_out(g, n, 0, dt, t0->ndim, shape);
	n->kernel = k_join;
	return (0);
}

/*
 * subtensor, inc_subtensor, set_subtensor
 */

struct sub_entry {
	bool	is_int;
	int64_t	start, step, len;	/* resolved (an integer: start) */
	bool	has[3];			/* as written: start, stop, step */
	int64_t	raw[3];
};

struct sub_priv {
	int			n;
	struct sub_entry	e[GP_MAX_DIMS];
	int			rndim;	/* the selected region */
	int64_t			rshape[GP_MAX_DIMS];
};

/* Make header t select the region (no reference change). */
static void
apply_idx(struct gp_tensor *t, const struct sub_priv *sp)
{
	int64_t off = (int64_t)t->offset;
	int nd = 0;

	for (int d = 0; d < t->ndim; d++) {
		const struct sub_entry *e = d < sp->n ? &sp->e[d] : NULL;

		if (e != NULL && e->is_int) {
			off += e->start * t->strides[d];
			continue;
		}
		if (e == NULL) {
			t->shape[nd] = t->shape[d];
			t->strides[nd] = t->strides[d];
		} else {
			if (e->len > 0)
				off += e->start * t->strides[d];
			t->shape[nd] = e->len;
			t->strides[nd] = t->strides[d] * e->step;
		}
		nd++;
	}
	t->ndim = nd;
	t->offset = (size_t)off;
}

/* numpy's (CPython's) slice resolution against a dimension of size len. */
static void
resolve_slice(struct sub_entry *e, int64_t len)
{
	int64_t step = e->has[2] ? e->raw[2] : 1, start, stop;

	if (!e->has[0])
		start = step < 0 ? len - 1 : 0;
	else {
		start = e->raw[0];
		if (start < 0) {
			start += len;
			if (start < 0)
				start = step < 0 ? -1 : 0;
		} else if (start >= len)
			start = step < 0 ? len - 1 : len;
	}
	if (!e->has[1])
		stop = step < 0 ? -1 : len;
	else {
		stop = e->raw[1];
		if (stop < 0) {
			stop += len;
			if (stop < 0)
				stop = step < 0 ? -1 : 0;
		} else if (stop >= len)
			stop = step < 0 ? len - 1 : len;
	}
	e->start = start;
	e->step = step;
	if (step < 0)
		e->len = stop < start ? (start - stop - 1) / -step + 1 : 0;
	else
		e->len = start < stop ? (stop - start - 1) / step + 1 : 0;
}

static int
parse_idx(const json_t *params, const struct gp_type *t, struct sub_priv *sp,
    struct gp_err *err)
{
	static const char *const keys[3] = {"start", "stop", "step"};
	json_t *v = json_object_get(params, "idx"), *e;
	size_t i;

	if (!json_is_array(v))
		return (gp_err_set(err, "param 'idx' must be a list with one "
		    "entry per leading axis: an integer or a slice {\"start\", "
		    "\"stop\", \"step\"}"));
	if (json_array_size(v) > (size_t)t->ndim)
		return (gp_err_set(err, "param 'idx': %zu indices for %d "
		    "dimensions", json_array_size(v), t->ndim));
	json_array_foreach(v, i, e) {
		struct sub_entry *s = &sp->e[i];
		int64_t len = t->shape[i];

		if (json_is_integer(e)) {
			json_int_t k = json_integer_value(e);

			if (k < -len || k >= len)
				return (gp_err_set(err, "param 'idx': index "
				    "%lld is out of bounds for axis %zu with "
				    "size %lld", (long long)k, i,
				    (long long)len));
			s->is_int = true;
			s->has[0] = true;
			s->raw[0] = k;
			s->start = k < 0 ? k + len : k;
			continue;
		}
		if (!json_is_object(e))
			return (gp_err_set(err, "param 'idx': entry %zu must "
			    "be an integer or a slice object {\"start\", "
			    "\"stop\", \"step\"}", i));
		{
			const char *key;
			json_t *val;

			json_object_foreach(e, key, val) {
				int k;

				for (k = 0; k < 3; k++)
					if (strcmp(key, keys[k]) == 0)
						break;
				if (k == 3)
					return (gp_err_set(err, "param 'idx': "
					    "entry %zu: unknown slice key "
					    "'%s' (expected start, stop, "
					    "step)", i, key));
				if (json_is_null(val))
					continue;
				if (!json_is_integer(val))
					return (gp_err_set(err, "param 'idx': "
					    "entry %zu: slice %s must be an "
					    "integer or null", i, key));
				s->has[k] = true;
				s->raw[k] = json_integer_value(val);
			}
		}
		if (s->has[2] && (s->raw[2] == 0 || s->raw[2] == INT64_MIN))
			return (gp_err_set(err, "param 'idx': entry %zu: slice "
			    "step cannot be %s", i, s->raw[2] == 0 ? "zero" :
			    "that large"));
		resolve_slice(s, len);
	}
	sp->n = (int)json_array_size(v);
	for (int d = 0; d < t->ndim; d++) {
		if (d < sp->n && sp->e[d].is_int)
			continue;
		sp->rshape[sp->rndim++] = d < sp->n ? sp->e[d].len :
		    t->shape[d];
	}
	return (0);
}

static void
fmt_idx(const struct sub_priv *sp, struct gp_buf *b)
{
	for (int d = 0; d < sp->n; d++) {
		const struct sub_entry *e = &sp->e[d];

		if (d > 0)
			gp_buf_puts(b, ", ");
		if (e->is_int) {
			gp_buf_printf(b, "%lld", (long long)e->raw[0]);
			continue;
		}
		for (int k = 0; k < 3; k++) {
			if (k > 0)
				gp_buf_puts(b, ":");
			if (e->has[k])
				gp_buf_printf(b, "%lld", (long long)e->raw[k]);
		}
	}
}

static bool
lay_subtensor(const struct gp_graph *g, const struct gp_node *n, int k,
    const struct gp_tensor *x, struct gp_tensor *o)
{
	(void)g;
	(void)k;
	o->dtype = x->dtype;
	o->ndim = x->ndim;
	o->offset = 0;
	memcpy(o->shape, x->shape, sizeof(x->shape));
	memcpy(o->strides, x->strides, sizeof(x->strides));
	apply_idx(o, n->priv);
	return (true);
}

static void
k_subtensor(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	gp_tensor_view(out[0], in[0]);
	apply_idx(out[0], n->priv);
}

static int
prep_subtensor(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	struct sub_priv *sp = gp_xcalloc(1, sizeof(*sp));

	n->priv = sp;
	if (parse_idx(n->params, t, sp, err) < 0)
		return (-1);
	gp_ops_set_out(g, n, 0, t->dtype, sp->rndim, sp->rshape);
	n->view[0] = 0;
	n->impl = GP_IMPL_VIEW;
	n->kernel = k_subtensor;
	return (0);
}

static void
fmt_subtensor(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	gp_buf_puts(b, "Subtensor{");
	fmt_idx(n->priv, b);
	gp_buf_puts(b, "}");
}

#define ALL_TYPES(X)                                                          \
	X(GP_BOOL, _Bool, b, 0) X(GP_INT8, int8_t, i8, 1)                     \
	X(GP_INT16, int16_t, i16, 1) X(GP_INT32, int32_t, i32, 1)             \
	X(GP_INT64, int64_t, i64, 1) X(GP_UINT8, uint8_t, u8, 1)              \
	X(GP_UINT16, uint16_t, u16, 1) X(GP_UINT32, uint32_t, u32, 1)         \
	X(GP_UINT64, uint64_t, u64, 1) X(GP_FLOAT32, float, f32, 2)           \
	X(GP_FLOAT64, double, f64, 2)

/* a += b in a's type: floats add, integers wrap, bools or. */
#define DEF_ADD(DT, T, SFX, K)                                                \
static void                                                                   \
add_##SFX(char **p, const int64_t *st, int64_t n, void *ctx)                  \
{                                                                             \
	for (int64_t i = 0; i < n; i++) {                                     \
		T *a = (T *)(p[0] + i * st[0]);                               \
		T b = *(const T *)(p[1] + i * st[1]);                         \
		ADD_##K(T, a, b);                                             \
	}                                                                     \
}
#define ADD_0(T, a, b) (*(a) = *(a) || (b))
#define ADD_1(T, a, b) (*(a) = (T)((uint64_t)*(a) + (uint64_t)(b)))
#define ADD_2(T, a, b) (*(a) = *(a) + (b))
ALL_TYPES(DEF_ADD)

static const gp_inner_fn fn_add[GP_DTYPE__COUNT] = {
#define E(DT, T, SFX, K) [DT] = add_##SFX,
	ALL_TYPES(E)
#undef E
};

static void
k_incsubtensor(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct gp_tensor *x = in[0], *y = in[1];
	struct gp_tensor *o = out[0], r, yc = {0};
	struct gp_iter it;
	bool set = strcmp(n->op->name, "set_subtensor") == 0;

	if (!same_storage(o, x))
		gp_tensor_copy_into(o, x);
	r = *o;		/* borrowed header: no ref */
	apply_idx(&r, n->priv);
	if (gp_tensor_numel(&r) == 0)
		return;
	if (y->storage == o->storage || (!set && y->dtype != r.dtype)) {
		/* y overlaps the output (in place) or needs x's dtype: a
		 * temporary no workspace() declares (which inputs share a
		 * storage is not in the layouts it reads) */
		gp_tensor_alloc(&yc, r.dtype, y->ndim, y->shape);
		gp_tensor_copy_into(&yc, y);
		y = &yc;
	}
	if (set) {
		gp_tensor_copy_into(&r, y);
		gp_tensor_release(&yc);
		return;
	}
	gp_iter_init(&it, r.ndim, r.shape, 2);
	gp_iter_add(&it, 0, &r);
	gp_iter_add(&it, 1, y);
	gp_iter_run(&it, fn_add[r.dtype], NULL);
	gp_tensor_release(&yc);
}

static int
prep_incsubtensor(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	const struct gp_type *y = gp_graph_in_type(g, n, 1);
	struct sub_priv *sp = gp_xcalloc(1, sizeof(*sp));
	bool ok = true;

	n->priv = sp;
	if (parse_idx(n->params, t, sp, err) < 0)
		return (-1);
	if (y->ndim > sp->rndim)
		ok = false;
	for (int d = 0; ok && d < y->ndim; d++) {
		int64_t s = y->shape[d];

		if (s != 1 && s != sp->rshape[sp->rndim - y->ndim + d])
			ok = false;
	}
	if (!ok)
		return (err_shape(err, "y of shape ", y->ndim, y->shape,
		    " does not broadcast to the selected region of shape ",
		    sp->rndim, sp->rshape, ""));
	gp_ops_set_out(g, n, 0, t->dtype, t->ndim, t->shape);
	n->kernel = k_incsubtensor;
	return (0);
}

static double
flops_incsubtensor(const struct gp_graph *g, const struct gp_node *n)
{
	const struct sub_priv *sp = n->priv;

	if (sp == NULL || strcmp(n->op->name, "inc_subtensor") != 0 ||
	    !gp_dtype_is_float(gp_graph_in_type(g, n, 0)->dtype))
		return (0);
	return ((double)gp_shape_numel(sp->rndim, sp->rshape));
}

static void
fmt_incsubtensor(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	gp_buf_printf(b, "IncSubtensor{%s%s;", n->destroy[0] >= 0 ?
	    "Inplace" : "", strcmp(n->op->name, "set_subtensor") == 0 ?
	    "Set" : "Inc");
	fmt_idx(n->priv, b);
	gp_buf_puts(b, "}");
}

/*
 * The table.
 */

/*
 * take: numpy's take along one axis (ONNX's Gather)
 */

struct take_priv {
	int	axis;
};

static void
k_take(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct take_priv *tp = n->priv;
	const struct gp_tensor *x, *ic;
	struct gp_scratch_tmp xc, icc;
	int64_t outer = 1, inner = 1, dim = in[0]->shape[tp->axis], ni;
	size_t row;
	const int64_t *idx;
	const char *src;
	char *dst = gp_tensor_data(out[0]);

	/* one kernel for every dtype: rows of bytes; a strided x and
	 * indices of any other integer dtype or strides are first made
	 * contiguous int64, in work space (work_take) */
	x = gp_scratch_as(in[0], in[0]->dtype, 0, &xc);
	ic = gp_scratch_as(in[1], GP_INT64, 1, &icc);
	idx = (const int64_t *)gp_tensor_data(ic);
	ni = gp_tensor_numel(ic);
	for (int d = 0; d < tp->axis; d++)
		outer *= x->shape[d];
	for (int d = tp->axis + 1; d < x->ndim; d++)
		inner *= x->shape[d];
	row = (size_t)inner * gp_dtype_size(x->dtype);
	src = gp_tensor_data(x);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < ni; j++, dst += row) {
			int64_t k = idx[j] < 0 ? idx[j] + dim : idx[j];

			if (k >= 0 && k < dim)
				memcpy(dst, src + ((size_t)(o * dim + k)) * row,
				    row);
			else
				memset(dst, 0, row);
		}
}

static uint64_t
work_take(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	(void)g;
	(void)n;
	return (gp_scratch_as_bytes(in[0], in[0]->dtype) +
	    gp_scratch_as_bytes(in[1], GP_INT64));
}

static int
prep_take(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	const struct gp_type *ti = gp_graph_in_type(g, n, 1);
	struct take_priv *tp = gp_xcalloc(1, sizeof(*tp));
	int64_t axis, shape[GP_MAX_DIMS];
	int nd = 0;

	n->priv = tp;
	if (gp_op_param_int(n->params, "axis", 0, &axis, err) < 0)
		return (-1);
	if (t->ndim == 0)
		return (gp_err_set(err, "take: x is 0-d (it needs an axis to "
		    "take from)"));
	if (axis < -t->ndim || axis >= t->ndim)
		return (gp_err_set(err, "param 'axis': axis %lld is out of "
		    "range for %d dimensions", (long long)axis, t->ndim));
	if (axis < 0)
		axis += t->ndim;
	if (!gp_dtype_is_int(ti->dtype))
		return (gp_err_set(err, "take: the indices must be integers, "
		    "not %s", gp_dtype_name(ti->dtype)));
	if (t->ndim - 1 + ti->ndim > GP_MAX_DIMS)
		return (gp_err_set(err, "take: the output would have %d "
		    "dimensions, at most %d", t->ndim - 1 + ti->ndim,
		    GP_MAX_DIMS));
	tp->axis = (int)axis;
	for (int d = 0; d < axis; d++)
		shape[nd++] = t->shape[d];
	for (int d = 0; d < ti->ndim; d++)
		shape[nd++] = ti->shape[d];
	for (int d = (int)axis + 1; d < t->ndim; d++)
		shape[nd++] = t->shape[d];
	gp_ops_set_out(g, n, 0, t->dtype, nd, shape);
	n->kernel = k_take;
	return (0);
}

static void
fmt_take(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	const struct take_priv *tp = n->priv;

	gp_buf_printf(b, "Take{axis=%d}", tp != NULL ? tp->axis : 0);
}

static const char *const p_pattern[] = {"pattern", NULL};
static const char *const p_axes[] = {"axes", NULL};
static const char *const p_shape[] = {"shape", NULL};
static const char *const p_shape_dtype[] = {"shape", "dtype", NULL};
static const char *const p_ndim[] = {"ndim", NULL};
static const char *const p_axis[] = {"axis", NULL};
static const char *const p_idx[] = {"idx", NULL};

static const struct gp_op op_dimshuffle = {
	.name = "dimshuffle",
	.cls = "DimShuffle",
	.doc = "dimshuffle(x; pattern): reorder dimensions, \"x\" inserts a "
	    "broadcastable one, a size-1 dimension may be dropped; a view of x",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.flags = GP_OPF_VIEW,
	.params = p_pattern,
	.prepare = prep_dimshuffle,
	.view_layout = lay_dimshuffle,
	.format = fmt_dimshuffle,
	.free_priv = free,
};

static const struct gp_op op_transpose = {
	.name = "transpose",
	.cls = "DimShuffle",
	.doc = "transpose(x; axes): permute the dimensions (default: "
	    "reversed); a view of x",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.flags = GP_OPF_VIEW,
	.params = p_axes,
	.prepare = prep_transpose,
	.view_layout = lay_dimshuffle,
	.format = fmt_dimshuffle,
	.free_priv = free,
};

static const struct gp_op op_reshape = {
	.name = "reshape",
	.cls = "Reshape",
	.doc = "reshape(x; shape): same elements in a new shape, one size "
	    "may be -1; a view of x when x is contiguous, else a copy",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.flags = GP_OPF_VIEW,
	.params = p_shape,
	.prepare = prep_reshape,
	.view_layout = lay_reshape,
	.format = fmt_reshape,
	.free_priv = free,
};

static const struct gp_op op_flatten = {
	.name = "flatten",
	.cls = "Flatten",
	.doc = "flatten(x; ndim=1): keep the first ndim-1 dimensions and "
	    "merge the rest; a view of x when x is contiguous, else a copy",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.flags = GP_OPF_VIEW,
	.params = p_ndim,
	.prepare = prep_flatten,
	.view_layout = lay_reshape,
	.format = fmt_reshape,
	.free_priv = free,
};

static const struct gp_op op_alloc = {
	.name = "alloc",
	.cls = "Alloc",
	.doc = "alloc(value; shape): a new tensor of the given shape filled "
	    "with value (0-d, or broadcastable to shape); value's dtype",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.params = p_shape,
	.prepare = prep_alloc,
	.format = fmt_cls,
};

/* Never folded or merged (GP_OPF_NONDET): each is the storage of one
 * chain of convs writing into it. */
static const struct gp_op op_alloc_empty = {
	.name = "alloc_empty",
	.cls = "AllocEmpty",
	.doc = "alloc_empty(; shape, dtype): a new tensor whose elements are "
	    "left as the allocator gives them (the rewrite join_into's, for "
	    "convs that write all of it)",
	.min_in = 0, .max_in = 0, .n_out = 1,
	.flags = GP_OPF_NONDET,
	.params = p_shape_dtype,
	.prepare = prep_alloc_empty,
	.format = fmt_cls,
};

static const struct gp_op op_zeros_like = {
	.name = "zeros_like",
	.cls = "Alloc",
	.doc = "zeros_like(x): zeros of x's dtype and shape",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.prepare = prep_like,
};

static const struct gp_op op_ones_like = {
	.name = "ones_like",
	.cls = "Alloc",
	.doc = "ones_like(x): ones of x's dtype and shape",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.prepare = prep_like,
};

static const struct gp_op op_join = {
	.name = "join",
	.cls = "Join",
	.doc = "join(x0, x1, ...; axis=0): numpy's concatenate along axis; "
	    "shapes equal elsewhere; dtype promoted",
	.min_in = 1, .max_in = -1, .n_out = 1,
	.params = p_axis,
	.prepare = prep_join,
	.format = fmt_cls,
	.free_priv = free,
};

static const struct gp_op op_subtensor = {
	.name = "subtensor",
	.cls = "Subtensor",
	.doc = "subtensor(x; idx): numpy basic indexing, one integer or "
	    "slice {start, stop, step} per leading axis; a view of x",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.flags = GP_OPF_VIEW,
	.params = p_idx,
	.prepare = prep_subtensor,
	.view_layout = lay_subtensor,
	.format = fmt_subtensor,
	.free_priv = free,
};

static const struct gp_op op_inc_subtensor = {
	.name = "inc_subtensor",
	.cls = "IncSubtensor",
	.doc = "inc_subtensor(x, y; idx): x with x[idx] += y (y broadcast, "
	    "cast to x's dtype); may overwrite x (input 0)",
	.min_in = 2, .max_in = 2, .n_out = 1,
	.flags = GP_OPF_INPLACE_OK,
	.params = p_idx,
	.prepare = prep_incsubtensor,
	.flops = flops_incsubtensor,
	.format = fmt_incsubtensor,
	.free_priv = free,
};

static const struct gp_op op_set_subtensor = {
	.name = "set_subtensor",
	.cls = "IncSubtensor",
	.doc = "set_subtensor(x, y; idx): x with x[idx] = y (y broadcast, "
	    "cast to x's dtype); may overwrite x (input 0)",
	.min_in = 2, .max_in = 2, .n_out = 1,
	.flags = GP_OPF_INPLACE_OK,
	.params = p_idx,
	.prepare = prep_incsubtensor,
	.flops = flops_incsubtensor,
	.format = fmt_incsubtensor,
	.free_priv = free,
};

static const struct gp_op op_take = {
	.name = "take",
	.cls = "Take",
	.doc = "take(x, indices; axis=0): numpy's take along axis (ONNX's "
	    "Gather): x's dims before axis, the indices' dims, x's dims after; "
	    "negative indices count from the end, out-of-range ones give 0",
	.min_in = 2, .max_in = 2, .n_out = 1,
	.params = p_axis,
	.prepare = prep_take,
	.workspace = work_take,
	.format = fmt_take,
	.free_priv = free,
};

const struct gp_op *const gp_ops_shape[] = {
	&op_alloc,
	&op_alloc_empty,
	&op_dimshuffle,
	&op_flatten,
	&op_inc_subtensor,
	&op_join,
	&op_ones_like,
	&op_reshape,
	&op_set_subtensor,
	&op_subtensor,
	&op_take,
	&op_transpose,
	&op_zeros_like,
	NULL,
};
