/*
 * make-resnet18.c: writes a resnet18-shaped ONNX model without torch (CI
 * has none): torchvision's resnet18 architecture as its ONNX export lays
 * it out, opset 13, batch 1, float32 3x224x224 in, 1000 logits out.
 *
 *   conv1 7x7/2 (3->64), bn1, relu, maxpool 3x3/2 pad 1,
 *   layer1..layer4: 2 basic blocks each (64, 128, 256, 512 channels; the
 *     first block of layers 2-4 strides 2 and has a 1x1/2 downsample conv
 *     and batch norm): conv 3x3, bn, relu, conv 3x3, bn, add, relu,
 *   GlobalAveragePool, Flatten, Gemm 512->1000 (transB).
 *
 * Node, tensor and initializer names are torch's ("/layer1/layer1.0/conv1/
 * Conv", "layer1.0.conv1.weight"); the convolutions have no bias, the
 * batch norms are separate nodes (torch's export folds them when it
 * constant-folds; gptop's bn_fold rewrite does it here).  The weights are
 * seeded random (base/rng.h, seed 18 unless given): each conv and the fc
 * uniform in +-sqrt(6 / fan_in) (He's init), batch norms with weight 1,
 * bias 0, running mean uniform in +-0.1 and running var uniform in [0.9,
 * 1.1), the fc's bias uniform in +-1/sqrt(512): 11,699,112 values,
 * torchvision's 11,689,512 parameters and its batch norms' 9,600 running
 * statistics.
 *
 * Usage: make-resnet18 OUT.onnx [SEED].  Exit status 0, or 99 when it
 * cannot write OUT.onnx.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/util.h"
#include "load/onnx.pb-c.h"

#include "pb-build.h"

#define T_FLOAT ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT

/* Every message and string lives in pb-build.h's arena, freed at the end
 * (the leak checkers see nothing lost). */
static char *
tstr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
tstr(const char *fmt, ...)
{
	va_list ap;
	char buf[256], *s;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s = tmalloc(strlen(buf) + 1);
	strcpy(s, buf);
	return (s);
}

static Onnx__GraphProto *graph;
static struct gp_rng rng;
static uint64_t n_params;

static Onnx__ValueInfoProto *
vinfo(const char *name, int nd, const int64_t *dims)
{
	return (pb_vinfo(name, T_FLOAT, nd, dims, NULL));
}

/* An initializer of n float32 values uniform in [lo, hi). */
static const char *
init(const char *name, int nd, const int64_t *dims, double lo, double hi)
{
	Onnx__TensorProto *t = tmalloc(sizeof(*t));
	size_t n = 1;
	float *v;

	for (int i = 0; i < nd; i++)
		n *= (size_t)dims[i];
	v = tmalloc(n * sizeof(float));
	for (size_t i = 0; i < n; i++)
		v[i] = lo == hi ? (float)lo : (float)gp_rng_uniform(&rng, lo,
		    hi);
	onnx__tensor_proto__init(t);
	t->name = (char *)name;
	t->has_data_type = 1;
	t->data_type = T_FLOAT;
	t->n_dims = (size_t)nd;
	t->dims = tmalloc((size_t)nd * sizeof(int64_t));
	memcpy(t->dims, dims, (size_t)nd * sizeof(int64_t));
	t->has_raw_data = 1;	/* little-endian float32, as torch writes */
	t->raw_data.len = n * sizeof(float);
	t->raw_data.data = (uint8_t *)v;
	PUSH(graph->n_initializer, graph->initializer, t);
	n_params += n;
	return (name);
}

static Onnx__NodeProto *
node(const char *name, const char *op, int n_in, const char *const *in,
    const char *out)
{
	Onnx__NodeProto *n = tmalloc(sizeof(*n));

	onnx__node_proto__init(n);
	n->name = (char *)name;
	n->op_type = (char *)op;
	for (int k = 0; k < n_in; k++)
		PUSH(n->n_input, n->input, (char *)in[k]);
	PUSH(n->n_output, n->output, (char *)out);
	PUSH(graph->n_node, graph->node, n);
	return (n);
}

