/*
 * dtype.c: the dtype table, numpy's promotion rules and the conversion loops
 * (see dtype.h).
 */
#include "config.h"

#include "base/dtype.h"

#include <math.h>
#include <string.h>

const struct gp_dtype_info gp_dtype_table[GP_DTYPE__COUNT] = {
	[GP_BOOL] = {.name = "bool", .npy = "b1", .ctype = "_Bool", .size = 1,
	    .kind = GP_KIND_BOOL},
	[GP_INT8] = {.name = "int8", .npy = "i1", .ctype = "int8_t", .size = 1,
	    .kind = GP_KIND_INT},
	[GP_INT16] = {.name = "int16", .npy = "i2", .ctype = "int16_t",
	    .size = 2, .kind = GP_KIND_INT},
	[GP_INT32] = {.name = "int32", .npy = "i4", .ctype = "int32_t",
	    .size = 4, .kind = GP_KIND_INT},
	[GP_INT64] = {.name = "int64", .npy = "i8", .ctype = "int64_t",
	    .size = 8, .kind = GP_KIND_INT},
	[GP_UINT8] = {.name = "uint8", .npy = "u1", .ctype = "uint8_t",
	    .size = 1, .kind = GP_KIND_UINT},
	[GP_UINT16] = {.name = "uint16", .npy = "u2", .ctype = "uint16_t",
	    .size = 2, .kind = GP_KIND_UINT},
	[GP_UINT32] = {.name = "uint32", .npy = "u4", .ctype = "uint32_t",
	    .size = 4, .kind = GP_KIND_UINT},
	[GP_UINT64] = {.name = "uint64", .npy = "u8", .ctype = "uint64_t",
	    .size = 8, .kind = GP_KIND_UINT},
	[GP_FLOAT32] = {.name = "float32", .npy = "f4", .ctype = "float",
	    .size = 4, .kind = GP_KIND_FLOAT},
	[GP_FLOAT64] = {.name = "float64", .npy = "f8", .ctype = "double",
	    .size = 8, .kind = GP_KIND_FLOAT},
};

bool
gp_dtype_parse(const char *s, enum gp_dtype *out)
{
	for (int i = 0; i < GP_DTYPE__COUNT; i++) {
		if (strcmp(s, gp_dtype_table[i].name) == 0) {
			*out = (enum gp_dtype)i;
			return (true);
		}
	}
	return (false);
}

const char *
gp_dtype_names(void)
{
	return ("bool, int8, int16, int32, int64, uint8, uint16, uint32, "
	    "uint64, float32, float64");
}

static int
bits(enum gp_dtype t)
{
	return ((int)gp_dtype_table[t].size * 8);
}

static enum gp_dtype
sint_of_bits(int b)
{
	switch (b) {
	case 8:
		return (GP_INT8);
	case 16:
		return (GP_INT16);
	case 32:
		return (GP_INT32);
	default:
		return (GP_INT64);
	}
}

enum gp_dtype
gp_dtype_promote(enum gp_dtype a, enum gp_dtype b)
{
	enum gp_dtype_kind ka = gp_dtype_table[a].kind;
	enum gp_dtype_kind kb = gp_dtype_table[b].kind;

	if (a == b)
		return (a);
	if (ka == GP_KIND_BOOL)
		return (b);
	if (kb == GP_KIND_BOOL)
		return (a);
	if (ka == GP_KIND_FLOAT || kb == GP_KIND_FLOAT) {
		enum gp_dtype f = ka == GP_KIND_FLOAT ? a : b;
		enum gp_dtype o = ka == GP_KIND_FLOAT ? b : a;

		if (gp_dtype_table[o].kind == GP_KIND_FLOAT)
			return (bits(a) > bits(b) ? a : b);
		/* an integer with a float: the float must hold the integer */
		if (f == GP_FLOAT32 && bits(o) <= 16)
			return (GP_FLOAT32);
		return (GP_FLOAT64);
	}
	if (ka == kb)
		return (bits(a) > bits(b) ? a : b);
	/* signed with unsigned: a signed type wide enough for both */
	{
		enum gp_dtype s = ka == GP_KIND_INT ? a : b;
		enum gp_dtype u = ka == GP_KIND_INT ? b : a;

		if (bits(s) > bits(u))
			return (s);
		if (bits(u) == 64)
			return (GP_FLOAT64);
		return (sint_of_bits(bits(u) * 2));
	}
}

