/*
 * test-onnx-read.c: tests of the ONNX reader (src/load/onnx-read.c) on small
 * models written at test time.  The models are built as protobuf-c
 * messages and packed to files (ModelProto bytes, as ONNX writes them),
 * one per error the reader must refuse, plus valid ones whose tensor
 * values, symbolic dimensions and bindings are checked against the values
 * written.
 *
 * With --write DIR it only writes the error models (and their external
 * data) into DIR for tests/onnx/cli.sh, which runs gptop on them.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load/onnx-read.h"
#include "../tap.h"

#include "pb-build.h"

#define T(x) ONNX__TENSOR_PROTO__DATA_TYPE__##x

static const char *dir;

/* ---- builders (pb-build.h: every message lives until the process
 * ends, kept reachable so the leak checker does not count them) ---- */

static Onnx__ModelProto *
model_new(int64_t opset)
{
	Onnx__ModelProto *m = tmalloc(sizeof(*m));
	Onnx__OperatorSetIdProto *op = tmalloc(sizeof(*op));

	onnx__model_proto__init(m);
	onnx__operator_set_id_proto__init(op);
	m->has_ir_version = 1;
	m->ir_version = 8;
	m->producer_name = "test-onnx-read";
	op->domain = "";
	op->has_version = 1;
	op->version = opset;
	m->n_opset_import = 1;
	m->opset_import = dup_mem(&op, sizeof(op));
	m->graph = tmalloc(sizeof(*m->graph));
	onnx__graph_proto__init(m->graph);
	m->graph->name = "g";
	return (m);
}

/* A tensor value info; dims: a number, or a name for a symbolic dim
 * (NULL ends the list; no list: no shape). */
static Onnx__ValueInfoProto *
vinfo(const char *name, int elem, const char *const *dims)
{
	int64_t v[16] = {0};
	const char *sym[16] = {NULL};
	int nd = 0;

	for (; dims != NULL && dims[nd] != NULL && nd < 16; nd++) {
		bool num = dims[nd][0] >= '0' && dims[nd][0] <= '9';

		v[nd] = num ? atoll(dims[nd]) : 0;
		sym[nd] = num ? NULL : dims[nd];
	}
	return (pb_vinfo(name, elem, dims != NULL ? nd : -1, v, sym));
}

static void
add_input(Onnx__ModelProto *m, const char *name, int elem,
    const char *const *dims)
{
	PUSH(m->graph->n_input, m->graph->input, vinfo(name, elem, dims));
}

static void
add_output(Onnx__ModelProto *m, const char *name, int elem)
{
	PUSH(m->graph->n_output, m->graph->output, vinfo(name, elem, NULL));
}

static Onnx__NodeProto *
node(Onnx__GraphProto *g, const char *name, const char *op, const char *in0,
    const char *in1, const char *out)
{
	Onnx__NodeProto *n = tmalloc(sizeof(*n));

	onnx__node_proto__init(n);
	n->name = (char *)name;
	n->op_type = (char *)op;
	if (in0 != NULL)
		PUSH(n->n_input, n->input, (char *)in0);
	if (in1 != NULL)
		PUSH(n->n_input, n->input, (char *)in1);
	PUSH(n->n_output, n->output, (char *)out);
	PUSH(g->n_node, g->node, n);
	return (n);
}

/* A tensor of dtype elem and shape dims (n of them), no data yet. */
static Onnx__TensorProto *
tensor(const char *name, int elem, int nd, const int64_t *dims)
{
	Onnx__TensorProto *t = tmalloc(sizeof(*t));

	onnx__tensor_proto__init(t);
	t->name = (char *)name;
	t->has_data_type = 1;
	t->data_type = elem;
	t->n_dims = (size_t)nd;
	t->dims = dup_mem(dims, (size_t)nd * sizeof(*dims));
	return (t);
}

static void
raw(Onnx__TensorProto *t, const void *p, size_t n)
{
	t->has_raw_data = 1;
	t->raw_data.len = n;
	t->raw_data.data = dup_mem(p, n);
}

static void
external(Onnx__TensorProto *t, const char *loc, const char *off,
    const char *len)
{
	const char *kv[3][2] = {{"location", loc}, {"offset", off},
		{"length", len}};

	t->has_data_location = 1;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	for (int i = 0; i < 3; i++) {
		Onnx__StringStringEntryProto *e;

		if (kv[i][1] == NULL)
			continue;
		e = tmalloc(sizeof(*e));
		onnx__string_string_entry_proto__init(e);
		e->key = (char *)kv[i][0];
		e->value = (char *)kv[i][1];
		PUSH(t->n_external_data, t->external_data, e);
	}
}