static void
attr_ints(Onnx__NodeProto *n, const char *name, int k, const int64_t *v)
{
	Onnx__AttributeProto *a = tmalloc(sizeof(*a));

	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	a->n_ints = (size_t)k;
	a->ints = tmalloc((size_t)k * sizeof(int64_t));
	memcpy(a->ints, v, (size_t)k * sizeof(int64_t));
	PUSH(n->n_attribute, n->attribute, a);
}

static void
attr_int(Onnx__NodeProto *n, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = tmalloc(sizeof(*a));

	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = v;
	PUSH(n->n_attribute, n->attribute, a);
}

static void
attr_float(Onnx__NodeProto *n, const char *name, float v)
{
	Onnx__AttributeProto *a = tmalloc(sizeof(*a));

	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
	a->has_f = 1;
	a->f = v;
	PUSH(n->n_attribute, n->attribute, a);
}

/* Conv without bias: module path mod ("layer1/layer1.0/conv1", weights
 * "layer1.0.conv1.weight"), k x k, stride s, pad p. */
static const char *
conv(const char *path, const char *wname, const char *x, int64_t cin,
    int64_t cout, int64_t k, int64_t s, int64_t p)
{
	int64_t wd[4] = {cout, cin, k, k};
	double b = sqrt(6.0 / (double)(cin * k * k));
	const char *in[2] = {x, init(tstr("%s.weight", wname), 4, wd, -b, b)};
	const char *y = tstr("/%s/Conv_output_0", path);
	Onnx__NodeProto *n = node(tstr("/%s/Conv", path), "Conv", 2, in, y);
	int64_t one[2] = {1, 1}, ks[2] = {k, k}, pads[4] = {p, p, p, p};
	int64_t st[2] = {s, s};

	attr_ints(n, "dilations", 2, one);
	attr_int(n, "group", 1);
	attr_ints(n, "kernel_shape", 2, ks);
	attr_ints(n, "pads", 4, pads);
	attr_ints(n, "strides", 2, st);
	return (y);
}

static const char *
bn(const char *path, const char *wname, const char *x, int64_t c)
{
	int64_t d[1] = {c};
	const char *in[5] = {x, init(tstr("%s.weight", wname), 1, d, 1, 1),
		init(tstr("%s.bias", wname), 1, d, 0, 0),
		init(tstr("%s.running_mean", wname), 1, d, -0.1, 0.1),
		init(tstr("%s.running_var", wname), 1, d, 0.9, 1.1)};
	const char *y = tstr("/%s/BatchNormalization_output_0", path);
	Onnx__NodeProto *n = node(tstr("/%s/BatchNormalization", path),
	    "BatchNormalization", 5, in, y);

	attr_float(n, "epsilon", 1e-5f);
	attr_float(n, "momentum", 0.9f);
	return (y);
}

static const char *
relu(const char *path, const char *x)
{
	const char *y = tstr("/%s/Relu_output_0", path);

	node(tstr("/%s/Relu", path), "Relu", 1, &x, y);
	return (y);
}

/* Basic block `layerL.B` of inplanes -> planes, stride s. */
static const char *
block(int l, int b, const char *x, int64_t cin, int64_t cout, int64_t s)
{
	const char *p = tstr("layer%d/layer%d.%d", l, l, b);
	const char *w = tstr("layer%d.%d", l, b);
	const char *y, *id = x, *in[2];

	y = conv(tstr("%s/conv1", p), tstr("%s.conv1", w), x, cin, cout, 3, s,
	    1);
	y = bn(tstr("%s/bn1", p), tstr("%s.bn1", w), y, cout);
	y = relu(tstr("%s/relu", p), y);
	y = conv(tstr("%s/conv2", p), tstr("%s.conv2", w), y, cout, cout, 3, 1,
	    1);
	y = bn(tstr("%s/bn2", p), tstr("%s.bn2", w), y, cout);
	if (s != 1 || cin != cout) {
		id = conv(tstr("%s/downsample/downsample.0", p),
		    tstr("%s.downsample.0", w), x, cin, cout, 1, s, 0);
		id = bn(tstr("%s/downsample/downsample.1", p),
		    tstr("%s.downsample.1", w), id, cout);
	}
	in[0] = y;
	in[1] = id;
	y = tstr("/%s/Add_output_0", p);
	node(tstr("/%s/Add", p), "Add", 2, in, y);
	return (relu(tstr("%s/relu_1", p), y));
}

