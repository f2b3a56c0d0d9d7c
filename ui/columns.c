/*
 * columns.c: the column table and the views' column sets (see
 * columns.h).  Formats follow the batch report: times through
 * gp_fmt_time, percentages with one decimal, flops as Mflops per
 * execution and Gflops/s over all executions.
 */
#include "config.h"

#include "columns.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "crt.h"
#include "base/fmt.h"
#include "graph/tensor.h"

#define ROW(r)	((const struct gp_prof_row *)(r))
#define MEM(r)	((const struct ui_mem_row *)(r))
#define DIFF(r)	((const struct gp_diff_row *)(r))
#define RW(r)	((const struct ui_rw_row *)(r))

static void
fmt_count(char *buf, size_t n, double v)
{
	if (v < 1e7)
		snprintf(buf, n, "%.0f", v);
	else if (v < 1e10)
		snprintf(buf, n, "%.1fM", v / 1e6);
	else
		snprintf(buf, n, "%.1fG", v / 1e9);
}

static void
fmt_flops(char *buf, size_t n, double v)
{
	if (v <= 0)
		buf[0] = '\0';
	else if (v < 1e4)
		snprintf(buf, n, "%.3f", v);
	else
		snprintf(buf, n, "%.0f", v);
}

/* rollup rows */

static const char *
r_from(const void *r)
{
	return (ROW(r)->from);
}

static void
f_from(const void *r, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ROW(r)->from);
}

static double
r_pct(const void *r)
{
	return (ROW(r)->pct);
}

static double
r_time(const void *r)
{
	return (ROW(r)->time_ns);
}

static double
r_per_call(const void *r)
{
	return (ROW(r)->per_call_ns);
}

static double
r_median(const void *r)
{
	return (ROW(r)->median_ns);
}

static double
r_p95(const void *r)
{
	return (ROW(r)->p95_ns);
}

static double
r_calls(const void *r)
{
	return ((double)ROW(r)->calls);
}

static double
r_napply(const void *r)
{
	return (ROW(r)->n_apply);
}

static double
r_mflops(const void *r)
{
	return (ROW(r)->flops);
}

static double
r_gflops(const void *r)
{
	return (ROW(r)->gflops);
}

static const char *
r_type(const void *r)
{
	return (ROW(r)->type);
}

static const char *
r_name(const void *r)
{
	return (ROW(r)->name);
}


static double
r_id(const void *r)
{
	return ((double)ROW(r)->fn * 1e9 + ROW(r)->id);
}

static void
f_pct(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%.1f%%", ROW(r)->pct);
}

static void
f_time(const void *r, char *b, size_t n)
{
	gp_fmt_time(b, n, ROW(r)->time_ns);
}

static void
f_per_call(const void *r, char *b, size_t n)
{
	gp_fmt_time(b, n, ROW(r)->per_call_ns);
}

static void
f_median(const void *r, char *b, size_t n)
{
	gp_fmt_time(b, n, ROW(r)->median_ns);
}

static void
f_p95(const void *r, char *b, size_t n)
{
	gp_fmt_time(b, n, ROW(r)->p95_ns);
}

static void
f_type(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", ROW(r)->type);
}

static void
f_calls(const void *r, char *b, size_t n)
{
	fmt_count(b, n, (double)ROW(r)->calls);
}

static void
f_napply(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%d", ROW(r)->n_apply);
}

static void
f_id(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%d", ROW(r)->id);
}

static void
f_mflops(const void *r, char *b, size_t n)
{
	fmt_flops(b, n, ROW(r)->flops / 1e6);
}

static void
f_gflops(const void *r, char *b, size_t n)
{
	fmt_flops(b, n, ROW(r)->gflops);
}

static void
f_name(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", ROW(r)->name);
}

static uint64_t
id_name(const void *r)
{
	const char *s = ROW(r)->name;

	return (gp_hash_bytes(GP_HASH_INIT, s, strlen(s)));
}

static uint64_t
id_apply(const void *r)
{
	return ((uint64_t)(uint32_t)ROW(r)->fn << 32 |
	    (uint32_t)ROW(r)->id);
}

/* memory rows */