static void
add_init(Onnx__ModelProto *m, Onnx__TensorProto *t)
{
	PUSH(m->graph->n_initializer, m->graph->initializer, t);
}

static char *
path_of(const char *name)
{
	return (gp_xasprintf("%s/%s", dir, name));
}

static void
write_bytes(const char *name, const void *p, size_t n)
{
	char *path = path_of(name);
	FILE *fp = fopen(path, "wb");

	if (fp == NULL || fwrite(p, 1, n, fp) != n || fclose(fp) != 0) {
		perror(path);
		exit(99);
	}
	free(path);
}

static void
save(const char *name, const Onnx__ModelProto *m)
{
	size_t n = onnx__model_proto__get_packed_size(m);
	uint8_t *b = gp_xmalloc(n);

	onnx__model_proto__pack(m, b);
	write_bytes(name, b, n);
	free(b);
}

/* The model most cases start from: y = Add(x, w), w an initializer. */
static Onnx__ModelProto *
add_model(int64_t opset)
{
	static const char *const dims[] = {"2", "3", NULL};
	static const int64_t wd[] = {2, 3};
	static const float wv[] = {1, 2, 3, 4, 5, 6};
	Onnx__ModelProto *m = model_new(opset);
	Onnx__TensorProto *w = tensor("w", T(FLOAT), 2, wd);

	w->n_float_data = 6;
	w->float_data = dup_mem(wv, sizeof(wv));
	add_input(m, "x", T(FLOAT), dims);
	add_init(m, w);
	node(m->graph, "add0", "Add", "x", "w", "y");
	add_output(m, "y", T(FLOAT));
	return (m);
}

/* A model whose initializer w (float32 [2,3]) is external data. */
static Onnx__ModelProto *
ext_model(const char *loc, const char *off, const char *len)
{
	Onnx__ModelProto *m = add_model(13);
	Onnx__TensorProto *w = m->graph->initializer[0];

	w->n_float_data = 0;
	external(w, loc, off, len);
	return (m);
}

/* ---- the error models: file name, what the message must say ---- */

struct bad {
	const char	*file;
	const char	*expect;
};

static const struct bad BAD[] = {
    {"garbage.onnx", "the protobuf does not decode"},
    {"truncated.onnx", "the protobuf does not decode"},
    {"nograph.onnx", "an ONNX model with no graph"},
    {"opset21.onnx", "opset 21 of the default domain is newer than gptop "
	"supports (at most 20)"},
    {"missing-input.onnx", "node 0 'add0' (Add): input 1 'b' is neither a "
	"graph input, an initializer nor an earlier node's output"},
    {"later-output.onnx", "node 0 'first' (Relu): input 0 't' is neither"},
    {"dup-output.onnx", "node 1 'second' (Neg): output 0 'y' is already "
	"defined (duplicate output name)"},
    {"subgraph-missing.onnx", "node 0 'if0' (If): attribute 'then_branch': "
	"node 0 'inner' (Identity): input 0 'nowhere' is neither"},
    {"ext-absolute.onnx", "initializer 'w': external data location "
	"'/etc/hostname' is an absolute path"},
    {"ext-dotdot.onnx", "initializer 'w': external data location "
	"'sub/../../w.bin' leaves the model's folder (..)"},
    {"ext-symlink.onnx", "initializer 'w': external data location "
	"'link.bin' leaves the model's folder"},
    {"ext-missing.onnx", "initializer 'w': external data: "},
    {"ext-fifo.onnx", "initializer 'w': external data: "},
    {"ext-short.onnx", "initializer 'w': external data needs 24 bytes from "
	"offset 8"},
    {"raw-short.onnx", "initializer 'w': 20 bytes of raw data for float32 "
	"[2,3] (expected 24)"},
    {"huge.onnx", "initializer 'big': float32 [1048576,1048576] needs "
	"4398046511104 bytes, over the memory limit"},
    {"values-short.onnx", "initializer 'w': 5 values for float32 [2,3] "
	"(expected 6)"},
};
#define N_BAD ((int)(sizeof(BAD) / sizeof(BAD[0])))

/* The files whose dtypes gp_onnx_check_dtypes refuses (they read). */
static const struct bad BAD_DTYPE[] = {
    {"float16-input.onnx", "input 'x': dtype float16 is not supported"},
    {"bfloat16-init.onnx", "initializer 'w': dtype bfloat16 is not "
	"supported"},
    {"string-output.onnx", "output 'y': dtype string is not supported"},
    {"complex-const.onnx", "node 0 'c' (Constant): attribute 'value': "
	"dtype complex64 is not supported"},
};
#define N_BAD_DTYPE ((int)(sizeof(BAD_DTYPE) / sizeof(BAD_DTYPE[0])))

