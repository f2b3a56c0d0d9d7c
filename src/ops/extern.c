/*
 * ops/extern.c: the extern op: a C function from a shared library, named by
 * the node's params (lib, symbol, signature), applied to the node's inputs.
 *
 * prepare() does all the work that can fail: it refuses unless the graph
 * allows extern ops, parses the C-like signature, checks it against the
 * inputs, opens the library (once per process: handles are cached and
 * shared by every node) and looks the symbol up, and prepares the ffi_cif.
 * Kernels only call.
 *
 * Two modes.  "elemwise": a scalar function applied to every element after
 * numpy broadcasting; each input is converted to its parameter's type
 * (gp_dtype_convert's semantics) one block of a row at a time, and the
 * result to the output dtype.  double(double), double(double, double),
 * float(float) and float(float, float) are called through a typed function
 * pointer; every other signature through ffi_call once per element.
 * "kernel": one call per execution with contiguous buffers; the parameters
 * take, in order: a const T * the next input, a T * the next output, an
 * integer right after a pointer that pointer's element count, any other
 * scalar the next input (which must hold one element).
 *
 * The function is trusted to match its signature and to touch nothing but
 * the buffers it is given; nothing here can check that (doc/security.md).
 */
#include "config.h"

#include "ops/extern.h"
#include "ops/ops.h"

#include <dlfcn.h>
#include <errno.h>
#include <ffi.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fatal.h"

_Static_assert(sizeof(_Bool) == 1, "bool parameters are passed as uint8");

#define MAX_PARAMS	GP_EXTERN_MAX_PARAMS
#define EW_MAX_IN	(GP_ITER_MAX_OPS - 1)
#define EW_BLOCK	128	/* elements converted and called per block */
#define SPELL_MAX	48

/*
 * The library cache.
 */

struct ext_lib {
	char		*key;	/* the resolved path, or the bare soname */
	void		*handle;
	int		 refs;
	struct ext_lib	*next;
};

static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ext_lib *libs;

int
gp_extern_libs_open(void)
{
	int n = 0;

	pthread_mutex_lock(&lib_lock);
	for (struct ext_lib *l = libs; l != NULL; l = l->next)
		n++;
	pthread_mutex_unlock(&lib_lock);
	return (n);
}

/* Open name: a bare soname through the loader's search path, a path with a
 * '/' relative to dir (the graph's folder) unless absolute. */
static struct ext_lib *
lib_open(const char *dir, const char *name, struct gp_err *err)
{
	struct ext_lib *l;
	char *key, *joined = NULL;
	void *h;

	if (strchr(name, '/') != NULL) {
		const char *p = name;

		if (name[0] != '/')
			p = joined = gp_xasprintf("%s/%s",
			    dir != NULL && dir[0] != '\0' ? dir : ".", name);
		key = realpath(p, NULL);
		if (key == NULL) {
			int e = errno;

			if (joined != NULL)
				gp_err_set(err, "param 'lib': cannot load '%s' "
				    "(relative to the graph's folder: '%s'): "
				    "%s", name, joined, strerror(e));
			else
				gp_err_set(err, "param 'lib': cannot load "
				    "'%s': %s", name, strerror(e));
			free(joined);
			return (NULL);
		}
		free(joined);
	} else {
		key = gp_xstrdup(name);
	}

	pthread_mutex_lock(&lib_lock);
	for (l = libs; l != NULL; l = l->next)
		if (strcmp(l->key, key) == 0) {
			l->refs++;
			pthread_mutex_unlock(&lib_lock);
			free(key);
			return (l);
		}
	dlerror();
	h = dlopen(key, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *why = dlerror();

		gp_err_set(err, "param 'lib': cannot load '%s': %s", name,
		    why != NULL ? why : "unknown dlopen error");
		pthread_mutex_unlock(&lib_lock);
		free(key);
		return (NULL);
	}
	l = gp_xcalloc(1, sizeof(*l));
	l->key = key;
	l->handle = h;
	l->refs = 1;
	l->next = libs;
	libs = l;
	pthread_mutex_unlock(&lib_lock);
	return (l);
}