enum gp_dtype
gp_dtype_to_float(enum gp_dtype t)
{
	if (gp_dtype_is_float(t))
		return (t);
	if (bits(t) <= 16)
		return (GP_FLOAT32);
	return (GP_FLOAT64);
}

/* Conversion: every source type is read as one of three wide types, then
 * narrowed to the destination.  Loops are instantiated per (dst, src) pair
 * through the X-macro below so each is a plain typed loop. */
#define GP_FOREACH_DTYPE(X)                                                   \
	X(GP_BOOL, _Bool) X(GP_INT8, int8_t) X(GP_INT16, int16_t)              \
	X(GP_INT32, int32_t) X(GP_INT64, int64_t) X(GP_UINT8, uint8_t)          \
	X(GP_UINT16, uint16_t) X(GP_UINT32, uint32_t) X(GP_UINT64, uint64_t)    \
	X(GP_FLOAT32, float) X(GP_FLOAT64, double)

static inline double
clampd(double v, double lo, double hi)
{
	if (isnan(v))
		return (0);
	return (v < lo ? lo : v > hi ? hi : v);
}

/* Float to integer with clamping (a plain cast is undefined out of range). */
#define F2I(T, LO, HI, v) ((T)clampd((v), (double)(LO), (double)(HI)))

static inline _Bool   to_GP_BOOL(double v) { return (v != 0); }
static inline int8_t  to_GP_INT8(double v) { return F2I(int8_t, INT8_MIN, INT8_MAX, v); }
static inline int16_t to_GP_INT16(double v) { return F2I(int16_t, INT16_MIN, INT16_MAX, v); }
static inline int32_t to_GP_INT32(double v) { return F2I(int32_t, INT32_MIN, INT32_MAX, v); }
static inline int64_t
to_GP_INT64(double v)
{
	if (isnan(v))
		return (0);
	if (v >= 9223372036854775807.0)
		return (INT64_MAX);
	if (v <= -9223372036854775808.0)
		return (INT64_MIN);
	return ((int64_t)v);
}
static inline uint8_t  to_GP_UINT8(double v) { return F2I(uint8_t, 0, UINT8_MAX, v); }
static inline uint16_t to_GP_UINT16(double v) { return F2I(uint16_t, 0, UINT16_MAX, v); }
static inline uint32_t to_GP_UINT32(double v) { return F2I(uint32_t, 0, UINT32_MAX, v); }
static inline uint64_t
to_GP_UINT64(double v)
{
	if (isnan(v) || v <= 0)
		return (0);
	if (v >= 18446744073709551615.0)
		return (UINT64_MAX);
	return ((uint64_t)v);
}
static inline float  to_GP_FLOAT32(double v) { return ((float)v); }
static inline double to_GP_FLOAT64(double v) { return (v); }

/* Integer-to-integer conversions keep C's modular semantics (as numpy's
 * astype does); anything involving a float goes through the clamped path. */
#define CONV_LOOP(DT, DCT, ST, SCT)                                           \
	case ST: {                                                            \
		const char *s = src;                                          \
		DCT *d = dst;                                                 \
		if (gp_dtype_table[DT].kind == GP_KIND_FLOAT ||               \
		    gp_dtype_table[ST].kind != GP_KIND_FLOAT) {               \
			for (size_t i = 0; i < n; i++, s += sstride)          \
				d[i] = (DCT)(*(const SCT *)s);                \
		} else {                                                      \
			for (size_t i = 0; i < n; i++, s += sstride)          \
				d[i] = to_##DT((double)*(const SCT *)s);      \
		}                                                             \
		break;                                                        \
	}

#define CONV_DST(DT, DCT)                                                     \
	case DT:                                                              \
		switch (st) {                                                 \
			CONV_SRC_##DT                                         \
		default:                                                      \
			break;                                                \
		}                                                             \
		break;