/* A STRING attribute. */
static Onnx__AttributeProto *
attr_string(const char *name, const char *v)
{
	Onnx__AttributeProto *a = tmalloc(sizeof(*a));

	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
	a->has_s = 1;
	a->s.data = (uint8_t *)v;
	a->s.len = strlen(v);
	return (a);
}

/* The spatial ops' refusals: Pad in a mode gptop does not pad in (the
 * attribute form of opset 2), Resize interpolating integers, Pad whose
 * pads come from a graph input's values (not known when the model is
 * built). */
static void
write_spatial_models(void)
{
	static const char *const d23[] = {"2", "3", NULL};
	static const char *const d4[] = {"4", NULL};
	static const char *const d1122[] = {"1", "1", "2", "2", NULL};
	static const int64_t four[] = {4};
	static const float sc[] = {1, 1, 2, 2};
	Onnx__ModelProto *m = model_new(2);
	Onnx__NodeProto *n;
	Onnx__AttributeProto *a = tmalloc(sizeof(*a));
	Onnx__TensorProto *t;

	add_input(m, "x", T(FLOAT), d23);
	n = node(m->graph, "pad0", "Pad", "x", NULL, "y");
	PUSH(n->n_attribute, n->attribute, attr_string("mode", "symmetric"));
	onnx__attribute_proto__init(a);
	a->name = "pads";
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	a->n_ints = 4;
	a->ints = dup_mem((int64_t[]){0, 1, 0, 1}, 4 * sizeof(int64_t));
	PUSH(n->n_attribute, n->attribute, a);
	add_output(m, "y", T(FLOAT));
	save("pad-mode.onnx", m);

	m = model_new(13);
	add_input(m, "x", T(INT32), d1122);
	t = tensor("scales", T(FLOAT), 1, four);
	t->n_float_data = 4;
	t->float_data = dup_mem(sc, sizeof(sc));
	add_init(m, t);
	n = node(m->graph, "up", "Resize", "x", "", "y");
	PUSH(n->n_input, n->input, "scales");
	PUSH(n->n_attribute, n->attribute, attr_string("mode", "linear"));
	add_output(m, "y", T(INT32));
	save("resize-int.onnx", m);

	m = model_new(13);
	add_input(m, "x", T(FLOAT), d23);
	add_input(m, "p", T(INT64), d4);
	node(m->graph, "pad1", "Pad", "x", "p", "y");
	add_output(m, "y", T(FLOAT));
	save("pad-input.onnx", m);

	/* Dropout in training mode (ratio and training_mode initializers,
	 * x = [1 2 3 4 5 6]): at ratio 0 a copy, its mask all true; at 0.5
	 * refused; a ratio that is a graph input is not known */
	for (int k = 0; k < 3; k++) {
		static const char *const name[3] = {"dropout-zero.onnx",
		    "dropout-half.onnx", "dropout-ratio-input.onnx"};
		static const char *const d0[] = {NULL};
		const float ratio = k == 0 ? 0.0f : 0.5f;
		const uint8_t on = 1;

		m = model_new(13);
		t = tensor("x", T(FLOAT), 2, (int64_t[]){2, 3});
		t->n_float_data = 6;
		t->float_data = dup_mem((float[]){1, 2, 3, 4, 5, 6}, 6 *
		    sizeof(float));
		add_init(m, t);
		if (k < 2) {
			t = tensor("r", T(FLOAT), 0, NULL);
			raw(t, &ratio, sizeof(ratio));
			add_init(m, t);
		} else
			add_input(m, "r", T(FLOAT), d0);
		t = tensor("t", T(BOOL), 0, NULL);
		raw(t, &on, sizeof(on));
		add_init(m, t);
		n = node(m->graph, "drop", "Dropout", "x", "r", "y");
		PUSH(n->n_input, n->input, "t");
		PUSH(n->n_output, n->output, "mask");
		add_output(m, "y", T(FLOAT));
		add_output(m, "mask", T(BOOL));
		save(name[k], m);
	}

	/* opset 18's forms.  Pad: x = [[1 2 3] [4 5 6]] padded (1, 2) in
	 * mode reflect along axes [-1] only */
	m = model_new(18);
	t = tensor("x", T(FLOAT), 2, (int64_t[]){2, 3});
	t->n_float_data = 6;
	t->float_data = dup_mem((float[]){1, 2, 3, 4, 5, 6}, 6 *
	    sizeof(float));
	add_init(m, t);
	t = tensor("p", T(INT64), 1, (int64_t[]){2});
	t->n_int64_data = 2;
	t->int64_data = dup_mem((int64_t[]){1, 2}, 2 * sizeof(int64_t));
	add_init(m, t);
	t = tensor("axes", T(INT64), 1, (int64_t[]){1});
	t->n_int64_data = 1;
	t->int64_data = dup_mem((int64_t[]){-1}, sizeof(int64_t));
	add_init(m, t);
	n = node(m->graph, "pad18", "Pad", "x", "p", "y");
	PUSH(n->n_input, n->input, "");
	PUSH(n->n_input, n->input, "axes");
	PUSH(n->n_attribute, n->attribute, attr_string("mode", "reflect"));
	add_output(m, "y", T(FLOAT));
	save("pad18.onnx", m);

	/* Resize: x = [[1 2] [3 4]] (1, 1, 2, 2), sizes (3, 5) for axes
	 * [2, 3], keep_aspect_ratio_policy not_larger: one scale 1.5, 3 x 3 */
	m = model_new(18);
	t = tensor("x", T(FLOAT), 4, (int64_t[]){1, 1, 2, 2});
	t->n_float_data = 4;
	t->float_data = dup_mem((float[]){1, 2, 3, 4}, 4 * sizeof(float));
	add_init(m, t);
	t = tensor("sizes", T(INT64), 1, (int64_t[]){2});
	t->n_int64_data = 2;
	t->int64_data = dup_mem((int64_t[]){3, 5}, 2 * sizeof(int64_t));
	add_init(m, t);
	n = node(m->graph, "up18", "Resize", "x", "", "y");
	PUSH(n->n_input, n->input, "");
	PUSH(n->n_input, n->input, "sizes");
	PUSH(n->n_attribute, n->attribute, attr_string(
	    "keep_aspect_ratio_policy", "not_larger"));
	a = tmalloc(sizeof(*a));
	onnx__attribute_proto__init(a);
	a->name = "axes";
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	a->n_ints = 2;
	a->ints = dup_mem((int64_t[]){2, 3}, 2 * sizeof(int64_t));
	PUSH(n->n_attribute, n->attribute, a);
	add_output(m, "y", T(FLOAT));
	save("resize18.onnx", m);
}

