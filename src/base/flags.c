/*
 * flags.c: the flag table and its parser (see flags.h).
 */
#include "config.h"

#include "base/flags.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const optimizer_choices[] = {"fast_run", "fast_compile",
	"None", NULL};

#define OFF(f) offsetof(struct gp_flags, f)

const struct gp_flag_info gp_flag_table[] = {
	{.name = "profile", .type = GP_FLAG_BOOL, .offset = OFF(profile),
	    .def = "True", .help = "time every apply and print the profile"},
	{.name = "profile_memory", .type = GP_FLAG_BOOL,
	    .offset = OFF(profile_memory), .def = "False",
	    .help = "add the memory profile section"},
	{.name = "profile_optimizer", .type = GP_FLAG_BOOL,
	    .offset = OFF(profile_optimizer), .def = "False",
	    .help = "add the rewriter profile section"},
	{.name = "profiling__n_apply", .type = GP_FLAG_INT,
	    .offset = OFF(n_apply), .def = "20", .min = 0,
	    .help = "rows of the Apply and memory tables"},
	{.name = "profiling__n_ops", .type = GP_FLAG_INT,
	    .offset = OFF(n_ops), .def = "20", .min = 0,
	    .help = "rows of the Class and Ops tables"},
	{.name = "profiling__min_memory_size", .type = GP_FLAG_INT,
	    .offset = OFF(min_memory_size), .def = "1024", .min = 0,
	    .help = "bytes: the memory table stops below this"},
	{.name = "profiling__min_peak_memory", .type = GP_FLAG_BOOL,
	    .offset = OFF(min_peak_memory), .def = "False",
	    .help = "search the order of applies with the smallest peak"},
	{.name = "profiling__min_peak_budget_ms", .type = GP_FLAG_INT,
	    .offset = OFF(min_peak_budget_ms), .def = "1000", .min = 1,
	    .help = "time budget of that search per function"},
	{.name = "profiling__min_peak_max_states", .type = GP_FLAG_INT,
	    .offset = OFF(min_peak_max_states), .def = "2000000", .min = 1,
	    .help = "state budget of that search per function"},
	{.name = "profiling__output_line_width", .type = GP_FLAG_INT,
	    .offset = OFF(output_line_width), .def = "512", .min = 40,
	    .help = "width of report lines (names are cut to fit)"},
	{.name = "profiling__ignore_first_call", .type = GP_FLAG_BOOL,
	    .offset = OFF(ignore_first_call), .def = "False",
	    .help = "leave the first call out of the totals"},
	{.name = "profiling__sample", .type = GP_FLAG_INT,
	    .offset = OFF(sample), .def = "0", .min = 0,
	    .help = "time the applies of 1 call in N (0: every call unless "
	    "the probes would cost over 2% of a call)"},
	{.name = "profiling__destination", .type = GP_FLAG_STRING,
	    .offset = OFF(destination), .def = "stdout",
	    .help = "where the report goes: stdout, stderr or a file"},
	{.name = "allow_gc", .type = GP_FLAG_BOOL, .offset = OFF(allow_gc),
	    .def = "True", .help = "free intermediates after their last use"},
	{.name = "optimizer", .type = GP_FLAG_STRING,
	    .offset = OFF(optimizer), .def = "fast_run",
	    .choices = optimizer_choices,
	    .help = "rewrite set: fast_run, fast_compile or None"},
	{.name = "optimizer_excluding", .type = GP_FLAG_STRING,
	    .offset = OFF(optimizer_excluding), .def = "",
	    .help = "rewriter names or tags to leave out, ':'-separated"},
	{.name = "optimizer_including", .type = GP_FLAG_STRING,
	    .offset = OFF(optimizer_including), .def = "",
	    .help = "rewriter names or tags to add, ':'-separated"},
	{.name = "optimizer_requiring", .type = GP_FLAG_STRING,
	    .offset = OFF(optimizer_requiring), .def = "",
	    .help = "rewriter names or tags that must run, ':'-separated"},
	{.name = "jit", .type = GP_FLAG_BOOL, .offset = OFF(jit),
	    .def = "True", .help = "compile fused loops with the C compiler"},
	{.name = "allow_extern", .type = GP_FLAG_BOOL,
	    .offset = OFF(allow_extern), .def = "False",
	    .help = "allow extern ops (they run native code from libraries)"},
	{.name = "memory_limit", .type = GP_FLAG_INT,
	    .offset = OFF(memory_limit), .def = "0", .min = 0,
	    .help = "bytes: largest tensor allowed (0: half of RAM)"},
	{.name = "onnx__dims", .type = GP_FLAG_STRING,
	    .offset = OFF(onnx_dims), .def = "",
	    .help = "an ONNX model's symbolic dims, NAME=VALUE, "
	    "':'-separated (--dim)"},
	{.name = "onnx__inputs", .type = GP_FLAG_STRING,
	    .offset = OFF(onnx_inputs), .def = "",
	    .help = "an ONNX model's input values, NAME=FILE (.npy or .pb), "
	    "':'-separated (--input)"},
};

