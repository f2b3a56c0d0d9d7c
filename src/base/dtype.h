/*
 * dtype.h: element types. The table gives each dtype's name (numpy's
 * spelling), size and kind; numpy's promotion rules pick the common type of
 * two operands; one conversion loop casts between any two dtypes.
 */
#ifndef GPTOP_SRC_DTYPE_H
#define GPTOP_SRC_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gp_dtype {
	GP_BOOL,
	GP_INT8,
	GP_INT16,
	GP_INT32,
	GP_INT64,
	GP_UINT8,
	GP_UINT16,
	GP_UINT32,
	GP_UINT64,
	GP_FLOAT32,
	GP_FLOAT64,
	GP_DTYPE__COUNT
};

enum gp_dtype_kind {
	GP_KIND_BOOL,
	GP_KIND_INT,
	GP_KIND_UINT,
	GP_KIND_FLOAT
};

struct gp_dtype_info {
	const char		*name;	/* "float64" */
	const char		*npy;	/* numpy descr without byte order: "f8" */
	const char		*ctype;	/* C type name: "double" */
	size_t			 size;
	enum gp_dtype_kind	 kind;
};

extern const struct gp_dtype_info gp_dtype_table[GP_DTYPE__COUNT];

static inline size_t
gp_dtype_size(enum gp_dtype t)
{
	return (gp_dtype_table[t].size);
}

static inline const char *
gp_dtype_name(enum gp_dtype t)
{
	return (gp_dtype_table[t].name);
}

static inline bool
gp_dtype_is_float(enum gp_dtype t)
{
	return (gp_dtype_table[t].kind == GP_KIND_FLOAT);
}

static inline bool
gp_dtype_is_int(enum gp_dtype t)
{
	return (gp_dtype_table[t].kind == GP_KIND_INT ||
	    gp_dtype_table[t].kind == GP_KIND_UINT);
}

/* Parse a dtype name ("float64", also "bool", "int32", ...). */
bool		gp_dtype_parse(const char *s, enum gp_dtype *out);
/* A comma-separated list of every dtype name, for error messages. */
const char	*gp_dtype_names(void);
/* numpy's result type of two array operands. */
enum gp_dtype	gp_dtype_promote(enum gp_dtype a, enum gp_dtype b);
/* The float type an op computing in floats uses for t (Theano's
 * upgrade_to_float: small ints to float32, others to float64). */
enum gp_dtype	gp_dtype_to_float(enum gp_dtype t);

/* Convert n elements: src (dtype st, element stride sstride bytes) into
 * contiguous dst (dtype dt).  Float to int truncates like a C cast; values
 * out of range are clamped; NaN becomes 0. */
void		gp_dtype_convert(void *dst, enum gp_dtype dt, const void *src,
		    enum gp_dtype st, ptrdiff_t sstride, size_t n);
/* One element as a double, and a double stored as an element. */
double		gp_dtype_load(const void *p, enum gp_dtype t);
void		gp_dtype_store(void *p, enum gp_dtype t, double v);
/* The integers an element of t holds exactly, as far as int64 reaches
 * (bool: 0..1; uint64: 0..INT64_MAX; float: all of int64). */
void		gp_dtype_int_range(enum gp_dtype t, int64_t *lo, int64_t *hi);

#endif