static double
m_bytes(const void *r)
{
	return ((double)MEM(r)->bytes);
}

static double
m_nout(const void *r)
{
	return (MEM(r)->a->n_out);
}

static const char *
m_kind(const void *r)
{
	return (MEM(r)->kinds);
}

static const char *
m_name(const void *r)
{
	return (MEM(r)->a->name);
}


static double
m_id(const void *r)
{
	return ((double)MEM(r)->fn * 1e9 + MEM(r)->a->id);
}

static void
f_m_bytes(const void *r, char *b, size_t n)
{
	gp_fmt_bytes(b, n, (double)MEM(r)->bytes);
}

static void
f_m_kind(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", MEM(r)->kinds);
}

static void
f_m_nout(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%d", MEM(r)->a->n_out);
}

static double
m_alloc(const void *r)
{
	return ((double)MEM(r)->alloc);
}

static double
m_work(const void *r)
{
	return ((double)MEM(r)->work);
}

static double
m_during(const void *r)
{
	return ((double)MEM(r)->during);
}

static double
m_after(const void *r)
{
	return ((double)MEM(r)->after);
}

static void
fmt_predicted(const void *r, char *b, size_t n, uint64_t v)
{
	if (MEM(r)->predicted)
		gp_fmt_bytes(b, n, (double)v);
	else
		b[0] = '\0';
}

static void
f_m_alloc(const void *r, char *b, size_t n)
{
	fmt_predicted(r, b, n, MEM(r)->alloc);
}

static void
f_m_work(const void *r, char *b, size_t n)
{
	if (MEM(r)->predicted && MEM(r)->work == 0)
		snprintf(b, n, "-");
	else
		fmt_predicted(r, b, n, MEM(r)->work);
}

static void
f_m_during(const void *r, char *b, size_t n)
{
	fmt_predicted(r, b, n, MEM(r)->during);
}

static void
f_m_after(const void *r, char *b, size_t n)
{
	fmt_predicted(r, b, n, MEM(r)->after);
}

static void
f_m_outputs(const void *r, char *b, size_t n)
{
	const struct gp_prof_apply *a = MEM(r)->a;
	struct gp_buf s = {0};

	for (int k = 0; k < a->n_out; k++) {
		gp_buf_printf(&s, "%s%s", k ? ", " : "",
		    gp_dtype_name(a->out[k].dtype));
		gp_shape_format(&s, a->out[k].ndim, a->out[k].shape);
	}
	snprintf(b, n, "%s", gp_buf_str(&s));
	gp_buf_free(&s);
}

static void
f_m_id(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%d", MEM(r)->a->id);
}

static void
f_m_name(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", MEM(r)->a->name);
}

static uint64_t
id_mem(const void *r)
{
	return ((uint64_t)(uint32_t)MEM(r)->fn << 32 |
	    (uint32_t)MEM(r)->a->id);
}

/* diff rows: struct gp_diff_row.  A row standing for a member of an
 * expanded group sorts as its group row (KEY), so it stays under it. */
#define KEY(r)	(DIFF(r)->parent != NULL ? DIFF(r)->parent : DIFF(r))

static double
d_a(const void *r)
{
	return (KEY(r)->time_a);
}

static double
d_b(const void *r)
{
	return (KEY(r)->time_b);
}

static double
d_absdelta(const void *r)
{
	return (fabs(KEY(r)->delta));
}

/* NAN (both sides 0) sorts as 0; added rows (INFINITY) first */
static double
d_ratio(const void *r)
{
	return (isnan(KEY(r)->ratio) ? 0 : KEY(r)->ratio);
}

static double
d_calls_a(const void *r)
{
	return ((double)KEY(r)->calls_a);
}

static double
d_calls_b(const void *r)
{
	return ((double)KEY(r)->calls_b);
}

static const char *
d_name(const void *r)
{
	return (KEY(r)->name);
}

static const char *
d_status(const void *r)
{
	return (gp_diff_mark(KEY(r)));
}

static void
f_d_status(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", gp_diff_mark(DIFF(r)));
}