static void
write_models(void)
{
	static const float wv[6] = {1, 2, 3, 4, 5, 6};
	static const int64_t hd[] = {1 << 20, 1 << 20};
	static const char *const d23[] = {"2", "3", NULL};
	Onnx__ModelProto *m;
	size_t n;
	uint8_t *b;
	char *p, *q;

	write_bytes("garbage.onnx", "\xff\xff\xff\xff garbage", 12);
	m = add_model(13);
	n = onnx__model_proto__get_packed_size(m);
	b = gp_xmalloc(n);
	onnx__model_proto__pack(m, b);
	write_bytes("good.onnx", b, n);
	write_bytes("truncated.onnx", b, n - 3);	/* inside opset_import */
	free(b);
	m = model_new(13);
	m->graph = NULL;
	save("nograph.onnx", m);
	save("opset21.onnx", add_model(21));
	/* (reads: ReduceMean's axes became an input in opset 18, which
	 * gptop does not translate yet: refused when built) */
	m = model_new(18);
	add_input(m, "x", T(FLOAT), d23);
	node(m->graph, "rm", "ReduceMean", "x", NULL, "y");
	add_output(m, "y", T(FLOAT));
	save("reduce18.onnx", m);

	m = add_model(13);
	m->graph->node[0]->input[1] = "b";
	save("missing-input.onnx", m);

	m = model_new(13);
	add_input(m, "x", T(FLOAT), d23);
	node(m->graph, "first", "Relu", "t", NULL, "y");
	node(m->graph, "second", "Neg", "x", NULL, "t");
	add_output(m, "y", T(FLOAT));
	save("later-output.onnx", m);

	m = model_new(13);
	add_input(m, "x", T(FLOAT), d23);
	node(m->graph, "first", "Relu", "x", NULL, "y");
	node(m->graph, "second", "Neg", "x", NULL, "y");
	add_output(m, "y", T(FLOAT));
	save("dup-output.onnx", m);

	/* If with a then_branch reading an outer name (fine) and a
	 * name defined nowhere */
	for (int bad = 0; bad < 2; bad++) {
		Onnx__AttributeProto *a = tmalloc(sizeof(*a));
		Onnx__GraphProto *sub = tmalloc(sizeof(*sub));
		static const char *const none[] = {NULL};
		Onnx__NodeProto *ifn;

		m = model_new(13);
		add_input(m, "cond", T(BOOL), none);
		add_input(m, "x", T(FLOAT), d23);
		onnx__graph_proto__init(sub);
		node(sub, "inner", "Identity", bad ? "nowhere" : "x", NULL,
		    "r");
		PUSH(sub->n_output, sub->output, vinfo("r", T(FLOAT), NULL));
		onnx__attribute_proto__init(a);
		a->name = "then_branch";
		a->has_type = 1;
		a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
		a->g = sub;
		ifn = node(m->graph, "if0", "If", "cond", NULL, "y");
		PUSH(ifn->n_attribute, ifn->attribute, a);
		add_output(m, "y", T(FLOAT));
		save(bad ? "subgraph-missing.onnx" : "subgraph-good.onnx", m);
	}

	save("ext-absolute.onnx", ext_model("/etc/hostname", NULL, NULL));
	save("ext-dotdot.onnx", ext_model("sub/../../w.bin", NULL, NULL));
	p = path_of("link.bin");
	q = gp_xasprintf("%s/../onnx-outside.bin", dir);
	write_bytes("../onnx-outside.bin", wv, sizeof(wv));
	unlink(p);
	if (symlink(q, p) != 0) {
		perror(p);
		exit(99);
	}
	free(p);
	free(q);
	save("ext-symlink.onnx", ext_model("link.bin", NULL, NULL));
	save("ext-missing.onnx", ext_model("missing.bin", NULL, NULL));
	p = path_of("fifo.bin");
	unlink(p);
	if (mkfifo(p, 0600) != 0) {
		perror(p);
		exit(99);
	}
	free(p);
	save("ext-fifo.onnx", ext_model("fifo.bin", NULL, NULL));
	{
		/* 8 bytes of header, then the six floats */
		char data[8 + sizeof(wv)] = "HEADER!";

		memcpy(data + 8, wv, sizeof(wv));
		write_bytes("w.bin", data, sizeof(data));
		write_bytes("w-short.bin", data, sizeof(data) - 4);
	}
	save("ext-good.onnx", ext_model("w.bin", "8", "24"));
	save("ext-short.onnx", ext_model("w-short.bin", "8", "24"));

	m = add_model(13);
	m->graph->initializer[0]->n_float_data = 0;
	raw(m->graph->initializer[0], wv, 20);
	save("raw-short.onnx", m);
	m = add_model(13);
	m->graph->initializer[0]->n_float_data = 5;
	save("values-short.onnx", m);
	m = add_model(13);
	add_init(m, tensor("big", T(FLOAT), 2, hd));
	save("huge.onnx", m);

	/* dtypes gptop refuses */
	m = add_model(13);
	m->graph->input[0]->type->tensor_type->elem_type = T(FLOAT16);
	save("float16-input.onnx", m);
	m = add_model(13);
	m->graph->initializer[0]->data_type = T(BFLOAT16);
	m->graph->initializer[0]->n_float_data = 0;
	m->graph->initializer[0]->n_int32_data = 6;
	m->graph->initializer[0]->int32_data =
	    dup_mem((int32_t[6]){0}, 6 * sizeof(int32_t));
	save("bfloat16-init.onnx", m);
	m = add_model(13);
	m->graph->output[0]->type->tensor_type->elem_type = T(STRING);
	save("string-output.onnx", m);
	{
		Onnx__AttributeProto *a = tmalloc(sizeof(*a));
		Onnx__TensorProto *t = tensor("cv", T(COMPLEX64), 1,
		    (int64_t[]){1});

		t->n_float_data = 2;
		t->float_data = dup_mem(wv, 2 * sizeof(float));
		onnx__attribute_proto__init(a);
		a->name = "value";
		a->has_type = 1;
		a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
		a->t = t;
		m = model_new(13);
		node(m->graph, "c", "Constant", NULL, NULL, "y");
		PUSH(m->graph->node[0]->n_attribute,
		    m->graph->node[0]->attribute, a);
		add_output(m, "y", T(FLOAT));
		save("complex-const.onnx", m);
	}

	/* y = x + w, w (128, 128) in raw data of 64 KiB: the front-end
	 * adopts the reader's block instead of copying it; w[i] = i */
	{
		static const char *const d128[] = {"128", "128", NULL};
		static const int64_t wd128[] = {128, 128};
		float *wbig = gp_xmalloc(128 * 128 * sizeof(float));
		Onnx__TensorProto *t;

		for (int i = 0; i < 128 * 128; i++)
			wbig[i] = (float)i;
		m = model_new(13);
		add_input(m, "x", T(FLOAT), d128);
		t = tensor("w", T(FLOAT), 2, wd128);
		raw(t, wbig, 128 * 128 * sizeof(float));
		add_init(m, t);
		node(m->graph, "add0", "Add", "x", "w", "y");
		add_output(m, "y", T(FLOAT));
		save("big-raw.onnx", m);
		free(wbig);
	}

	/* valid, but with an op type gptop does not run */
	m = add_model(13);
	m->graph->node[0]->op_type = "NoSuchOp";
	save("unsupported-op.onnx", m);
	write_spatial_models();
}