const size_t gp_flag_count = sizeof(gp_flag_table) / sizeof(gp_flag_table[0]);

static const struct gp_flag_info *
find(const char *name, size_t len)
{
	for (size_t i = 0; i < gp_flag_count; i++)
		if (strlen(gp_flag_table[i].name) == len &&
		    strncmp(gp_flag_table[i].name, name, len) == 0)
			return (&gp_flag_table[i]);
	return (NULL);
}

/* Text from the user as it goes into a message: control and non-ASCII
 * bytes as \xNN (so the message stays one printable line), cut after
 * SHOW_MAX bytes with "...".  Returns out. */
#define SHOW_MAX 64
static char *
show(const char *s, size_t n, char out[4 * SHOW_MAX + 4])
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;

	for (size_t i = 0; i < n && s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == SHOW_MAX) {
			memcpy(out + k, "...", 3);
			k += 3;
			break;
		}
		if (c < 0x20 || c >= 0x7f || c == '\\') {
			out[k++] = '\\';
			out[k++] = 'x';
			out[k++] = hex[c >> 4];
			out[k++] = hex[c & 15];
		} else
			out[k++] = (char)c;
	}
	out[k] = '\0';
	return (out);
}

static int
set_one(struct gp_flags *f, const struct gp_flag_info *fi, const char *val,
    const char *origin, struct gp_err *err)
{
	char *p = (char *)f + fi->offset;
	char sv[4 * SHOW_MAX + 4];

	switch (fi->type) {
	case GP_FLAG_BOOL:
		if (strcasecmp(val, "true") == 0 || strcmp(val, "1") == 0)
			*(bool *)p = true;
		else if (strcasecmp(val, "false") == 0 || strcmp(val, "0") == 0)
			*(bool *)p = false;
		else
			return (gp_err_set(err, "%s: flag %s: '%s' is not a "
			    "boolean (expected True or False)", origin,
			    fi->name, show(val, SIZE_MAX, sv)));
		return (0);
	case GP_FLAG_INT: {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(val, &end, 10);
		if (*val != '\0' && *end == '\0' && errno == ERANGE)
			return (gp_err_set(err, "%s: flag %s: %s is too %s "
			    "(%s %lld)", origin, fi->name,
			    show(val, SIZE_MAX, sv), v < 0 ? "small" :
			    "large", v < 0 ? "at least" : "at most",
			    v < 0 ? (long long)fi->min : LLONG_MAX));
		if (*val == '\0' || *end != '\0' || errno != 0)
			return (gp_err_set(err, "%s: flag %s: '%s' is not an "
			    "integer", origin, fi->name,
			    show(val, SIZE_MAX, sv)));
		if (v < fi->min)
			return (gp_err_set(err, "%s: flag %s: %lld is too "
			    "small (at least %lld)", origin, fi->name, v,
			    (long long)fi->min));
		*(int64_t *)p = v;
		return (0);
	}
	case GP_FLAG_STRING:
		for (const char *c = val; *c != '\0'; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return (gp_err_set(err, "%s: flag %s: '%s' "
				    "holds a control character (expected "
				    "printable text)", origin, fi->name,
				    show(val, SIZE_MAX, sv)));
		if (fi->choices != NULL) {
			bool ok = false;

			for (const char *const *c = fi->choices; *c; c++)
				if (strcmp(*c, val) == 0)
					ok = true;
			if (!ok) {
				struct gp_buf b = {0};

				for (const char *const *c = fi->choices; *c;
				    c++)
					gp_buf_printf(&b, "%s%s",
					    b.len ? ", " : "", *c);
				gp_err_set(err, "%s: flag %s: '%s' is not "
				    "valid (expected one of %s)", origin,
				    fi->name, show(val, SIZE_MAX, sv),
				    gp_buf_str(&b));
				gp_buf_free(&b);
				return (-1);
			}
		}
		free(*(char **)p);
		*(char **)p = gp_xstrdup(val);
		return (0);
	}
	return (-1);
}

void
gp_flags_init(struct gp_flags *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < gp_flag_count; i++)
		(void)set_one(f, &gp_flag_table[i], gp_flag_table[i].def, "",
		    NULL);
}