static void
f_d_a(const void *r, char *b, size_t n)
{
	if (DIFF(r)->kind == GP_DIFF_ADDED)
		snprintf(b, n, "-");
	else
		gp_fmt_time(b, n, DIFF(r)->time_a);
}

static void
f_d_b(const void *r, char *b, size_t n)
{
	if (DIFF(r)->kind == GP_DIFF_REMOVED)
		snprintf(b, n, "-");
	else
		gp_fmt_time(b, n, DIFF(r)->time_b);
}

static void
f_d_delta(const void *r, char *b, size_t n)
{
	double d = DIFF(r)->delta;

	b[0] = d < 0 ? '-' : '+';
	gp_fmt_time(b + 1, n - 1, fabs(d));
}

static void
f_d_ratio(const void *r, char *b, size_t n)
{
	double x = DIFF(r)->ratio;

	if (DIFF(r)->kind != GP_DIFF_PAIRED || !isfinite(x) || x <= 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "x%.2f", x);
}

static void
f_d_calls_a(const void *r, char *b, size_t n)
{
	fmt_count(b, n, (double)DIFF(r)->calls_a);
}

static void
f_d_calls_b(const void *r, char *b, size_t n)
{
	fmt_count(b, n, (double)DIFF(r)->calls_b);
}

static void
f_d_name(const void *r, char *b, size_t n)
{
	const struct gp_diff_row *d = DIFF(r);

	if (d->name_a != NULL)
		snprintf(b, n, "%s (A: %s)", d->name, d->name_a);
	else
		snprintf(b, n, "%s", d->name);
}

/* The noise verdict's colour: only changes beyond noise stand out. */
static int
d_role(const void *r)
{
	switch (DIFF(r)->verdict) {
	case GP_VERDICT_SLOWER:
		return (UI_ROLE_WORSE);
	case GP_VERDICT_FASTER:
		return (UI_ROLE_BETTER);
	case GP_VERDICT_ONLY:
		return (DIFF(r)->kind == GP_DIFF_ADDED ? UI_ROLE_WORSE :
		    UI_ROLE_BETTER);
	default:
		return (-1);
	}
}

/* The name, the side(s) and, for applies, their positions: apply names
 * may repeat across functions. */
static uint64_t
id_diff(const void *r)
{
	const struct gp_diff_row *d = DIFF(r);
	uint64_t h = gp_hash_bytes(GP_HASH_INIT, d->name, strlen(d->name));
	int32_t k[5] = {(int32_t)d->kind, d->fn_a, d->id_a, d->fn_b, d->id_b};

	return (gp_hash_bytes(h, k, sizeof(k)));
}

enum gp_diff_col
ui_colset_diff_col(enum ui_col c)
{
	switch (c) {
	case UI_COL_DIFF_STATUS:
		return (GP_DIFF_COL_KIND);
	case UI_COL_DIFF_A:
		return (GP_DIFF_COL_TIME_A);
	case UI_COL_DIFF_B:
		return (GP_DIFF_COL_TIME_B);
	case UI_COL_DIFF_RATIO:
		return (GP_DIFF_COL_RATIO);
	case UI_COL_DIFF_CALLS_A:
		return (GP_DIFF_COL_CALLS_A);
	case UI_COL_DIFF_CALLS_B:
		return (GP_DIFF_COL_CALLS_B);
	case UI_COL_DIFF_NAME:
		return (GP_DIFF_COL_NAME);
	default:
		return (GP_DIFF_COL_ABS_DELTA);
	}
}

/* rewriter rows */

static const char *
w_name(const void *r)
{
	return (RW(r)->name);
}


static void
f_w_state(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", RW(r)->on ? "[x]" : "[ ]");
}

static void
f_w_key(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", RW(r)->key);
}

static void
f_w_name(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", RW(r)->name);
}

static void
f_w_next(const void *r, char *b, size_t n)
{
	if (RW(r)->on == RW(r)->running_on)
		snprintf(b, n, "%s", RW(r)->on ? "on" : "off");
	else
		snprintf(b, n, "%s (r)", RW(r)->on ? "on" : "off");
}

static int
w_role(const void *r)
{
	return (RW(r)->on != RW(r)->running_on ? UI_ROLE_MSG : -1);
}