/* The shape subgraph exporters write, on x (batch, 6): y = Relu(Reshape(x,
 * Concat(Unsqueeze(Gather(Shape(x), 0), [0]), [2, 3]))), so y is (batch, 2,
 * 3); and z = Gemm(a, b, transB=1), a named node, for the Op column. */
static void
write_fold_model(void)
{
	static const char *const dx[] = {"batch", "6", NULL};
	static const char *const d23[] = {"2", "3", NULL};
	static const int64_t d1[] = {1}, d2[] = {2}, z0 = 0;
	static const int64_t c23[] = {2, 3};
	Onnx__ModelProto *m = model_new(13);
	Onnx__TensorProto *t;
	Onnx__AttributeProto *a;

	add_input(m, "x", T(FLOAT), dx);
	add_input(m, "a", T(FLOAT), d23);
	add_input(m, "b", T(FLOAT), d23);
	t = tensor("zero", T(INT64), 0, d1);
	raw(t, &z0, sizeof(z0));
	add_init(m, t);
	t = tensor("axes0", T(INT64), 1, d1);
	raw(t, &z0, sizeof(z0));
	add_init(m, t);
	t = tensor("rest", T(INT64), 1, d2);
	raw(t, c23, sizeof(c23));
	add_init(m, t);
	node(m->graph, "shape", "Shape", "x", NULL, "s");
	node(m->graph, "gather", "Gather", "s", "zero", "n");
	node(m->graph, "unsq", "Unsqueeze", "n", "axes0", "n1");
	node(m->graph, "cat", "Concat", "n1", "rest", "sh");
	a = tmalloc(sizeof(*a));
	onnx__attribute_proto__init(a);
	a->name = "axis";
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = 0;
	PUSH(m->graph->node[3]->n_attribute, m->graph->node[3]->attribute, a);
	node(m->graph, "reshape", "Reshape", "x", "sh", "r");
	node(m->graph, "relu", "Relu", "r", NULL, "y");
	node(m->graph, "fc", "Gemm", "a", "b", "z");
	a = tmalloc(sizeof(*a));
	onnx__attribute_proto__init(a);
	a->name = "transB";
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = 1;
	PUSH(m->graph->node[6]->n_attribute, m->graph->node[6]->attribute, a);
	add_output(m, "y", T(FLOAT));
	add_output(m, "z", T(FLOAT));
	save("shape-fold.onnx", m);
}

