/*
 * pb-build.h: building ONNX messages with protobuf-c in the test programs
 * (test-onnx-read, make-resnet18): an arena that keeps every message and
 * string until pb_free_all() (reachable meanwhile, so leak checkers see
 * nothing lost), arrays grown one element at a time, and a tensor's value
 * info with numeric or symbolic dimensions.
 *
 * Everything is static: include this once, after the program's includes
 * (it needs base/util.h and load/onnx.pb-c.h, which load/onnx-read.h
 * includes).
 */
#ifndef GPTOP_TESTS_ONNX_PB_BUILD_H
#define GPTOP_TESTS_ONNX_PB_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "load/onnx.pb-c.h"

static void **kept;
static size_t n_kept, cap_kept;

/* n zeroed bytes (at least one), kept until pb_free_all(). */
static void *
tmalloc(size_t n)
{
	void *p = gp_xcalloc(1, n ? n : 1);

	gp_grow(&kept, &cap_kept, n_kept + 1, sizeof(*kept));
	kept[n_kept++] = p;
	return (p);
}

/* A copy of p[0, n); p may be NULL when n is 0 (a scalar's dims). */
static __attribute__((__unused__)) void *
dup_mem(const void *p, size_t n)
{
	void *q = tmalloc(n);

	if (n > 0)
		memcpy(q, p, n);
	return (q);
}

static void __attribute__((__unused__))
pb_free_all(void)
{
	for (size_t i = 0; i < n_kept; i++)
		free(kept[i]);
	free(kept);
	kept = NULL;
	n_kept = cap_kept = 0;
}

/* Append v to the array arr (a protobuf-c repeated field and its count
 * n): a new array from the arena. */
#define PUSH(n, arr, v)                                                      \
	do {                                                                 \
		void *grown_ = tmalloc(((n) + 1) * sizeof(*(arr)));          \
		if ((n) > 0)                                                 \
			memcpy(grown_, (arr), (n) * sizeof(*(arr)));         \
		(arr) = grown_;                                              \
		(arr)[(n)++] = (v);                                          \
	} while (0)

/* A tensor value info of element type elem: nd dimensions, dimension i
 * the symbol syms[i] when syms and syms[i] are not NULL, else dims[i];
 * no shape at all when nd < 0. */
static Onnx__ValueInfoProto *
pb_vinfo(const char *name, int elem, int nd, const int64_t *dims,
    const char *const *syms)
{
	Onnx__ValueInfoProto *v = tmalloc(sizeof(*v));
	Onnx__TypeProto *tp = tmalloc(sizeof(*tp));
	Onnx__TypeProto__Tensor *tt = tmalloc(sizeof(*tt));
	Onnx__TensorShapeProto *sh = tmalloc(sizeof(*sh));

	onnx__value_info_proto__init(v);
	onnx__type_proto__init(tp);
	onnx__type_proto__tensor__init(tt);
	onnx__tensor_shape_proto__init(sh);
	for (int i = 0; i < nd; i++) {
		Onnx__TensorShapeProto__Dimension *d = tmalloc(sizeof(*d));

		onnx__tensor_shape_proto__dimension__init(d);
		if (syms != NULL && syms[i] != NULL) {
			d->value_case =
			    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			d->dim_param = (char *)syms[i];
		} else {
			d->value_case =
			    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			d->dim_value = dims[i];
		}
		PUSH(sh->n_dim, sh->dim, d);
	}
	tt->has_elem_type = 1;
	tt->elem_type = elem;
	tt->shape = nd >= 0 ? sh : NULL;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	v->name = (char *)name;
	v->type = tp;
	return (v);
}

#endif /* GPTOP_TESTS_ONNX_PB_BUILD_H */