#define SRCS(DT, DCT)                                                         \
	CONV_LOOP(DT, DCT, GP_BOOL, _Bool)                                    \
	CONV_LOOP(DT, DCT, GP_INT8, int8_t)                                   \
	CONV_LOOP(DT, DCT, GP_INT16, int16_t)                                 \
	CONV_LOOP(DT, DCT, GP_INT32, int32_t)                                 \
	CONV_LOOP(DT, DCT, GP_INT64, int64_t)                                 \
	CONV_LOOP(DT, DCT, GP_UINT8, uint8_t)                                 \
	CONV_LOOP(DT, DCT, GP_UINT16, uint16_t)                               \
	CONV_LOOP(DT, DCT, GP_UINT32, uint32_t)                               \
	CONV_LOOP(DT, DCT, GP_UINT64, uint64_t)                               \
	CONV_LOOP(DT, DCT, GP_FLOAT32, float)                                 \
	CONV_LOOP(DT, DCT, GP_FLOAT64, double)

#define CONV_SRC_GP_BOOL SRCS(GP_BOOL, _Bool)
#define CONV_SRC_GP_INT8 SRCS(GP_INT8, int8_t)
#define CONV_SRC_GP_INT16 SRCS(GP_INT16, int16_t)
#define CONV_SRC_GP_INT32 SRCS(GP_INT32, int32_t)
#define CONV_SRC_GP_INT64 SRCS(GP_INT64, int64_t)
#define CONV_SRC_GP_UINT8 SRCS(GP_UINT8, uint8_t)
#define CONV_SRC_GP_UINT16 SRCS(GP_UINT16, uint16_t)
#define CONV_SRC_GP_UINT32 SRCS(GP_UINT32, uint32_t)
#define CONV_SRC_GP_UINT64 SRCS(GP_UINT64, uint64_t)
#define CONV_SRC_GP_FLOAT32 SRCS(GP_FLOAT32, float)
#define CONV_SRC_GP_FLOAT64 SRCS(GP_FLOAT64, double)

void
gp_dtype_convert(void *dst, enum gp_dtype dt, const void *src,
    enum gp_dtype st, ptrdiff_t sstride, size_t n)
{
	if (dt == st && sstride == (ptrdiff_t)gp_dtype_size(st)) {
		memmove(dst, src, n * gp_dtype_size(st));
		return;
	}
	if (sstride == 0 && n > 1) {
		/* one value broadcast (an elementwise op's stride-0 operand,
		 * once a row): converted once, then copied in doubling runs
		 * (the loop a value at a time took 61% of a channel-scale mul's
		 * time at 28x28) */
		size_t sz = gp_dtype_size(dt), have = 1;
		char *d = dst;

		gp_dtype_convert(dst, dt, src, st, 0, 1);
		while (have < n) {
			size_t k = have < n - have ? have : n - have;

			memcpy(d + have * sz, d, k * sz);
			have += k;
		}
		return;
	}
	switch (dt) {
		GP_FOREACH_DTYPE(CONV_DST)
	default:
		break;
	}
}

double
gp_dtype_load(const void *p, enum gp_dtype t)
{
	double v;

	gp_dtype_convert(&v, GP_FLOAT64, p, t, 0, 1);
	return (v);
}

void
gp_dtype_store(void *p, enum gp_dtype t, double v)
{
	gp_dtype_convert(p, t, &v, GP_FLOAT64, 0, 1);
}

void
gp_dtype_int_range(enum gp_dtype t, int64_t *lo, int64_t *hi)
{
	switch (t) {
	case GP_BOOL:
		*lo = 0, *hi = 1;
		break;
	case GP_INT8:
		*lo = INT8_MIN, *hi = INT8_MAX;
		break;
	case GP_INT16:
		*lo = INT16_MIN, *hi = INT16_MAX;
		break;
	case GP_INT32:
		*lo = INT32_MIN, *hi = INT32_MAX;
		break;
	case GP_UINT8:
		*lo = 0, *hi = UINT8_MAX;
		break;
	case GP_UINT16:
		*lo = 0, *hi = UINT16_MAX;
		break;
	case GP_UINT32:
		*lo = 0, *hi = UINT32_MAX;
		break;
	case GP_UINT64:
		*lo = 0, *hi = INT64_MAX;	/* all an int64 can say */
		break;
	default:
		*lo = INT64_MIN, *hi = INT64_MAX;
		break;
	}
}