/* The valid model with every kind of tensor data and symbolic dims. */
static void
write_dims_model(void)
{
	static const char *const dx[] = {"batch", "784", NULL};
	static const char *const dy[] = {"batch", "seq", NULL};
	static const int64_t d3[] = {3}, d22[] = {2, 2};
	static const int64_t iv[3] = {-5, 0, 1LL << 40};
	Onnx__ModelProto *m = model_new(17);
	Onnx__TensorProto *t;

	add_input(m, "x", T(FLOAT), dx);
	add_input(m, "y", T(INT64), dy);
	/* "k" is an input with a default: it is an initializer, so it is not
	 * listed among the inputs */
	add_input(m, "k", T(INT64), (const char *const[]){"3", NULL});
	t = tensor("k", T(INT64), 1, d3);
	raw(t, iv, sizeof(iv));
	add_init(m, t);
	t = tensor("i8", T(INT8), 2, d22);	/* int32_data, low bits */
	t->n_int32_data = 4;
	t->int32_data = dup_mem((int32_t[]){-128, -1, 0, 127},
	    4 * sizeof(int32_t));
	add_init(m, t);
	t = tensor("u32", T(UINT32), 1, d3);	/* uint64_data */
	t->n_uint64_data = 3;
	t->uint64_data = dup_mem((uint64_t[]){0, 7, 4294967295u},
	    3 * sizeof(uint64_t));
	add_init(m, t);
	t = tensor("f64", T(DOUBLE), 1, d3);
	t->n_double_data = 3;
	t->double_data = dup_mem((double[]){0.5, -2.25, 1e300},
	    3 * sizeof(double));
	add_init(m, t);
	node(m->graph, "n0", "Relu", "x", NULL, "r");
	node(m->graph, "", "Add", "y", "k", "s");
	add_output(m, "r", T(FLOAT));
	add_output(m, "s", T(INT64));
	save("dims.onnx", m);
	write_fold_model();
}