static double
w_time(const void *r)
{
	return (RW(r)->time_ns);
}

static double
w_applied(const void *r)
{
	return (RW(r)->applied);
}

static double
w_tried(const void *r)
{
	return (RW(r)->tried);
}

static double
w_nodes(const void *r)
{
	return (RW(r)->nodes_after - RW(r)->nodes_before);
}

static const char *
w_phase(const void *r)
{
	return (RW(r)->phase);
}

static const char *
w_tags(const void *r)
{
	return (RW(r)->tags);
}

static void
f_w_phase(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", RW(r)->phase);
}

static void
f_w_time(const void *r, char *b, size_t n)
{
	if (RW(r)->has_stats)
		gp_fmt_time(b, n, RW(r)->time_ns);
	else
		b[0] = '\0';
}

static void
f_w_applied(const void *r, char *b, size_t n)
{
	if (RW(r)->has_stats)
		snprintf(b, n, "%d", RW(r)->applied);
	else
		b[0] = '\0';
}

static void
f_w_tried(const void *r, char *b, size_t n)
{
	if (RW(r)->has_stats)
		snprintf(b, n, "%d", RW(r)->tried);
	else
		b[0] = '\0';
}

static void
f_w_nodes(const void *r, char *b, size_t n)
{
	if (RW(r)->has_stats && RW(r)->applied > 0)
		snprintf(b, n, "%d->%d", RW(r)->nodes_before,
		    RW(r)->nodes_after);
	else
		b[0] = '\0';
}

static void
f_w_tags(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", RW(r)->tags);
}

static void
f_w_help(const void *r, char *b, size_t n)
{
	snprintf(b, n, "%s", RW(r)->help);
}

static uint64_t
id_rw(const void *r)
{
	const char *s = RW(r)->name;

	return (gp_hash_bytes(GP_HASH_INIT, s, strlen(s)));
}