static void
lib_close(struct ext_lib *l)
{
	struct ext_lib **pp;

	if (l == NULL)
		return;
	pthread_mutex_lock(&lib_lock);
	if (--l->refs > 0) {
		pthread_mutex_unlock(&lib_lock);
		return;
	}
	for (pp = &libs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	dlclose(l->handle);
	pthread_mutex_unlock(&lib_lock);
	free(l->key);
	free(l);
}

/*
 * Types and the signature parser.
 */

/* A parameter or return type: a scalar of a dtype, a pointer to one, or
 * void (the return only). */
struct ext_type {
	enum gp_dtype	 dt;
	bool		 is_void;
	bool		 ptr;
	bool		 cnst;	/* const T * */
	char		 spell[SPELL_MAX];	/* "const float *" */
};

static enum gp_dtype
int_dtype(size_t size, bool is_unsigned)
{
	switch (size) {
	case 1:
		return (is_unsigned ? GP_UINT8 : GP_INT8);
	case 2:
		return (is_unsigned ? GP_UINT16 : GP_INT16);
	case 4:
		return (is_unsigned ? GP_UINT32 : GP_INT32);
	default:
		return (is_unsigned ? GP_UINT64 : GP_INT64);
	}
}

static const struct {
	const char	*name;
	enum gp_dtype	 dt;	/* GP_DTYPE__COUNT: void */
	size_t		 size;	/* integers named by size: 0 = fixed */
	bool		 is_unsigned;
} type_names[] = {
	{"void", GP_DTYPE__COUNT, 0, false},
	{"bool", GP_BOOL, 0, false},
	{"_Bool", GP_BOOL, 0, false},
	{"int8_t", GP_INT8, 0, false},
	{"int16_t", GP_INT16, 0, false},
	{"int32_t", GP_INT32, 0, false},
	{"int64_t", GP_INT64, 0, false},
	{"uint8_t", GP_UINT8, 0, false},
	{"uint16_t", GP_UINT16, 0, false},
	{"uint32_t", GP_UINT32, 0, false},
	{"uint64_t", GP_UINT64, 0, false},
	{"size_t", GP_UINT64, sizeof(size_t), true},
	{"ssize_t", GP_INT64, sizeof(size_t), false},
	{"ptrdiff_t", GP_INT64, sizeof(ptrdiff_t), false},
	{"intptr_t", GP_INT64, sizeof(intptr_t), false},
	{"uintptr_t", GP_UINT64, sizeof(uintptr_t), true},
	{"float", GP_FLOAT32, 0, false},
	{"double", GP_FLOAT64, 0, false},
};

/* Words of C's own integer type names, in any order. */
static const char *const c_int_words[] = {
	"signed", "unsigned", "char", "short", "int", "long", NULL,
};

static bool
is_keyword(const char *w)
{
	static const char *const kw[] = {
		"signed", "unsigned", "char", "short", "int", "long", "float",
		"double", "void", "bool", "_Bool", "const", "volatile",
		"restrict", "struct", "union", "enum", NULL,
	};

	for (const char *const *k = kw; *k; k++)
		if (strcmp(*k, w) == 0)
			return (true);
	return (false);
}

/* Classify the type named by words[0..n-1] (qualifiers removed).  Returns
 * 1 with *dt set (GP_DTYPE__COUNT: void), 0 when it names no type, or -1
 * with err set when it names one gptop does not support. */
static int
classify(char *const *words, int n, enum gp_dtype *dt, struct gp_err *err)
{
	int n_signed = 0, n_unsigned = 0, n_char = 0, n_short = 0;
	int n_int = 0, n_long = 0, n_double = 0;

	if (n == 1)
		for (size_t i = 0; i < sizeof(type_names) /
		    sizeof(type_names[0]); i++) {
			if (strcmp(words[0], type_names[i].name) != 0)
				continue;
			*dt = type_names[i].size != 0 ?
			    int_dtype(type_names[i].size,
			    type_names[i].is_unsigned) : type_names[i].dt;
			return (1);
		}
	for (int i = 0; i < n; i++) {
		const char *w = words[i];
		bool known = false;

		for (const char *const *k = c_int_words; *k; k++)
			if (strcmp(*k, w) == 0)
				known = true;
		if (strcmp(w, "double") == 0) {
			n_double++;
			continue;
		}
		if (!known)
			return (0);
		n_signed += strcmp(w, "signed") == 0;
		n_unsigned += strcmp(w, "unsigned") == 0;
		n_char += strcmp(w, "char") == 0;
		n_short += strcmp(w, "short") == 0;
		n_int += strcmp(w, "int") == 0;
		n_long += strcmp(w, "long") == 0;
	}
	if (n_double > 0) {
		if (n_double == 1 && n_long == 1 && n == 2)
			return (gp_err_set(err, "unsupported type 'long "
			    "double'"));
		return (0);
	}
	if (n_signed + n_unsigned > 1 || n_int > 1 || n_char > 1 ||
	    n_short > 1 || n_long > 2 || (n_char && (n_short || n_long ||
	    n_int)) || (n_short && n_long))
		return (0);
	if (n_char) {
		if (n_signed + n_unsigned == 0)
			return (gp_err_set(err, "unsupported type 'char' (its "
			    "signedness is the platform's: use signed char, "
			    "unsigned char, int8_t or uint8_t)"));
		*dt = n_unsigned ? GP_UINT8 : GP_INT8;
		return (1);
	}
	if (n_short)
		*dt = int_dtype(sizeof(short), n_unsigned);
	else if (n_long == 2)
		*dt = int_dtype(sizeof(long long), n_unsigned);
	else if (n_long == 1)
		*dt = int_dtype(sizeof(long), n_unsigned);
	else
		*dt = int_dtype(sizeof(int), n_unsigned);
	return (1);
}

struct sig {
	struct ext_type	 ret;
	int		 n;
	struct ext_type	 par[MAX_PARAMS];
	char		 name[128];	/* the function's name, or "" */
	struct gp_buf	 canon;		/* "double(double, double)" */
};

struct lexer {
	const char	*s, *p;
	char		 tok[128];	/* identifier, or one punctuation */
	char		 desc[132];	/* tok quoted, for messages */
	bool		 ident;
	int		 col;	/* of tok, 1-based */
};

static int
lex(struct lexer *lx, struct gp_err *err)
{
	size_t n = 0;

	while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n')
		lx->p++;
	lx->col = (int)(lx->p - lx->s) + 1;
	lx->ident = false;
	if (*lx->p == '\0') {
		lx->tok[0] = '\0';
		return (0);
	}
	if ((*lx->p >= 'a' && *lx->p <= 'z') || (*lx->p >= 'A' &&
	    *lx->p <= 'Z') || *lx->p == '_') {
		while ((*lx->p >= 'a' && *lx->p <= 'z') || (*lx->p >= 'A' &&
		    *lx->p <= 'Z') || (*lx->p >= '0' && *lx->p <= '9') ||
		    *lx->p == '_') {
			if (n + 1 >= sizeof(lx->tok))
				return (gp_err_set(err, "name too long at "
				    "column %d", lx->col));
			lx->tok[n++] = *lx->p++;
		}
		lx->tok[n] = '\0';
		lx->ident = true;
		return (0);
	}
	if (strncmp(lx->p, "...", 3) == 0)
		return (gp_err_set(err, "variadic functions (...) are not "
		    "supported (column %d)", lx->col));
	if (strchr("(),*", *lx->p) == NULL)
		return (gp_err_set(err, "unexpected character '%c' at column "
		    "%d", *lx->p, lx->col));
	lx->tok[0] = *lx->p++;
	lx->tok[1] = '\0';
	return (0);
}

/* The current token for messages: "'x'", or "the end". */
static const char *
tok_desc(struct lexer *lx)
{
	static const char end[] = "the end";

	if (lx->tok[0] == '\0')
		return (end);
	snprintf(lx->desc, sizeof(lx->desc), "'%s'", lx->tok);
	return (lx->desc);
}

static bool
tok_is(const struct lexer *lx, const char *s)
{
	return (strcmp(lx->tok, s) == 0);
}

/* One declaration: type words, an optional '*' (with const/restrict after
 * it), an optional name.  what names it in errors ("the return type",
 * "parameter 2").  On entry lx holds the first token. */
static int
parse_decl(struct lexer *lx, struct ext_type *t, char *name, size_t namesz,
    const char *what, struct gp_err *err)
{
	char wbuf[8][128], *words[8];
	int n = 0, col = lx->col, rc;
	bool cnst = false;
	enum gp_dtype dt;

	name[0] = '\0';
	memset(t, 0, sizeof(*t));
	while (lx->ident) {
		if (strcmp(lx->tok, "const") == 0) {
			cnst = true;
		} else if (strcmp(lx->tok, "volatile") != 0 &&
		    strcmp(lx->tok, "restrict") != 0) {
			if (n == 8)
				return (gp_err_set(err, "%s at column %d: too "
				    "many words", what, col));
			memcpy(wbuf[n], lx->tok, sizeof(wbuf[n]));
			words[n] = wbuf[n];
			n++;
		}
		if (lex(lx, err) < 0)
			return (-1);
	}
	if (n == 0)
		return (gp_err_set(err, "expected a type for %s at column %d, "
		    "found %s", what, col, tok_desc(lx)));
	if (tok_is(lx, "*")) {
		t->ptr = true;
		t->cnst = cnst;
		if (lex(lx, err) < 0)
			return (-1);
		while (lx->ident && (tok_is(lx, "const") ||
		    tok_is(lx, "restrict") || tok_is(lx, "volatile")))
			if (lex(lx, err) < 0)
				return (-1);
		if (tok_is(lx, "*"))
			return (gp_err_set(err, "%s at column %d: pointers to "
			    "pointers are not supported", what, lx->col));
		if (lx->ident) {
			snprintf(name, namesz, "%s", lx->tok);
			if (lex(lx, err) < 0)
				return (-1);
		}
	} else if (n > 1 && !is_keyword(words[n - 1])) {
		/* the last word may be a name: "double x", "int64_t n" */
		struct gp_err tmp;

		if (classify(words, n, &dt, &tmp) == 0)
			snprintf(name, namesz, "%s", words[--n]);
	}
	rc = classify(words, n, &dt, err);
	if (rc < 0)
		return (gp_err_prefix(err, "%s", what));
	if (rc == 0) {
		struct gp_buf b = {0};

		for (int i = 0; i < n; i++)
			gp_buf_printf(&b, "%s%s", i ? " " : "", words[i]);
		gp_err_set(err, "%s: unsupported type '%s' (supported: "
		    "int8_t .. int64_t, uint8_t .. uint64_t, signed and "
		    "unsigned char, short, int, long, long long, size_t, "
		    "ptrdiff_t, bool, float, double, and pointers to them)",
		    what, gp_buf_str(&b));
		gp_buf_free(&b);
		return (-1);
	}
	t->dt = dt;
	t->is_void = dt == GP_DTYPE__COUNT;
	if (t->is_void && t->ptr)
		return (gp_err_set(err, "%s: unsupported type 'void *' (give "
		    "the element type: float *, const double *, ...)", what));
	{
		struct gp_buf b = {0};

		if (t->cnst)
			gp_buf_puts(&b, "const ");
		for (int i = 0; i < n; i++)
			gp_buf_printf(&b, "%s%s", i ? " " : "", words[i]);
		if (t->ptr)
			gp_buf_puts(&b, " *");
		snprintf(t->spell, sizeof(t->spell), "%s", gp_buf_str(&b));
		gp_buf_free(&b);
	}
	return (0);
}

/* Parse "RET [NAME](PARAM, ...)"; a parameter list of (void) or () takes
 * no arguments. */
static int
parse_sig(const char *s, struct sig *sg, struct gp_err *err)
{
	struct lexer lx = {.s = s, .p = s};
	char pname[128];

	memset(&sg->ret, 0, sizeof(sg->ret));
	sg->n = 0;
	sg->name[0] = '\0';
	if (lex(&lx, err) < 0)
		return (-1);
	if (parse_decl(&lx, &sg->ret, sg->name, sizeof(sg->name),
	    "the return type", err) < 0)
		return (-1);
	if (sg->ret.ptr)
		return (gp_err_set(err, "the return type: pointers are not "
		    "supported as return values"));
	if (!tok_is(&lx, "("))
		return (gp_err_set(err, "expected '(' at column %d, found %s",
		    lx.col, tok_desc(&lx)));
	if (lex(&lx, err) < 0)
		return (-1);
	if (tok_is(&lx, ")"))
		goto close;
	for (;;) {
		char what[32];
		struct ext_type *t;

		if (sg->n == MAX_PARAMS)
			return (gp_err_set(err, "more than %d parameters",
			    MAX_PARAMS));
		t = &sg->par[sg->n];
		snprintf(what, sizeof(what), "parameter %d", sg->n + 1);
		if (parse_decl(&lx, t, pname, sizeof(pname), what, err) < 0)
			return (-1);
		if (t->is_void) {
			if (sg->n == 0 && pname[0] == '\0' &&
			    tok_is(&lx, ")")) {
				if (lex(&lx, err) < 0)
					return (-1);
				goto end;
			}
			return (gp_err_set(err, "%s: a parameter cannot be "
			    "void", what));
		}
		sg->n++;
		if (tok_is(&lx, ")"))
			break;
		if (!tok_is(&lx, ","))
			return (gp_err_set(err, "expected ',' or ')' at column "
			    "%d, found %s", lx.col, tok_desc(&lx)));
		if (lex(&lx, err) < 0)
			return (-1);
	}
close:
	if (lex(&lx, err) < 0)
		return (-1);
end:
	if (lx.tok[0] != '\0')
		return (gp_err_set(err, "unexpected '%s' at column %d after "
		    "the parameter list", lx.tok, lx.col));
	gp_buf_clear(&sg->canon);
	gp_buf_printf(&sg->canon, "%s(", sg->ret.spell);
	for (int k = 0; k < sg->n; k++)
		gp_buf_printf(&sg->canon, "%s%s", k ? ", " : "",
		    sg->par[k].spell);
	gp_buf_puts(&sg->canon, ")");
	return (0);
}

static ffi_type *
ffi_type_of(const struct ext_type *t)
{
	if (t->is_void)
		return (&ffi_type_void);
	if (t->ptr)
		return (&ffi_type_pointer);
	switch (t->dt) {
	case GP_BOOL:
	case GP_UINT8:
		return (&ffi_type_uint8);
	case GP_INT8:
		return (&ffi_type_sint8);
	case GP_INT16:
		return (&ffi_type_sint16);
	case GP_UINT16:
		return (&ffi_type_uint16);
	case GP_INT32:
		return (&ffi_type_sint32);
	case GP_UINT32:
		return (&ffi_type_uint32);
	case GP_INT64:
		return (&ffi_type_sint64);
	case GP_UINT64:
		return (&ffi_type_uint64);
	case GP_FLOAT32:
		return (&ffi_type_float);
	default:
		return (&ffi_type_double);
	}
}

/*
 * The node's parsed params.
 */

enum ext_mode {
	M_ELEMWISE,
	M_KERNEL
};

/* How elementwise calls are made. */
enum ext_route {
	RT_FFI,
	RT_D_D,		/* double(double) */
	RT_DD_D,	/* double(double, double) */
	RT_F_F,		/* float(float) */
	RT_FF_F		/* float(float, float) */
};

static const char *const route_names[] = {
	[RT_FFI] = "ffi_call",
	[RT_D_D] = "direct",
	[RT_DD_D] = "direct",
	[RT_F_F] = "direct",
	[RT_FF_F] = "direct",
};

/* Kernel mode: what each parameter receives. */
enum ext_role {
	A_IN,		/* const T *: input idx */
	A_OUT,		/* T *: output idx */
	A_COUNT,	/* element count of parameter idx */
	A_SCALAR	/* the one element of input idx */
};

struct ext_priv {
	struct ext_lib	*lib;
	char		*lib_name;	/* as the graph gave it */
	char		*symbol;
	char		*sig;		/* canonical signature */
	enum ext_mode	 mode;
	enum ext_route	 route;
	double		 flops;		/* per element of output 0 */
	struct ext_type	 ret;
	int		 n;
	struct ext_type	 par[MAX_PARAMS];
	enum ext_role	 role[MAX_PARAMS];
	int		 idx[MAX_PARAMS];
	void		(*fn)(void);
	ffi_cif		 cif;
	ffi_type	*atypes[MAX_PARAMS];
};

static void
free_ext(void *vp)
{
	struct ext_priv *p = vp;

	if (p == NULL)
		return;
	lib_close(p->lib);
	free(p->lib_name);
	free(p->symbol);
	free(p->sig);
	free(p);
}

/* Kinds in numpy's same_kind casting order: a value converts to a kind at
 * or above its own. */
static int
kind_rank(enum gp_dtype t)
{
	switch (gp_dtype_table[t].kind) {
	case GP_KIND_BOOL:
		return (0);
	case GP_KIND_UINT:
		return (1);
	case GP_KIND_INT:
		return (2);
	default:
		return (3);
	}
}

static bool
can_convert(enum gp_dtype from, enum gp_dtype to)
{
	return (kind_rank(from) <= kind_rank(to));
}

static const char *
var_name(const struct gp_graph *g, const struct gp_node *n, int k)
{
	return (g->vars[n->in[k]].name);
}

static int
check_input_type(const struct gp_graph *g, const struct gp_node *n, int in,
    int par, const struct ext_type *t, struct gp_err *err)
{
	enum gp_dtype dt = gp_graph_in_type(g, n, in)->dtype;

	if (can_convert(dt, t->dt))
		return (0);
	return (gp_err_set(err, "input %d ('%s', %s) does not convert to "
	    "parameter %d '%s' (%s): only conversions that keep the value's "
	    "kind are made (bool to integer to float, numpy's same_kind); "
	    "cast the input first", in, var_name(g, n, in), gp_dtype_name(dt),
	    par + 1, t->spell, gp_dtype_name(t->dt)));
}

/* A shape rule: "broadcast", "like:K" or a list of dimensions. */
static int
shape_rule(struct gp_graph *g, struct gp_node *n, const json_t *r,
    int *ndim, int64_t *shape, struct gp_err *err)
{
	if (r == NULL || (json_is_string(r) &&
	    strcmp(json_string_value(r), "broadcast") == 0)) {
		*ndim = 0;
		for (int k = 0; k < n->n_in; k++) {
			const struct gp_type *t = gp_graph_in_type(g, n, k);

			if (gp_shape_broadcast(*ndim, shape, t->ndim, t->shape,
			    ndim, shape, err) < 0)
				return (gp_err_prefix(err, "param 'shape' "
				    "(\"broadcast\", the default): inputs do "
				    "not broadcast"));
		}
		return (0);
	}
	if (json_is_string(r)) {
		const char *s = json_string_value(r);
		char *end;
		long k;

		if (strncmp(s, "like:", 5) != 0 || s[5] < '0' || s[5] > '9')
			goto bad;
		errno = 0;
		k = strtol(s + 5, &end, 10);
		if (*end != '\0' || errno != 0)
			goto bad;
		if (k >= n->n_in)
			return (gp_err_set(err, "param 'shape': \"%s\" names "
			    "input %ld, but the node has %d input%s", s, k,
			    n->n_in, n->n_in == 1 ? "" : "s"));
		{
			const struct gp_type *t = gp_graph_in_type(g, n,
			    (int)k);

			*ndim = t->ndim;
			memcpy(shape, t->shape, sizeof(int64_t) *
			    (size_t)t->ndim);
		}
		return (0);
	}
	if (json_is_array(r)) {
		size_t i;
		json_t *e;

		if (json_array_size(r) > GP_MAX_DIMS)
			return (gp_err_set(err, "param 'shape': more than %d "
			    "dimensions", GP_MAX_DIMS));
		json_array_foreach(r, i, e) {
			if (!json_is_integer(e) || json_integer_value(e) < 0)
				return (gp_err_set(err, "param 'shape': "
				    "dimensions must be integers >= 0"));
			shape[i] = json_integer_value(e);
		}
		*ndim = (int)json_array_size(r);
		return (0);
	}
bad:
	return (gp_err_set(err, "param 'shape' must be \"broadcast\", "
	    "\"like:K\" (the shape of input K) or a list of dimensions"));
}

/* A list of rules (one per output) rather than one explicit shape. */
static bool
is_rule_list(const json_t *r)
{
	return (json_is_array(r) && json_array_size(r) > 0 &&
	    !json_is_integer(json_array_get(r, 0)));
}

static int
get_string(const json_t *params, const char *key, const char **out,
    bool required, struct gp_err *err)
{
	json_t *v = json_object_get(params, key);

	*out = NULL;
	if (v == NULL) {
		if (required)
			return (gp_err_set(err, "param '%s' is required",
			    key));
		return (0);
	}
	if (!json_is_string(v) || json_string_length(v) == 0)
		return (gp_err_set(err, "param '%s' must be a non-empty "
		    "string", key));
	*out = json_string_value(v);
	return (0);
}

static void k_elemwise(const struct gp_node *, struct gp_tensor *const *,
    struct gp_tensor *const *);
static void k_kernel(const struct gp_node *, struct gp_tensor *const *,
    struct gp_tensor *const *);

static int
prep_elemwise(struct gp_graph *g, struct gp_node *n, struct ext_priv *p,
    bool force_ffi, struct gp_err *err)
{
	const json_t *sr = json_object_get(n->params, "shape");
	enum gp_dtype odt;
	const char *ds;
	int64_t bshape[GP_MAX_DIMS], shape[GP_MAX_DIMS], chk[GP_MAX_DIMS];
	int bnd = 0, nd, cnd;

	if (p->ret.is_void)
		return (gp_err_set(err, "mode 'elemwise' needs a function "
		    "returning a value; '%s' returns void (use mode 'kernel')",
		    p->sig));
	for (int k = 0; k < p->n; k++)
		if (p->par[k].ptr)
			return (gp_err_set(err, "mode 'elemwise' takes scalar "
			    "parameters; parameter %d is '%s' (use mode "
			    "'kernel')", k + 1, p->par[k].spell));
	if (n->n_in != p->n)
		return (gp_err_set(err, "signature '%s' takes %d argument%s, "
		    "but the node has %d input%s", p->sig, p->n,
		    p->n == 1 ? "" : "s", n->n_in, n->n_in == 1 ? "" : "s"));
	if (n->n_in > EW_MAX_IN)
		return (gp_err_set(err, "mode 'elemwise' takes at most %d "
		    "inputs", EW_MAX_IN));
	if (n->n_out != 1)
		return (gp_err_set(err, "mode 'elemwise' has 1 output, got %d "
		    "names", n->n_out));
	for (int k = 0; k < n->n_in; k++)
		if (check_input_type(g, n, k, k, &p->par[k], err) < 0)
			return (-1);
	if (get_string(n->params, "dtype", &ds, false, err) < 0)
		return (-1);
	odt = p->ret.dt;
	if (ds != NULL && !gp_dtype_parse(ds, &odt))
		return (gp_err_set(err, "param 'dtype': unknown dtype '%s' "
		    "(expected one of %s)", ds, gp_dtype_names()));
	if (is_rule_list(sr))
		return (gp_err_set(err, "param 'shape': one rule expected in "
		    "mode 'elemwise'"));
	if (shape_rule(g, n, NULL, &bnd, bshape, err) < 0)
		return (-1);
	if (sr != NULL) {
		if (shape_rule(g, n, sr, &nd, shape, err) < 0)
			return (-1);
		if (gp_shape_broadcast(bnd, bshape, nd, shape, &cnd, chk,
		    NULL) < 0 || cnd != nd || memcmp(chk, shape,
		    sizeof(int64_t) * (size_t)nd) != 0) {
			struct gp_buf a = {0}, b = {0};

			gp_shape_format(&a, bnd, bshape);
			gp_shape_format(&b, nd, shape);
			gp_err_set(err, "param 'shape': the inputs (broadcast "
			    "shape %s) do not broadcast to the output shape "
			    "%s", gp_buf_str(&a), gp_buf_str(&b));
			gp_buf_free(&a);
			gp_buf_free(&b);
			return (-1);
		}
	} else {
		nd = bnd;
		memcpy(shape, bshape, sizeof(shape));
	}
	gp_ops_set_out(g, n, 0, odt, nd, shape);

	p->route = RT_FFI;
	/* one or two parameters and the result all double, or all float */
	if (!force_ffi && p->n >= 1 && p->n <= 2 &&
	    (p->ret.dt == GP_FLOAT64 || p->ret.dt == GP_FLOAT32) &&
	    p->par[0].dt == p->ret.dt &&
	    (p->n == 1 || p->par[1].dt == p->ret.dt)) {
		bool f64 = p->ret.dt == GP_FLOAT64;

		p->route = p->n == 1 ? (f64 ? RT_D_D : RT_F_F) :
		    (f64 ? RT_DD_D : RT_FF_F);
	}
	n->kernel = k_elemwise;
	return (0);
}

static bool
count_fits(int64_t v, enum gp_dtype t)
{
	size_t sz = gp_dtype_size(t);

	if (sz >= 8)
		return (true);
	if (gp_dtype_table[t].kind == GP_KIND_UINT)
		return ((uint64_t)v < ((uint64_t)1 << (8 * sz)));
	return (v < ((int64_t)1 << (8 * sz - 1)));
}

static int
prep_kernel(struct gp_graph *g, struct gp_node *n, struct ext_priv *p,
    struct gp_err *err)
{
	const json_t *sr = json_object_get(n->params, "shape");
	int n_in = 0, n_out = 0;
	const char *ds;
	enum gp_dtype want = GP_DTYPE__COUNT;

	if (json_object_get(n->params, "route") != NULL)
		return (gp_err_set(err, "param 'route' applies to mode "
		    "'elemwise' only"));
	for (int k = 0; k < p->n; k++) {
		const struct ext_type *t = &p->par[k];

		if (t->ptr && t->cnst) {
			p->role[k] = A_IN;
			p->idx[k] = n_in++;
		} else if (t->ptr) {
			p->role[k] = A_OUT;
			p->idx[k] = n_out++;
		} else if (k > 0 && p->par[k - 1].ptr &&
		    gp_dtype_is_int(t->dt)) {
			p->role[k] = A_COUNT;
			p->idx[k] = k - 1;
		} else {
			p->role[k] = A_SCALAR;
			p->idx[k] = n_in++;
		}
	}
	if (n_out == 0)
		return (gp_err_set(err, "mode 'kernel': signature '%s' has no "
		    "output (a non-const pointer parameter)", p->sig));
	if (n->n_in != n_in)
		return (gp_err_set(err, "mode 'kernel': signature '%s' takes "
		    "%d input%s (its const pointers and scalars not after a "
		    "pointer), but the node has %d", p->sig, n_in,
		    n_in == 1 ? "" : "s", n->n_in));
	if (n->n_out != n_out)
		return (gp_err_set(err, "mode 'kernel': signature '%s' writes "
		    "%d output%s (its non-const pointers), but the node names "
		    "%d", p->sig, n_out, n_out == 1 ? "" : "s", n->n_out));
	if (n_out > GP_MAX_OUT)
		return (gp_err_set(err, "mode 'kernel': more than %d outputs",
		    GP_MAX_OUT));
	if (get_string(n->params, "dtype", &ds, false, err) < 0)
		return (-1);
	if (ds != NULL && !gp_dtype_parse(ds, &want))
		return (gp_err_set(err, "param 'dtype': unknown dtype '%s' "
		    "(expected one of %s)", ds, gp_dtype_names()));
	if (is_rule_list(sr) && json_array_size(sr) != (size_t)n_out)
		return (gp_err_set(err, "param 'shape': %zu rules for %d "
		    "output%s", json_array_size(sr), n_out,
		    n_out == 1 ? "" : "s"));
	for (int k = 0; k < p->n; k++) {
		const struct ext_type *t = &p->par[k];
		int64_t shape[GP_MAX_DIMS];
		int nd;

		switch (p->role[k]) {
		case A_IN:
			if (check_input_type(g, n, p->idx[k], k, t, err) < 0)
				return (-1);
			break;
		case A_SCALAR: {
			const struct gp_type *it = gp_graph_in_type(g, n,
			    p->idx[k]);

			if (check_input_type(g, n, p->idx[k], k, t, err) < 0)
				return (-1);
			if (gp_shape_numel(it->ndim, it->shape) != 1) {
				struct gp_buf b = {0};

				gp_shape_format(&b, it->ndim, it->shape);
				gp_err_set(err, "mode 'kernel': parameter %d "
				    "'%s' takes input %d ('%s') as a scalar, "
				    "but its shape is %s (a scalar parameter "
				    "not right after a pointer takes a "
				    "1-element input)", k + 1, t->spell,
				    p->idx[k], var_name(g, n, p->idx[k]),
				    gp_buf_str(&b));
				gp_buf_free(&b);
				return (-1);
			}
			break;
		}
		case A_OUT:
			if (want != GP_DTYPE__COUNT && want != t->dt)
				return (gp_err_set(err, "param 'dtype' is %s, "
				    "but mode 'kernel' writes output %d "
				    "through parameter %d '%s' (%s): omit "
				    "'dtype' or make them agree",
				    gp_dtype_name(want), p->idx[k], k + 1,
				    t->spell, gp_dtype_name(t->dt)));
			if (shape_rule(g, n, is_rule_list(sr) ?
			    json_array_get(sr, (size_t)p->idx[k]) : sr, &nd,
			    shape, err) < 0)
				return (-1);
			gp_ops_set_out(g, n, p->idx[k], t->dt, nd, shape);
			break;
		case A_COUNT:
			break;
		}
	}
	/* counts, now that every output's shape is known */
	for (int k = 0; k < p->n; k++) {
		const struct gp_type *pt;
		int j = p->idx[k];
		int64_t cnt;

		if (p->role[k] != A_COUNT)
			continue;
		pt = p->role[j] == A_IN ? gp_graph_in_type(g, n, p->idx[j]) :
		    gp_graph_out_type(g, n, p->idx[j]);
		cnt = gp_shape_numel(pt->ndim, pt->shape);
		if (!count_fits(cnt, p->par[k].dt))
			return (gp_err_set(err, "mode 'kernel': parameter %d "
			    "'%s' cannot hold the element count %lld of "
			    "parameter %d", k + 1, p->par[k].spell,
			    (long long)cnt, j + 1));
	}
	n->kernel = k_kernel;
	return (0);
}

static const char *const p_extern[] = {
	"lib", "symbol", "signature", "mode", "dtype", "shape", "route",
	"flops", NULL,
};

static int
prep_extern(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	struct ext_priv *p;
	struct sig sg = {0};
	const char *lib, *sym, *sigs, *mode, *route;
	bool force_ffi = false;
	void *addr;
	int rc = -1;

	/* Nothing is parsed, resolved or opened before this check. */
	if (!g->allow_extern) {
		const json_t *l = json_object_get(n->params, "lib");
		const json_t *s = json_object_get(n->params, "symbol");
		const json_t *sig = json_object_get(n->params, "signature");

		/* without a symbol param, the signature names the function */
		if (!json_is_string(s))
			s = sig;
		return (gp_err_set(err, "extern op refused: it would load "
		    "native code (%s '%s' from library '%s'), and extern "
		    "ops are not allowed; if you trust this graph file, run "
		    "with --allow-extern (or the flag allow_extern=True)",
		    s != NULL && s == sig ? "function" : "symbol",
		    json_is_string(s) ? json_string_value(s) : "?",
		    json_is_string(l) ? json_string_value(l) : "?"));
	}
	if (get_string(n->params, "lib", &lib, true, err) < 0 ||
	    get_string(n->params, "symbol", &sym, false, err) < 0 ||
	    get_string(n->params, "signature", &sigs, true, err) < 0 ||
	    get_string(n->params, "mode", &mode, false, err) < 0 ||
	    get_string(n->params, "route", &route, false, err) < 0)
		return (-1);
	p = gp_xcalloc(1, sizeof(*p));
	n->priv = p;
	if (parse_sig(sigs, &sg, err) < 0) {
		gp_err_prefix(err, "param 'signature': cannot parse '%s'",
		    sigs);
		goto out;
	}
	if (sym == NULL && sg.name[0] == '\0') {
		gp_err_set(err, "param 'symbol' is required (or name the "
		    "function in the signature: \"double erf(double)\")");
		goto out;
	}
	if (sym != NULL && sg.name[0] != '\0' && strcmp(sym, sg.name) != 0) {
		gp_err_set(err, "param 'signature' names function '%s', but "
		    "param 'symbol' is '%s'", sg.name, sym);
		goto out;
	}
	p->symbol = gp_xstrdup(sym != NULL ? sym : sg.name);
	p->lib_name = gp_xstrdup(lib);
	p->sig = gp_xstrdup(gp_buf_str(&sg.canon));
	p->ret = sg.ret;
	p->n = sg.n;
	memcpy(p->par, sg.par, sizeof(p->par));
	if (mode == NULL) {
		p->mode = M_ELEMWISE;
		for (int k = 0; k < p->n; k++)
			if (p->par[k].ptr)
				p->mode = M_KERNEL;
	} else if (strcmp(mode, "elemwise") == 0) {
		p->mode = M_ELEMWISE;
	} else if (strcmp(mode, "kernel") == 0) {
		p->mode = M_KERNEL;
	} else {
		gp_err_set(err, "param 'mode' must be \"elemwise\" or "
		    "\"kernel\", got \"%s\"", mode);
		goto out;
	}
	if (route != NULL) {
		if (strcmp(route, "ffi") == 0) {
			force_ffi = true;
		} else if (strcmp(route, "auto") != 0) {
			gp_err_set(err, "param 'route' must be \"auto\" or "
			    "\"ffi\", got \"%s\"", route);
			goto out;
		}
	}
	if (gp_op_param_double(n->params, "flops", 0, &p->flops, err) < 0)
		goto out;
	if (p->flops < 0) {
		gp_err_set(err, "param 'flops' must be >= 0");
		goto out;
	}
	if (p->mode == M_ELEMWISE) {
		if (prep_elemwise(g, n, p, force_ffi, err) < 0)
			goto out;
	} else {
		if (prep_kernel(g, n, p, err) < 0)
			goto out;
	}
	/* types check out: now load */
	for (int k = 0; k < p->n; k++)
		p->atypes[k] = ffi_type_of(&p->par[k]);
	if (ffi_prep_cif(&p->cif, FFI_DEFAULT_ABI, (unsigned)p->n,
	    ffi_type_of(&p->ret), p->atypes) != FFI_OK) {
		gp_err_set(err, "libffi cannot prepare a call of '%s'",
		    p->sig);
		goto out;
	}
	if ((p->lib = lib_open(g->dir, lib, err)) == NULL)
		goto out;
	dlerror();
	addr = dlsym(p->lib->handle, p->symbol);
	if (addr == NULL) {
		gp_err_set(err, "param 'symbol': no symbol '%s' in library "
		    "'%s'", p->symbol, lib);
		goto out;
	}
	memcpy(&p->fn, &addr, sizeof(addr));
	n->impl = GP_IMPL_EXTERN;
	rc = 0;
out:
	if (rc < 0 && p->lib != NULL) {
		/* a node that failed holds no library open */
		lib_close(p->lib);
		p->lib = NULL;
	}
	gp_buf_free(&sg.canon);
	return (rc);
}

/*
 * Kernels.
 */

union ext_ret {
	ffi_arg		 a;
	ffi_sarg	 s;
	float		 f;
	double		 d;
	int64_t		 i64;
	uint64_t	 u64;
	void		*p;
};

/* Store a value ffi_call returned (integers narrower than ffi_arg come
 * widened) as an element of dtype dt. */
static void
ret_store(void *dst, enum gp_dtype dt, const union ext_ret *rv)
{
	bool wide = sizeof(ffi_arg) >= 8;

	switch (dt) {
	case GP_BOOL:
		*(_Bool *)dst = (uint8_t)rv->a != 0;
		break;
	case GP_INT8:
		*(int8_t *)dst = (int8_t)rv->s;
		break;
	case GP_INT16:
		*(int16_t *)dst = (int16_t)rv->s;
		break;
	case GP_INT32:
		*(int32_t *)dst = (int32_t)rv->s;
		break;
	case GP_INT64:
		*(int64_t *)dst = wide ? (int64_t)rv->s : rv->i64;
		break;
	case GP_UINT8:
		*(uint8_t *)dst = (uint8_t)rv->a;
		break;
	case GP_UINT16:
		*(uint16_t *)dst = (uint16_t)rv->a;
		break;
	case GP_UINT32:
		*(uint32_t *)dst = (uint32_t)rv->a;
		break;
	case GP_UINT64:
		*(uint64_t *)dst = wide ? (uint64_t)rv->a : rv->u64;
		break;
	case GP_FLOAT32:
		*(float *)dst = rv->f;
		break;
	default:
		*(double *)dst = rv->d;
		break;
	}
}

/* The direct routes, T(T) and T(T, T), on m contiguous values: one
 * definition, instantiated for double and float. */
#define DEF_DIRECT(SFX, T)                                                    \
static void                                                                   \
direct1_##SFX(const struct ext_priv *p, char *const *a, char *r, int64_t m)   \
{                                                                             \
	T (*f)(T) = (T (*)(T))p->fn;                                          \
	const T *x = (const T *)a[0];                                         \
	T *o = (T *)r;                                                        \
                                                                              \
	for (int64_t i = 0; i < m; i++)                                       \
		o[i] = f(x[i]);                                               \
}                                                                             \
static void                                                                   \
direct2_##SFX(const struct ext_priv *p, char *const *a, char *r, int64_t m)   \
{                                                                             \
	T (*f)(T, T) = (T (*)(T, T))p->fn;                                    \
	const T *x = (const T *)a[0];                                         \
	const T *y = (const T *)a[1];                                         \
	T *o = (T *)r;                                                        \
                                                                              \
	for (int64_t i = 0; i < m; i++)                                       \
		o[i] = f(x[i], y[i]);                                         \
}
DEF_DIRECT(f64, double)
DEF_DIRECT(f32, float)

/* Call p's function on m elements: a[k] holds m contiguous values of
 * parameter k's type, r receives m results of the return type. */
static void
call_block(const struct ext_priv *p, char *const *a, char *r, int64_t m)
{
	switch (p->route) {
	case RT_D_D:
		direct1_f64(p, a, r, m);
		break;
	case RT_DD_D:
		direct2_f64(p, a, r, m);
		break;
	case RT_F_F:
		direct1_f32(p, a, r, m);
		break;
	case RT_FF_F:
		direct2_f32(p, a, r, m);
		break;
	case RT_FFI: {
		void *av[MAX_PARAMS + 1];
		size_t psz[MAX_PARAMS + 1], rsz = gp_dtype_size(p->ret.dt);
		union ext_ret rv;

		for (int k = 0; k < p->n; k++)
			psz[k] = gp_dtype_size(p->par[k].dt);
		for (int64_t i = 0; i < m; i++) {
			for (int k = 0; k < p->n; k++)
				av[k] = a[k] + (size_t)i * psz[k];
			ffi_call((ffi_cif *)&p->cif, FFI_FN(p->fn), &rv, av);
			ret_store(r + (size_t)i * rsz, p->ret.dt, &rv);
		}
		break;
	}
	}
}

struct ew_ctx {
	const struct ext_priv	*p;
	enum gp_dtype		 in[EW_MAX_IN];
	enum gp_dtype		 out;
};

/* One innermost row: ptrs[0] the output, ptrs[1 + k] input k. */
static void
ew_row(char **ptrs, const int64_t *steps, int64_t n, void *vctx)
{
	const struct ew_ctx *c = vctx;
	const struct ext_priv *p = c->p;
	uint64_t buf[EW_MAX_IN][EW_BLOCK], rbuf[EW_BLOCK];
	size_t osz = gp_dtype_size(c->out), rsz = gp_dtype_size(p->ret.dt);
	char *a[EW_MAX_IN + 1];

	for (int64_t i0 = 0; i0 < n; i0 += EW_BLOCK) {
		int64_t m = n - i0 < EW_BLOCK ? n - i0 : EW_BLOCK;
		char *dst = ptrs[0] + i0 * steps[0], *r;
		bool ocontig = m == 1 || steps[0] == (int64_t)osz;

		for (int k = 0; k < p->n; k++) {
			char *src = ptrs[1 + k] + i0 * steps[1 + k];
			size_t psz = gp_dtype_size(p->par[k].dt);

			if (c->in[k] == p->par[k].dt &&
			    (m == 1 || steps[1 + k] == (int64_t)psz)) {
				a[k] = src;
			} else {
				gp_dtype_convert(buf[k], p->par[k].dt, src,
				    c->in[k], steps[1 + k], (size_t)m);
				a[k] = (char *)buf[k];
			}
		}
		r = ocontig && c->out == p->ret.dt ? dst : (char *)rbuf;
		call_block(p, a, r, m);
		if (r == dst)
			continue;
		if (ocontig)
			gp_dtype_convert(dst, c->out, r, p->ret.dt,
			    (ptrdiff_t)rsz, (size_t)m);
		else
			for (int64_t i = 0; i < m; i++)
				gp_dtype_convert(dst + i * steps[0], c->out,
				    r + (size_t)i * rsz, p->ret.dt, 0, 1);
	}
}

static void
k_elemwise(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	struct ew_ctx c = {.p = n->priv, .out = out[0]->dtype};
	struct gp_iter it;

	if (gp_tensor_numel(out[0]) == 0)
		return;
	gp_iter_init(&it, out[0]->ndim, out[0]->shape, 1 + n->n_in);
	gp_iter_add(&it, 0, out[0]);
	for (int k = 0; k < n->n_in; k++) {
		c.in[k] = in[k]->dtype;
		gp_iter_add(&it, 1 + k, in[k]);
	}
	gp_fatal_native_begin(c.p->symbol);
	gp_iter_run(&it, ew_row, &c);
	gp_fatal_native_end();
}

static void *
data_or_null(const struct gp_tensor *t)
{
	return (t->storage != NULL ? gp_tensor_data(t) : NULL);
}

static void
k_kernel(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct ext_priv *p = n->priv;
	struct gp_tensor tmp[MAX_PARAMS];
	union ext_ret val[MAX_PARAMS], rv;
	void *av[MAX_PARAMS + 1];
	int ntmp = 0;

	for (int k = 0; k < p->n; k++) {
		const struct ext_type *t = &p->par[k];
		const struct gp_tensor *x;
		int64_t cnt;

		switch (p->role[k]) {
		case A_IN:
			x = in[p->idx[k]];
			if (x->dtype == t->dt && gp_tensor_is_contiguous(x)) {
				val[k].p = data_or_null(x);
			} else {
				struct gp_tensor *c = &tmp[ntmp++];

				memset(c, 0, sizeof(*c));
				gp_tensor_alloc(c, t->dt, x->ndim, x->shape);
				gp_tensor_copy_into(c, x);
				val[k].p = data_or_null(c);
			}
			break;
		case A_OUT:
			val[k].p = data_or_null(out[p->idx[k]]);
			break;
		case A_COUNT: {
			int j = p->idx[k];

			x = p->role[j] == A_IN ? in[p->idx[j]] :
			    out[p->idx[j]];
			cnt = gp_tensor_numel(x);
			gp_dtype_convert(&val[k], t->dt, &cnt, GP_INT64, 0, 1);
			break;
		}
		case A_SCALAR:
			x = in[p->idx[k]];
			gp_dtype_convert(&val[k], t->dt, gp_tensor_data(x),
			    x->dtype, 0, 1);
			break;
		}
		av[k] = &val[k];
	}
	gp_fatal_native_begin(p->symbol);
	ffi_call((ffi_cif *)&p->cif, FFI_FN(p->fn), &rv, av);
	gp_fatal_native_end();
	for (int i = 0; i < ntmp; i++)
		gp_tensor_release(&tmp[i]);
}

/*
 * Names, flops, the profile's detail.
 */

static void
fmt_extern(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	const struct ext_priv *p = n->priv;

	if (p == NULL || p->sig == NULL) {
		gp_buf_puts(b, "Extern{?}");
		return;
	}
	gp_buf_printf(b, "Extern{%s: %s}", p->symbol, p->sig);
}

static double
flops_extern(const struct gp_graph *g, const struct gp_node *n)
{
	const struct ext_priv *p = n->priv;
	const struct gp_type *t;

	if (p == NULL || p->flops == 0 || n->n_out < 1)
		return (0);
	t = &g->vars[n->out[0]].type;
	return (p->flops * (double)gp_shape_numel(t->ndim, t->shape));
}

void
gp_extern_describe(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	const struct ext_priv *p = n->priv;

	if (p == NULL || p->sig == NULL)
		return;
	gp_buf_printf(b, "%s(", p->symbol);
	for (int k = 0; k < n->n_in; k++) {
		const struct gp_type *t = gp_graph_in_type(g, n, k);

		gp_buf_printf(b, "%s%s: ndarray(dtype=%s, shape=",
		    k ? ", " : "", var_name(g, n, k), gp_dtype_name(t->dtype));
		gp_shape_format(b, t->ndim, t->shape);
		gp_buf_puts(b, ")");
	}
	gp_buf_printf(b, ") -> %s [%s, %s]", p->sig, p->lib_name,
	    p->mode == M_KERNEL ? "kernel, ffi_call" :
	    route_names[p->route]);
}

static const struct gp_op op_extern = {
	.name = "extern",
	.cls = "Extern",
	.doc = "extern(x...; lib, symbol, signature, mode, dtype, shape, "
	    "route, flops): a C function from a shared library, per element "
	    "with broadcasting (mode elemwise) or once on whole buffers (mode "
	    "kernel); needs allow_extern; never in place",
	.min_in = 0, .max_in = -1, .n_out = 0,
	.flags = GP_OPF_EXTERN | GP_OPF_NONDET,
	.params = p_extern,
	.prepare = prep_extern,
	.flops = flops_extern,
	.format = fmt_extern,
	.free_priv = free_ext,
	.describe = gp_extern_describe,
};

const struct gp_op *const gp_ops_extern[] = {
	&op_extern,
	NULL,
};