static struct gp_onnx_model *
read_file(const char *name, uint64_t limit, struct gp_err *err)
{
	struct gp_onnx_opts o = {.limit_bytes = limit};
	char *p = path_of(name);
	struct gp_onnx_model *m = gp_onnx_read(p, &o, err);

	free(p);
	return (m);
}

/* The model is refused with one line naming the file and saying want. */
static void
expect_error(const char *name, const char *want, bool dtypes)
{
	struct gp_err err = {{0}};
	struct gp_onnx_model *m = read_file(name, 1 << 20, &err);
	char *prefix = gp_xasprintf("%s/%s: ", dir, name);

	if (dtypes) {
		if (!ok(m != NULL, "%s reads", name))
			diag("%s", err.msg);
		if (m != NULL && gp_onnx_check_dtypes(m, &err) == 0)
			err.msg[0] = '\0';
	} else {
		ok(m == NULL, "%s is refused", name);
	}
	if (!ok(strncmp(err.msg, prefix, strlen(prefix)) == 0 &&
	    strstr(err.msg, want) != NULL && strchr(err.msg, '\n') == NULL,
	    "%s: the message names the file and says: %s", name, want))
		diag("got: %s", err.msg);
	gp_onnx_free(m);
	free(prefix);
}

static void
test_values(void)
{
	struct gp_err err = {{0}};
	struct gp_onnx_model *m = read_file("dims.onnx", 0, &err);
	const Onnx__GraphProto *g;
	int64_t k[3];
	int8_t i8[4];
	uint32_t u32[3];
	double f64[3];
	float w[6];

	if (!ok(m != NULL, "dims.onnx reads")) {
		diag("%s", err.msg);
		return;
	}
	g = m->graph;
	is_int(m->opset, 17, "its opset");
	is_int(m->n_inputs, 2, "two inputs (k has an initializer)");
	is_int(m->n_syms, 2, "two symbolic dims");
	ok(m->n_syms == 2 && strcmp(m->syms[0], "batch") == 0 &&
	    strcmp(m->syms[1], "seq") == 0, "batch, then seq");
	is_int((long long)m->init_bytes, 24 + 4 + 12 + 24,
	    "initializer bytes: 3 int64, 4 int8, 3 uint32, 3 float64");
	ok(gp_onnx_tensor_read(m, g->initializer[0], k, &err) == 0 &&
	    k[0] == -5 && k[1] == 0 && k[2] == 1LL << 40,
	    "int64 raw data: -5, 0, 2^40");
	ok(gp_onnx_tensor_read(m, g->initializer[1], i8, &err) == 0 &&
	    i8[0] == -128 && i8[1] == -1 && i8[2] == 0 && i8[3] == 127,
	    "int8 from int32_data: -128, -1, 0, 127");
	ok(gp_onnx_tensor_read(m, g->initializer[2], u32, &err) == 0 &&
	    u32[0] == 0 && u32[1] == 7 && u32[2] == 4294967295u,
	    "uint32 from uint64_data: 0, 7, 2^32-1");
	ok(gp_onnx_tensor_read(m, g->initializer[3], f64, &err) == 0 &&
	    f64[0] == 0.5 && f64[1] == -2.25 && f64[2] == 1e300,
	    "float64 from double_data: 0.5, -2.25, 1e300");
	ok(gp_onnx_check_dtypes(m, &err) == 0, "its dtypes are supported");

	/* binding */
	{
		struct gp_onnx_binding b[3];

		ok(gp_onnx_bind(m, NULL, 0, &err) < 0 &&
		    strstr(err.msg, "2 symbolic dimensions not bound: batch, "
		    "seq (bind each with --dim NAME=VALUE, e.g. --dim batch=1 "
		    "--dim seq=1)") != NULL, "unbound: both listed");
		diag("%s", err.msg);
		ok(gp_onnx_binding_parse("batch=8", &b[0], &err) == 0 &&
		    b[0].value == 8, "batch=8 parses");
		ok(gp_onnx_bind(m, b, 1, &err) < 0 &&
		    strstr(err.msg, "1 symbolic dimension not bound: seq ") !=
		    NULL, "seq still unbound: %s", err.msg);
		ok(gp_onnx_binding_parse("seq=3", &b[1], &err) == 0,
		    "seq=3 parses");
		ok(gp_onnx_bind(m, b, 2, &err) == 0, "both bound");
		ok(m->inputs[0].shape[0] == 8 && m->inputs[0].shape[1] == 784 &&
		    m->inputs[1].shape[0] == 8 && m->inputs[1].shape[1] == 3,
		    "x is (8, 784), y is (8, 3)");
		ok(gp_onnx_binding_parse("time=2", &b[2], &err) == 0 &&
		    gp_onnx_bind(m, b, 3, &err) < 0 &&
		    strstr(err.msg, "--dim time: the model has no symbolic "
		    "dimension of that name (its symbolic dimensions: batch, "
		    "seq)") != NULL, "an unknown name: %s", err.msg);
		ok(gp_onnx_binding_parse("batch", &b[2], &err) < 0 &&
		    strstr(err.msg, "expected NAME=VALUE") != NULL,
		    "no '=': %s", err.msg);
		ok(gp_onnx_binding_parse("batch=0", &b[2], &err) < 0 &&
		    strstr(err.msg, "not a positive integer") != NULL,
		    "0: %s", err.msg);
		ok(gp_onnx_binding_parse("batch=8x", &b[2], &err) < 0,
		    "8x is refused");
		ok(gp_onnx_binding_parse("=8", &b[2], &err) < 0,
		    "no name is refused");
		/* 2^28 * 784 floats: over a 1 GiB limit */
		m->limit = 1 << 30;
		ok(gp_onnx_binding_parse("batch=268435456", &b[0], &err) == 0 &&
		    gp_onnx_bind(m, b, 2, &err) < 0 &&
		    strstr(err.msg, "input 'x': float32 with these dimensions "
		    "needs 841813590016 bytes, over the memory limit") != NULL,
		    "a binding over the memory limit: %s", err.msg);
	}
	gp_onnx_free(m);

	m = read_file("ext-good.onnx", 0, &err);
	ok(m != NULL && gp_onnx_tensor_read(m, m->graph->initializer[0], w,
	    &err) == 0 && w[0] == 1 && w[5] == 6,
	    "external data from offset 8: 1 ... 6");
	gp_onnx_free(m);
	m = read_file("good.onnx", 0, &err);
	ok(m != NULL && gp_onnx_tensor_read(m, m->graph->initializer[0], w,
	    &err) == 0 && w[0] == 1 && w[2] == 3 && w[5] == 6,
	    "float_data: 1 ... 6");
	ok(m != NULL && m->n_syms == 0 && gp_onnx_bind(m, NULL, 0, &err) == 0 &&
	    m->inputs[0].shape[0] == 2 && m->inputs[0].shape[1] == 3,
	    "a model with fixed dims binds with no bindings");
	gp_onnx_free(m);
	m = read_file("subgraph-good.onnx", 0, &err);
	ok(m != NULL, "a subgraph may read its outer scope's names");
	gp_onnx_free(m);
}