const struct ui_column ui_columns[UI_COL__COUNT] = {
	[UI_COL_PCT] = {.title = "%time", .width = 6, .prio = 90,
	    .help = "share of the time in thunks (the table's total)",
	    .num = r_pct, .fmt = f_pct},
	[UI_COL_SUM] = {.title = "sum%", .width = 6, .prio = 40,
	    .flags = UI_COLF_CUM,
	    .help = "running sum of %time down the rows shown",
	    .num = r_pct, .fmt = f_pct},
	[UI_COL_SHARE] = {.title = "share", .width = 8, .prio = 50,
	    .flags = UI_COLF_BAR,
	    .help = "a bar of the row's share of the time",
	    .num = r_pct, .fmt = f_pct},
	[UI_COL_TIME] = {.title = "time", .width = 8, .prio = 85,
	    .help = "apply time: total over every execution",
	    .num = r_time, .fmt = f_time},
	[UI_COL_PER_CALL] = {.title = "per call", .width = 8, .prio = 80,
	    .help = "mean time per execution",
	    .num = r_per_call, .fmt = f_per_call},
	[UI_COL_MEDIAN] = {.title = "median", .width = 8, .prio = 45,
	    .help = "median time per execution",
	    .num = r_median, .fmt = f_median},
	[UI_COL_P95] = {.title = "p95", .width = 8, .prio = 44,
	    .help = "95th percentile of the time per execution",
	    .num = r_p95, .fmt = f_p95},
	[UI_COL_TYPE] = {.title = "type", .width = 6, .prio = 30,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC,
	    .help = "implementation: C, BLAS, JIT, Interp, Extern, View",
	    .str = r_type, .fmt = f_type},
	[UI_COL_CALLS] = {.title = "#call", .width = 8, .prio = 70,
	    .help = "executions",
	    .num = r_calls, .fmt = f_calls},
	[UI_COL_NAPPLY] = {.title = "#apply", .width = 6, .prio = 60,
	    .help = "apply nodes in the row",
	    .num = r_napply, .fmt = f_napply},
	[UI_COL_ID] = {.title = "id", .width = 6, .prio = 60,
	    .flags = UI_COLF_ASC,
	    .help = "position of the apply in its function's schedule",
	    .num = r_id, .fmt = f_id},
	[UI_COL_MFLOPS] = {.title = "Mflops", .width = 8, .prio = 20,
	    .help = "floating-point operations per execution, millions",
	    .num = r_mflops, .fmt = f_mflops},
	[UI_COL_GFLOPS] = {.title = "Gflops/s", .width = 8, .prio = 21,
	    .help = "flops per execution x executions / time",
	    .num = r_gflops, .fmt = f_gflops},
	[UI_COL_CLASS] = {.title = "Class name", .width = 24, .prio = 100,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC | UI_COLF_FLEX,
	    .help = "the op class", .str = r_name, .fmt = f_name},
	[UI_COL_OP] = {.title = "Op name", .width = 24, .prio = 100,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC | UI_COLF_FLEX,
	    .help = "the op with its parameters (and input signature "
	    "with s)", .str = r_name, .fmt = f_name},
	[UI_COL_FROM] = {.title = "from", .width = 12, .prio = 5,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC,
	    .help = "the source nodes of the graph file whose work the "
	    "apply does: the first one's name (#INDEX when unnamed), +N more",
	    .str = r_from, .fmt = f_from},
	[UI_COL_APPLY] = {.title = "Apply name", .width = 24, .prio = 100,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC | UI_COLF_FLEX,
	    .help = "the apply: op(inputs); 'function: ' first when all "
	    "functions are summed", .str = r_name, .fmt = f_name},

	[UI_COL_MEM_BYTES] = {.title = "out bytes", .width = 9, .prio = 90,
	    .help = "bytes of the apply's outputs, summed",
	    .num = m_bytes, .fmt = f_m_bytes},
	[UI_COL_MEM_KIND] = {.title = "c/v/i", .width = 5, .prio = 80,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC,
	    .help = "per output: c created, v a view, i inplace",
	    .str = m_kind, .fmt = f_m_kind},
	[UI_COL_MEM_NOUT] = {.title = "#out", .width = 4, .prio = 30,
	    .help = "outputs", .num = m_nout, .fmt = f_m_nout},
	[UI_COL_MEM_ALLOC] = {.title = "allocated", .width = 9, .prio = 70,
	    .help = "of those bytes, what the VM allocates (not views or "
	    "inplace)", .num = m_alloc, .fmt = f_m_alloc},
	[UI_COL_MEM_WORK] = {.title = "scratch", .width = 9, .prio = 56,
	    .help = "work space its kernel takes while it runs (im2col "
	    "matrices, per-channel factors): in the predicted peak, not in "
	    "the intermediates", .num = m_work, .fmt = f_m_work},
	[UI_COL_MEM_DURING] = {.title = "during", .width = 9, .prio = 55,
	    .help = "intermediates alive while it runs (one call, predicted "
	    "from the schedule)", .num = m_during, .fmt = f_m_during},
	[UI_COL_MEM_AFTER] = {.title = "after", .width = 9, .prio = 54,
	    .help = "intermediates alive after it (sort by id: the memory "
	    "timeline in program order)", .num = m_after, .fmt = f_m_after},
	[UI_COL_MEM_OUTPUTS] = {.title = "outputs", .width = 22,
	    .prio = 50, .flags = UI_COLF_LEFT | UI_COLF_NOSORT,
	    .help = "dtype and shape of each output", .fmt = f_m_outputs},
	[UI_COL_MEM_ID] = {.title = "id", .width = 6, .prio = 60,
	    .flags = UI_COLF_ASC,
	    .help = "position of the apply in its function's schedule",
	    .num = m_id, .fmt = f_m_id},
	[UI_COL_MEM_APPLY] = {.title = "Apply name", .width = 24,
	    .prio = 100, .flags = UI_COLF_LEFT | UI_COLF_ASC | UI_COLF_FLEX,
	    .help = "the apply", .str = m_name, .fmt = f_m_name},

	[UI_COL_DIFF_STATUS] = {.title = "status", .width = 7, .prio = 80,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC,
	    .help = "~ within noise, + slower, - faster, ? too few "
	    "runs; added: only in B, removed: only in A",
	    .str = d_status, .fmt = f_d_status, .role = d_role},
	[UI_COL_DIFF_A] = {.title = "time A", .width = 8, .prio = 85,
	    .help = "A (baseline): time per call of the function",
	    .num = d_a, .fmt = f_d_a},
	[UI_COL_DIFF_B] = {.title = "time B", .width = 8, .prio = 85,
	    .help = "B (current): time per call of the function",
	    .num = d_b, .fmt = f_d_b},
	[UI_COL_DIFF_DELTA] = {.title = "delta", .width = 9, .prio = 90,
	    .help = "B - A (sorts by its size)",
	    .num = d_absdelta, .fmt = f_d_delta, .role = d_role},
	[UI_COL_DIFF_RATIO] = {.title = "ratio", .width = 7, .prio = 70,
	    .help = "B / A", .num = d_ratio, .fmt = f_d_ratio,
	    .role = d_role},
	[UI_COL_DIFF_CALLS_A] = {.title = "calls A", .width = 8,
	    .prio = 40, .help = "baseline executions",
	    .num = d_calls_a, .fmt = f_d_calls_a},
	[UI_COL_DIFF_CALLS_B] = {.title = "calls B", .width = 8,
	    .prio = 40, .help = "current executions",
	    .num = d_calls_b, .fmt = f_d_calls_b},
	[UI_COL_DIFF_NAME] = {.title = "name", .width = 16, .prio = 100,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC | UI_COLF_FLEX,
	    .help = "class, op or apply (applies paired by structure)",
	    .str = d_name, .fmt = f_d_name},

	[UI_COL_RW_STATE] = {.title = "on", .width = 4, .prio = 90,
	    .flags = UI_COLF_LEFT | UI_COLF_NOSORT,
	    .help = "in the edited rewrite set", .fmt = f_w_state},
	[UI_COL_RW_KEY] = {.title = "key", .width = 5, .prio = 80,
	    .flags = UI_COLF_LEFT,
	    .help = "the key that switches it (sorting: table order)",
	    .fmt = f_w_key},
	[UI_COL_RW_NAME] = {.title = "rewriter", .width = 18, .prio = 95,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC,
	    .help = "name (or tag) in optimizer_excluding",
	    .str = w_name, .fmt = f_w_name},
	[UI_COL_RW_NEXT] = {.title = "state", .width = 8, .prio = 85,
	    .flags = UI_COLF_LEFT | UI_COLF_NOSORT,
	    .help = "on or off; (r): changed, press r to recompile",
	    .fmt = f_w_next, .role = w_role},
	[UI_COL_RW_PHASE] = {.title = "phase", .width = 12, .prio = 60,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC,
	    .help = "the rewrite phase it runs in", .str = w_phase,
	    .fmt = f_w_phase},
	[UI_COL_RW_TIME] = {.title = "time", .width = 8, .prio = 70,
	    .help = "time it took in the last compile (profile_optimizer)",
	    .num = w_time, .fmt = f_w_time},
	[UI_COL_RW_APPLIED] = {.title = "applied", .width = 7, .prio = 65,
	    .help = "changes it made in the last compile",
	    .num = w_applied, .fmt = f_w_applied},
	[UI_COL_RW_TRIED] = {.title = "tried", .width = 6, .prio = 40,
	    .help = "places it looked at", .num = w_tried,
	    .fmt = f_w_tried},
	[UI_COL_RW_NODES] = {.title = "nodes", .width = 11, .prio = 45,
	    .help = "apply nodes before -> after it, when it changed the "
	    "graph (sorts by the change)", .num = w_nodes, .fmt = f_w_nodes},
	[UI_COL_RW_TAGS] = {.title = "tags", .width = 24, .prio = 20,
	    .flags = UI_COLF_LEFT | UI_COLF_ASC,
	    .help = "its tags (optimizer_excluding takes names or tags)",
	    .str = w_tags, .fmt = f_w_tags},
	[UI_COL_RW_HELP] = {.title = "description", .width = 16,
	    .prio = 100, .flags = UI_COLF_LEFT | UI_COLF_NOSORT |
	    UI_COLF_FLEX, .help = "what it does", .fmt = f_w_help},
};