int
main(int argc, char **argv)
{
	Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
	Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
	Onnx__OperatorSetIdProto op = ONNX__OPERATOR_SET_ID_PROTO__INIT;
	Onnx__OperatorSetIdProto *ops = &op;
	Onnx__ValueInfoProto *vi;
	static const int64_t xd[4] = {1, 3, 224, 224}, yd[2] = {1, 1000};
	static const int64_t planes[4] = {64, 128, 256, 512};
	const char *y, *in[3];
	int64_t cin = 64, fw[2] = {1000, 512}, fb[1] = {1000};
	Onnx__NodeProto *n;
	size_t len;
	uint8_t *buf;
	FILE *fp;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: make-resnet18 OUT.onnx [SEED]\n");
		return (2);
	}
	gp_rng_seed(&rng, argc > 2 ? strtoull(argv[2], NULL, 10) : 18);
	graph = &g;
	g.name = "main_graph";
	op.domain = "";
	op.has_version = 1;
	op.version = 13;
	m.has_ir_version = 1;
	m.ir_version = 7;
	m.producer_name = "make-resnet18";
	m.n_opset_import = 1;
	m.opset_import = &ops;
	m.graph = &g;
	vi = vinfo("input", 4, xd);
	PUSH(g.n_input, g.input, vi);

	y = conv("conv1", "conv1", "input", 3, 64, 7, 2, 3);
	y = bn("bn1", "bn1", y, 64);
	y = relu("relu", y);
	{
		const char *mp = "/maxpool/MaxPool_output_0";
		int64_t ks[2] = {3, 3}, pads[4] = {1, 1, 1, 1}, st[2] = {2, 2};

		n = node("/maxpool/MaxPool", "MaxPool", 1, &y, mp);
		attr_int(n, "ceil_mode", 0);
		attr_ints(n, "kernel_shape", 2, ks);
		attr_ints(n, "pads", 4, pads);
		attr_ints(n, "strides", 2, st);
		y = mp;
	}
	for (int l = 0; l < 4; l++) {
		y = block(l + 1, 0, y, cin, planes[l], l == 0 ? 1 : 2);
		y = block(l + 1, 1, y, planes[l], planes[l], 1);
		cin = planes[l];
	}
	node("/avgpool/GlobalAveragePool", "GlobalAveragePool", 1, &y,
	    "/avgpool/GlobalAveragePool_output_0");
	y = "/avgpool/GlobalAveragePool_output_0";
	n = node("/Flatten", "Flatten", 1, &y, "/Flatten_output_0");
	attr_int(n, "axis", 1);
	in[0] = "/Flatten_output_0";
	in[1] = init("fc.weight", 2, fw, -sqrt(6.0 / 512), sqrt(6.0 / 512));
	in[2] = init("fc.bias", 1, fb, -1 / sqrt(512.0), 1 / sqrt(512.0));
	n = node("/fc/Gemm", "Gemm", 3, in, "output");
	attr_float(n, "alpha", 1.0f);
	attr_float(n, "beta", 1.0f);
	attr_int(n, "transB", 1);
	vi = vinfo("output", 2, yd);
	PUSH(g.n_output, g.output, vi);

	len = onnx__model_proto__get_packed_size(&m);
	buf = gp_xmalloc(len);
	onnx__model_proto__pack(&m, buf);
	if ((fp = fopen(argv[1], "wb")) == NULL ||
	    fwrite(buf, 1, len, fp) != len || fclose(fp) != 0) {
		perror(argv[1]);
		return (99);
	}
	printf("%s: resnet18, %zu nodes, %llu parameters, %zu bytes\n",
	    argv[1], g.n_node, (unsigned long long)n_params, len);
	free(buf);
	pb_free_all();
	return (0);
}
