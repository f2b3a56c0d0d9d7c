/*
 * onnx-map.h: the table that maps ONNX ops onto gptop ops (onnx-map.c),
 * and the builder calls the table's translations use (onnx-build.c).
 * Each entry covers one ONNX op type over a range of opsets: its family
 * (the profile's Class column), the gptop ops it becomes, the attributes
 * shown in the Op column, and the function that adds its gptop nodes.
 */
#ifndef GPTOP_SRC_LOAD_ONNX_MAP_H
#define GPTOP_SRC_LOAD_ONNX_MAP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "load/onnx.pb-c.h"

struct gp_onnxb;	/* the builder's state, onnx-build.c */
struct gp_onnx_map;

typedef int (*gp_onnx_build_fn)(struct gp_onnxb *b,
    const struct gp_onnx_map *e);

struct gp_onnx_map {
	const char		*op_type;
	int			 since, until;	/* the opsets covered */
	const char		*family;	/* Class column */
	const char		*gp;	/* the gptop op(s), for the docs; the
					 * op itself for the elementwise
					 * entries */
	gp_onnx_build_fn	 build;
	const char *const	*show;	/* attributes in the Op column */
	int			 rule;	/* GP_ONNX_OUT_*: output 0's dtype */
};

enum {
	GP_ONNX_OUT_ANY,	/* whatever the gptop ops give */
	GP_ONNX_OUT_SAME,	/* input 0's dtype (cast back if needed) */
};

extern const struct gp_onnx_map	gp_onnx_map_table[];
extern const size_t		gp_onnx_map_count;

/* The entry for op_type at opset, or NULL; *any (if not NULL) gets an
 * entry of that op type at another opset, or NULL. */
const struct gp_onnx_map *gp_onnx_map_find(const char *op_type,
    int64_t opset, const struct gp_onnx_map **any);
/* The Op column of a node: "Gemm{tA}", "Softmax{axis=1}". */
void	gp_onnx_map_label(const struct gp_onnx_map *e,
	    const Onnx__NodeProto *np, struct gp_buf *b);

/* The node's attribute called name, or NULL. */
const Onnx__AttributeProto *gp_onnx_attr(const Onnx__NodeProto *np,
    const char *name);

/* The builder's calls (onnx-build.c).  Every int-returning call returns
 * -1 with the error set (naming the node) on failure. */
const Onnx__NodeProto	*gp_onnxb_node(const struct gp_onnxb *b);
int64_t			 gp_onnxb_opset(const struct gp_onnxb *b);
struct gp_graph		*gp_onnxb_graph(struct gp_onnxb *b);
/* Input k's variable, or -1 when the node has no input k (or it is
 * the empty name of an optional input left out). */
int	gp_onnxb_in(const struct gp_onnxb *b, int k);
int	gp_onnxb_n_in(const struct gp_onnxb *b);
int	gp_onnxb_n_out(const struct gp_onnxb *b);
const struct gp_type *gp_onnxb_type(const struct gp_onnxb *b, int v);
/* Apply gptop op `op` (params stolen; NULL: none) to in; returns the
 * variable of its output 0. */
int	gp_onnxb_apply(struct gp_onnxb *b, const char *op, json_t *params,
	    int n, const int *in);
/* The same with n_out outputs, their variables into outs; 0, or -1. */
int	gp_onnxb_apply_n(struct gp_onnxb *b, const char *op, json_t *params,
	    int n, const int *in, int n_out, int *outs);
/* A new constant (data: ndim/shape elements of dt, C order). */
int	gp_onnxb_const(struct gp_onnxb *b, enum gp_dtype dt, int ndim,
	    const int64_t *shape, const void *data);
int	gp_onnxb_scalar(struct gp_onnxb *b, enum gp_dtype dt, double v);
/* v converted to dt (v itself when it has that dtype). */
int	gp_onnxb_cast(struct gp_onnxb *b, int v, enum gp_dtype dt);
/* The value of v when the model is built (a constant, an initializer,
 * an input given by a file, or a folded result), or NULL with the error
 * set: `what` names the operand ("the shape"). */
const struct gp_tensor *gp_onnxb_value(struct gp_onnxb *b, int v,
	    const char *what);
/* That value as int64s (at most max); returns the count or -1. */
int	gp_onnxb_ints(struct gp_onnxb *b, int v, const char *what,
	    int64_t *out, int max);
/* Output k of the node is variable v. */
void	gp_onnxb_set_out(struct gp_onnxb *b, int k, int v);
/* Errors naming the node: a bad model, or what gptop does not support. */
int	gp_onnxb_fail(struct gp_onnxb *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	gp_onnxb_unsupported(struct gp_onnxb *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