static const enum ui_col class_cols[] = {UI_COL_PCT, UI_COL_SUM,
	UI_COL_SHARE, UI_COL_TIME, UI_COL_PER_CALL, UI_COL_MEDIAN, UI_COL_P95,
	UI_COL_TYPE, UI_COL_CALLS, UI_COL_NAPPLY, UI_COL_MFLOPS,
	UI_COL_GFLOPS, UI_COL_CLASS};
static const enum ui_col op_cols[] = {UI_COL_PCT, UI_COL_SUM,
	UI_COL_SHARE, UI_COL_TIME, UI_COL_PER_CALL, UI_COL_MEDIAN, UI_COL_P95,
	UI_COL_TYPE, UI_COL_CALLS, UI_COL_NAPPLY, UI_COL_MFLOPS,
	UI_COL_GFLOPS, UI_COL_OP};
static const enum ui_col apply_cols[] = {UI_COL_PCT, UI_COL_SUM,
	UI_COL_SHARE, UI_COL_TIME, UI_COL_PER_CALL, UI_COL_MEDIAN, UI_COL_P95,
	UI_COL_TYPE, UI_COL_CALLS, UI_COL_ID, UI_COL_MFLOPS, UI_COL_GFLOPS,
	UI_COL_FROM, UI_COL_APPLY};