void
gp_flags_done(struct gp_flags *f)
{
	for (size_t i = 0; i < gp_flag_count; i++)
		if (gp_flag_table[i].type == GP_FLAG_STRING) {
			char **p = (char **)((char *)f +
			    gp_flag_table[i].offset);

			free(*p);
			*p = NULL;
		}
}

int
gp_flags_parse(struct gp_flags *f, const char *s, const char *origin,
    struct gp_err *err)
{
	const char *p = s;

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, ',');
		const char *eq;
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *item = gp_xmalloc(len + 1);
		const struct gp_flag_info *fi;
		char sv[4 * SHOW_MAX + 4];
		int rc;

		memcpy(item, p, len);
		item[len] = '\0';
		p = end ? end + 1 : NULL;
		if (len == 0) {
			free(item);
			continue;
		}
		eq = strchr(item, '=');
		if (eq == NULL) {
			gp_err_set(err, "%s: '%s' is not name=value (see "
			    "gptop --flags help)", origin,
			    show(item, SIZE_MAX, sv));
			free(item);
			return (-1);
		}
		fi = find(item, (size_t)(eq - item));
		if (fi == NULL) {
			struct gp_buf b = {0};

			for (size_t i = 0; i < gp_flag_count; i++)
				gp_buf_printf(&b, "%s%s", i ? ", " : "",
				    gp_flag_table[i].name);
			gp_err_set(err, "%s: unknown flag '%s' (valid: %s)",
			    origin, show(item, (size_t)(eq - item), sv),
			    gp_buf_str(&b));
			gp_buf_free(&b);
			free(item);
			return (-1);
		}
		rc = set_one(f, fi, eq + 1, origin, err);
		free(item);
		if (rc < 0)
			return (-1);
	}
	return (0);
}

static void
format_value(const struct gp_flags *f, const struct gp_flag_info *fi,
    struct gp_buf *b)
{
	const char *p = (const char *)f + fi->offset;

	switch (fi->type) {
	case GP_FLAG_BOOL:
		gp_buf_puts(b, *(const bool *)p ? "True" : "False");
		break;
	case GP_FLAG_INT:
		gp_buf_printf(b, "%lld", (long long)*(const int64_t *)p);
		break;
	case GP_FLAG_STRING:
		gp_buf_puts(b, *(char *const *)p ? *(char *const *)p : "");
		break;
	}
}

char *
gp_flags_string(const struct gp_flags *f)
{
	struct gp_buf b = {0}, v = {0};

	for (size_t i = 0; i < gp_flag_count; i++) {
		gp_buf_clear(&v);
		format_value(f, &gp_flag_table[i], &v);
		if (strcmp(gp_buf_str(&v), gp_flag_table[i].def) == 0)
			continue;
		gp_buf_printf(&b, "%s%s=%s", b.len ? "," : "",
		    gp_flag_table[i].name, gp_buf_str(&v));
	}
	gp_buf_free(&v);
	if (b.s == NULL)
		return (gp_xstrdup(""));
	return (b.s);
}

void
gp_flags_print_help(FILE *fp)
{
	fprintf(fp, "gptop flags (GPTOP_FLAGS=name=value,... or "
	    "--flags name=value,...):\n\n");
	for (size_t i = 0; i < gp_flag_count; i++) {
		const struct gp_flag_info *fi = &gp_flag_table[i];

		fprintf(fp, "  %-32s %s (default: %s)\n", fi->name, fi->help,
		    fi->def[0] ? fi->def : "\"\"");
	}
}
