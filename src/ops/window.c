/*
 * ops/window.c: the sliding-window geometry of convolutions and pools:
 * their params in ONNX's attribute forms and the output size they give
 * (ONNX's formulas; ceil_mode with PyTorch's rule that a window must start
 * inside the input or its begin pad).
 */
#include "config.h"

#include "ops/window.h"

#include <string.h>

/* Sizes and params stay far below this, so products of a few of them fit
 * int64 and the kernels may index with them freely. */
#define WIN_MAX ((int64_t)1 << 31)

int
gp_win_param_flag(const json_t *params, const char *key, bool def,
    bool *out, struct gp_err *err)
{
	json_t *v = json_object_get(params, key);

	*out = def;
	if (v == NULL)
		return (0);
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return (0);
	}
	if (json_is_integer(v) && (json_integer_value(v) == 0 ||
	    json_integer_value(v) == 1)) {
		*out = json_integer_value(v) == 1;
		return (0);
	}
	return (gp_err_set(err, "param '%s' must be 0, 1, true or false",
	    key));
}

int
gp_win_param_ints(const json_t *params, const char *key, int n,
    int64_t def, int64_t min, int64_t *out, bool *given, struct gp_err *err)
{
	json_t *v = json_object_get(params, key), *e;
	size_t i;

	if (given != NULL)
		*given = false;
	for (int k = 0; k < n; k++)
		out[k] = def;
	if (v == NULL || json_is_null(v))
		return (0);
	if (!json_is_array(v) || json_array_size(v) != (size_t)n)
		return (gp_err_set(err, "param '%s' must be a list of %d "
		    "integer%s (one per spatial dimension%s)", key, n,
		    n == 1 ? "" : "s", strcmp(key, "pads") == 0 ? ", begins "
		    "then ends" : ""));
	json_array_foreach(v, i, e) {
		json_int_t x;

		if (!json_is_integer(e))
			return (gp_err_set(err, "param '%s': entry %zu is not "
			    "an integer", key, i));
		x = json_integer_value(e);
		if (x < min || x >= WIN_MAX)
			return (gp_err_set(err, "param '%s': entry %zu is "
			    "%lld: expected %lld or more (and below 2^31)",
			    key, i, (long long)x, (long long)min));
		out[i] = x;
	}
	if (given != NULL)
		*given = true;
	return (0);
}

static const char *const pad_names[] = {
	[GP_WIN_NOTSET] = "NOTSET",
	[GP_WIN_SAME_UPPER] = "SAME_UPPER",
	[GP_WIN_SAME_LOWER] = "SAME_LOWER",
	[GP_WIN_VALID] = "VALID",
};

int
gp_win_parse(const json_t *params, const char *op, int nsp,
    const int64_t *kdef, bool ceil_ok, struct gp_win *w, struct gp_err *err)
{
	int64_t k[GP_WIN_DIMS], s[GP_WIN_DIMS], d[GP_WIN_DIMS];
	int64_t p[2 * GP_WIN_DIMS];
	int off = GP_WIN_DIMS - nsp;
	json_t *ap = json_object_get(params, "auto_pad");
	bool kgiven, pgiven;

	memset(w, 0, sizeof(*w));
	w->nsp = nsp;
	if (gp_win_param_ints(params, "kernel_shape", nsp, 1, 1, k, &kgiven,
	    err) < 0)
		return (-1);
	if (!kgiven && kdef == NULL)
		return (gp_err_set(err, "%s: param 'kernel_shape' is required "
		    "(a list of %d sizes)", op, nsp));
	if (kgiven && kdef != NULL)
		for (int i = 0; i < nsp; i++)
			if (k[i] != kdef[i])
				return (gp_err_set(err, "%s: kernel_shape[%d] "
				    "is %lld but the weights' kernel is %lld "
				    "there", op, i, (long long)k[i],
				    (long long)kdef[i]));
	if (!kgiven)
		memcpy(k, kdef, sizeof(int64_t) * (size_t)nsp);
	if (gp_win_param_ints(params, "strides", nsp, 1, 1, s, NULL,
	    err) < 0 || gp_win_param_ints(params, "dilations", nsp, 1, 1, d,
	    NULL, err) < 0 || gp_win_param_ints(params, "pads", 2 * nsp, 0,
	    0, p, &pgiven, err) < 0)
		return (-1);
	if (ap != NULL && !json_is_null(ap)) {
		const char *a = json_is_string(ap) ? json_string_value(ap) : "";
		int found = -1;

		for (int i = 0; i < 4; i++)
			if (strcmp(a, pad_names[i]) == 0)
				found = i;
		if (found < 0)
			return (gp_err_set(err, "%s: param 'auto_pad' must be "
			    "\"NOTSET\", \"SAME_UPPER\", \"SAME_LOWER\" or "
			    "\"VALID\"", op));
		w->auto_pad = (enum gp_win_pad)found;
	}
	if (w->auto_pad != GP_WIN_NOTSET && pgiven)
		for (int i = 0; i < 2 * nsp; i++)
			if (p[i] != 0)
				return (gp_err_set(err, "%s: pads and auto_pad "
				    "%s given together: expected one of them",
				    op, pad_names[w->auto_pad]));
	if (ceil_ok && gp_win_param_flag(params, "ceil_mode", false,
	    &w->ceil, err) < 0)
		return (-1);
	for (int i = 0; i < GP_WIN_DIMS; i++) {
		bool sp = i >= off;

		w->k[i] = sp ? k[i - off] : 1;
		w->s[i] = sp ? s[i - off] : 1;
		w->d[i] = sp ? d[i - off] : 1;
		w->pb[i] = sp ? p[i - off] : 0;
		w->pe[i] = sp ? p[i - off + nsp] : 0;
		w->in[i] = w->out[i] = 1;
	}
	return (0);
}