static const enum ui_col memory_cols[] = {UI_COL_MEM_BYTES,
	UI_COL_MEM_KIND, UI_COL_MEM_ALLOC, UI_COL_MEM_WORK, UI_COL_MEM_DURING,
	UI_COL_MEM_AFTER,
	UI_COL_MEM_NOUT, UI_COL_MEM_OUTPUTS, UI_COL_MEM_ID, UI_COL_MEM_APPLY};
static const enum ui_col diff_cols[] = {UI_COL_DIFF_STATUS, UI_COL_DIFF_A,
	UI_COL_DIFF_B, UI_COL_DIFF_DELTA, UI_COL_DIFF_RATIO,
	UI_COL_DIFF_CALLS_A, UI_COL_DIFF_CALLS_B, UI_COL_DIFF_NAME};
static const enum ui_col rewrite_cols[] = {UI_COL_RW_STATE, UI_COL_RW_KEY,
	UI_COL_RW_NAME, UI_COL_RW_NEXT, UI_COL_RW_PHASE, UI_COL_RW_TIME,
	UI_COL_RW_APPLIED, UI_COL_RW_TRIED, UI_COL_RW_NODES, UI_COL_RW_TAGS,
	UI_COL_RW_HELP};

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

const struct ui_colset ui_colset_class = {.name = "Class",
	.cols = class_cols, .n = NCOLS(class_cols), .sort = UI_COL_PCT,
	.name_of = r_name, .ident = id_name};
const struct ui_colset ui_colset_op = {.name = "Ops",
	.cols = op_cols, .n = NCOLS(op_cols), .sort = UI_COL_PCT,
	.name_of = r_name, .ident = id_name};
const struct ui_colset ui_colset_apply = {.name = "Apply",
	.cols = apply_cols, .n = NCOLS(apply_cols), .sort = UI_COL_PCT,
	.name_of = r_name, .ident = id_apply};
const struct ui_colset ui_colset_memory = {.name = "Memory",
	.cols = memory_cols, .n = NCOLS(memory_cols),
	.sort = UI_COL_MEM_BYTES, .name_of = m_name, .ident = id_mem};
const struct ui_colset ui_colset_diff = {.name = "Diff",
	.cols = diff_cols, .n = NCOLS(diff_cols), .sort = UI_COL_DIFF_DELTA,
	.name_of = d_name, .ident = id_diff};
const struct ui_colset ui_colset_rewrites = {.name = "Rewrites",
	.cols = rewrite_cols, .n = NCOLS(rewrite_cols), .sort = UI_COL_RW_KEY,
	.name_of = w_name, .ident = id_rw};

int
ui_colset_find(const struct ui_colset *set, enum ui_col c)
{
	for (int k = 0; k < set->n; k++)
		if (set->cols[k] == c)
			return (k);
	return (-1);
}