int
main(int argc, char **argv)
{
	const char *top = getenv("top_builddir");
	char *d;

	if (argc == 3 && strcmp(argv[1], "--write") == 0) {
		dir = argv[2];
		mkdir(dir, 0700);
		write_models();
		write_dims_model();
		return (0);
	}
	d = gp_xasprintf("%s/tests/tmp/onnx-read", top != NULL ? top : ".");
	{
		char *t = gp_xasprintf("%s/tests/tmp", top != NULL ? top : ".");

		mkdir(t, 0700);
		free(t);
	}
	mkdir(d, 0700);
	dir = d;
	write_models();
	write_dims_model();
	for (int i = 0; i < N_BAD; i++)
		expect_error(BAD[i].file, BAD[i].expect, false);
	for (int i = 0; i < N_BAD_DTYPE; i++)
		expect_error(BAD_DTYPE[i].file, BAD_DTYPE[i].expect, true);
	{
		struct gp_err err = {{0}};
		struct gp_onnx_model *m = read_file("fifo.bin", 0, &err);

		ok(m == NULL && strstr(err.msg, "is a FIFO, not a regular file (expected an "
		    "ONNX model)") != NULL,
		    "a FIFO as the model is refused: %s", err.msg);
		m = read_file(".", 0, &err);
		ok(m == NULL && strstr(err.msg, "is a directory, not a regular file") != NULL,
		    "a folder as the model is refused: %s", err.msg);
	}
	test_values();
	free(d);
	return (done_testing());
}