int
gp_win_output(struct gp_win *w, const char *op, const int64_t *in,
    struct gp_err *err)
{
	int off = GP_WIN_DIMS - w->nsp;

	for (int j = 0; j < w->nsp; j++) {
		int i = j + off;
		int64_t span = (w->k[i] - 1) * w->d[i] + 1, o, room;

		w->in[i] = in[j];
		if (w->auto_pad == GP_WIN_SAME_UPPER ||
		    w->auto_pad == GP_WIN_SAME_LOWER) {
			int64_t tot;

			o = (in[j] + w->s[i] - 1) / w->s[i];
			tot = (o - 1) * w->s[i] + span - in[j];
			if (tot < 0)
				tot = 0;
			w->pb[i] = w->auto_pad == GP_WIN_SAME_UPPER ? tot / 2 :
			    tot - tot / 2;
			w->pe[i] = tot - w->pb[i];
			w->out[i] = o;
			if (o < 1)
				return (gp_err_set(err, "%s: spatial dimension "
				    "%d has size 0: expected at least 1", op,
				    j));
			continue;
		}
		if (w->auto_pad == GP_WIN_VALID)
			w->pb[i] = w->pe[i] = 0;
		room = in[j] + w->pb[i] + w->pe[i];
		if (room < span)
			return (gp_err_set(err, "%s: spatial dimension %d: the "
			    "kernel spans %lld (size %lld, dilation %lld) but "
			    "the padded input is %lld (size %lld, pads %lld "
			    "and %lld): expected a kernel no larger than the "
			    "padded input", op, j, (long long)span,
			    (long long)w->k[i], (long long)w->d[i],
			    (long long)room, (long long)in[j],
			    (long long)w->pb[i], (long long)w->pe[i]));
		if (w->ceil && w->auto_pad == GP_WIN_NOTSET) {
			o = (room - span + w->s[i] - 1) / w->s[i] + 1;
			if ((o - 1) * w->s[i] >= in[j] + w->pb[i])
				o--;
		} else
			o = (room - span) / w->s[i] + 1;
		w->out[i] = o;
	}
	return (0);
}

static void
put_dims(struct gp_buf *b, const struct gp_win *w, const int64_t *v)
{
	for (int i = GP_WIN_DIMS - w->nsp; i < GP_WIN_DIMS; i++)
		gp_buf_printf(b, "%s%lld", i > GP_WIN_DIMS - w->nsp ? "x" : "",
		    (long long)v[i]);
}

static bool
all_one(const struct gp_win *w, const int64_t *v)
{
	for (int i = 0; i < GP_WIN_DIMS; i++)
		if (v[i] != 1)
			return (false);
	return (true);
}

void
gp_win_format(const struct gp_win *w, struct gp_buf *b)
{
	bool pads = false;

	put_dims(b, w, w->k);
	if (!all_one(w, w->s)) {
		gp_buf_puts(b, ", strides=");
		put_dims(b, w, w->s);
	}
	if (!all_one(w, w->d)) {
		gp_buf_puts(b, ", dilations=");
		put_dims(b, w, w->d);
	}
	if (w->auto_pad != GP_WIN_NOTSET) {
		gp_buf_printf(b, ", %s", pad_names[w->auto_pad]);
		return;
	}
	for (int i = 0; i < GP_WIN_DIMS; i++)
		pads |= w->pb[i] != 0 || w->pe[i] != 0;
	if (pads) {
		gp_buf_puts(b, ", pads=[");
		for (int i = GP_WIN_DIMS - w->nsp; i < GP_WIN_DIMS; i++)
			gp_buf_printf(b, "%lld, ", (long long)w->pb[i]);
		for (int i = GP_WIN_DIMS - w->nsp; i < GP_WIN_DIMS; i++)
			gp_buf_printf(b, "%lld%s", (long long)w->pe[i],
			    i + 1 < GP_WIN_DIMS ? ", " : "]");
	}
	if (w->ceil)
		gp_buf_puts(b, ", ceil_mode");
}
