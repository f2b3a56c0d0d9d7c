/*
 * tensor-stats.c: prints an ONNX TensorProto file's (test_data_set_N/
 * input_K.pb, output_K.pb) name, dtype and shape as gptop's batch mode
 * writes them, and the figures its `output NAME:` lines give (sum, min,
 * max, the first 4 values) plus the sum and max of |x|, for
 * tests/onnx/models.sh to compare gptop's outputs with the outputs the
 * exporting tool computed.  Decoded with protobuf-c's generated code
 * directly, not with gptop's reader (src/onnx-read.c).
 *
 *     tensor-stats FILE.pb
 *     NAME DTYPE(D0, D1) sum=S min=A max=B sumabs=T maxabs=M first=V0,V1,V2,V3
 *
 * float32, float64, int32 and int64 tensors, from raw_data or the typed
 * fields; exit 2 with a message for anything else.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/onnx.pb-c.h"

static int
fail(const char *path, const char *what)
{
	fprintf(stderr, "tensor-stats: %s: %s\n", path, what);
	return (2);
}

/* element i as a double; raw_data is little-endian (the hosts gptop builds
 * on are) */
static double
get(const Onnx__TensorProto *t, size_t i)
{
	const uint8_t *raw = t->raw_data.data;
	float f;
	double d;
	int32_t i32;
	int64_t i64;

	switch (t->data_type) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
		if (t->raw_data.len == 0)
			return (t->float_data[i]);
		memcpy(&f, raw + 4 * i, 4);
		return (f);
	case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
		if (t->raw_data.len == 0)
			return (t->double_data[i]);
		memcpy(&d, raw + 8 * i, 8);
		return (d);
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
		if (t->raw_data.len == 0)
			return (t->int32_data[i]);
		memcpy(&i32, raw + 4 * i, 4);
		return (i32);
	default: /* INT64 */
		if (t->raw_data.len == 0)
			return ((double)t->int64_data[i]);
		memcpy(&i64, raw + 8 * i, 8);
		return ((double)i64);
	}
}

int
main(int argc, char **argv)
{
	static const struct {
		int type;
		const char *name;
		size_t size;
	} types[] = {
	    {ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, "float32", 4},
	    {ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, "float64", 8},
	    {ONNX__TENSOR_PROTO__DATA_TYPE__INT32, "int32", 4},
	    {ONNX__TENSOR_PROTO__DATA_TYPE__INT64, "int64", 8},
	};
	Onnx__TensorProto *t;
	uint8_t *bytes;
	long len;
	FILE *fp;
	size_t n = 1, typed = 0, k;
	long double sum = 0, sumabs = 0;
	double mn = INFINITY, mx = -INFINITY, maxabs = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: tensor-stats FILE.pb\n");
		return (2);
	}
	if ((fp = fopen(argv[1], "rb")) == NULL)
		return (fail(argv[1], "cannot open"));
	if (fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET) != 0 ||
	    (bytes = malloc((size_t)len + 1)) == NULL ||
	    fread(bytes, 1, (size_t)len, fp) != (size_t)len)
		return (fail(argv[1], "cannot read"));
	fclose(fp);
	t = onnx__tensor_proto__unpack(NULL, (size_t)len, bytes);
	free(bytes);
	if (t == NULL)
		return (fail(argv[1], "not a TensorProto"));
	for (k = 0; k < sizeof(types) / sizeof(types[0]); k++)
		if (types[k].type == t->data_type)
			break;
	if (k == sizeof(types) / sizeof(types[0]))
		return (fail(argv[1], "dtype not float32/float64/int32/int64"));
	for (size_t i = 0; i < t->n_dims; i++)
		n *= (size_t)t->dims[i];
	switch (t->data_type) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
		typed = t->n_float_data;
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
		typed = t->n_double_data;
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
		typed = t->n_int32_data;
		break;
	default:
		typed = t->n_int64_data;
	}
	if (t->raw_data.len != 0 ? t->raw_data.len != n * types[k].size
				 : typed != n)
		return (fail(argv[1], "data size does not match the dims"));

	printf("%s %s(", t->name != NULL && *t->name ? t->name : "-",
	    types[k].name);
	for (size_t i = 0; i < t->n_dims; i++)
		printf("%s%" PRId64, i ? ", " : "", t->dims[i]);
	printf("%s)", t->n_dims == 1 ? "," : "");
	for (size_t i = 0; i < n; i++) {
		double v = get(t, i);

		sum += v;
		sumabs += fabs(v);
		mn = v < mn ? v : mn;
		mx = v > mx ? v : mx;
		maxabs = fabs(v) > maxabs ? fabs(v) : maxabs;
	}
	printf(" sum=%.10g min=%.10g max=%.10g sumabs=%.10g maxabs=%.10g "
	       "first=",
	    (double)sum, mn, mx, (double)sumabs, maxabs);
	for (size_t i = 0; i < n && i < 4; i++)
		printf("%s%.9g", i ? "," : "", get(t, i));
	printf("\n");
	onnx__tensor_proto__free_unpacked(t, NULL);
	return (0);
}
