/*
 * flags.h: gptop's configuration flags, Theano-style.  GPTOP_FLAGS (like
 * THEANO_FLAGS) and --flags hold comma-separated name=value pairs; the
 * command line is applied after the environment, so it wins.  Each flag is
 * an entry in one table: name, type, default, meaning.
 */
#ifndef GPTOP_SRC_FLAGS_H
#define GPTOP_SRC_FLAGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/util.h"

struct gp_flags {
	bool	 profile;
	bool	 profile_memory;
	bool	 profile_optimizer;
	int64_t	 n_apply;		/* profiling__n_apply */
	int64_t	 n_ops;			/* profiling__n_ops */
	int64_t	 min_memory_size;	/* profiling__min_memory_size */
	bool	 min_peak_memory;	/* profiling__min_peak_memory */
	int64_t	 min_peak_budget_ms;	/* profiling__min_peak_budget_ms */
	int64_t	 min_peak_max_states;	/* profiling__min_peak_max_states */
	int64_t	 output_line_width;	/* profiling__output_line_width */
	bool	 ignore_first_call;	/* profiling__ignore_first_call */
	int64_t	 sample;		/* profiling__sample */
	char	*destination;		/* profiling__destination */
	bool	 allow_gc;
	char	*optimizer;		/* fast_run, fast_compile, None */
	char	*optimizer_excluding;
	char	*optimizer_including;
	char	*optimizer_requiring;
	bool	 jit;
	bool	 allow_extern;
	int64_t	 memory_limit;		/* bytes, 0: half of physical memory */
	char	*onnx_dims;		/* onnx__dims: "batch=8:seq=4" */
	char	*onnx_inputs;		/* onnx__inputs: "x=x.npy:y=y.pb" */
};

enum gp_flag_type {
	GP_FLAG_BOOL,
	GP_FLAG_INT,
	GP_FLAG_STRING
};

struct gp_flag_info {
	const char		*name;
	enum gp_flag_type	 type;
	size_t			 offset;
	const char		*def;	/* default, as written in a flag string */
	const char		*help;
	const char *const	*choices;	/* strings: allowed values, or NULL */
	int64_t			 min;	/* ints: smallest allowed */
};

extern const struct gp_flag_info gp_flag_table[];
extern const size_t gp_flag_count;

/* Set every flag to its default. */
void	gp_flags_init(struct gp_flags *f);
void	gp_flags_done(struct gp_flags *f);
/* Apply "name=value,name=value"; origin ("GPTOP_FLAGS", "--flags") names
 * the source in error messages. */
int	gp_flags_parse(struct gp_flags *f, const char *s, const char *origin,
	    struct gp_err *err);
/* The flags that differ from their defaults, as a flag string. */
char	*gp_flags_string(const struct gp_flags *f);
/* `gptop --flags help`: every flag with its default and meaning. */
void	gp_flags_print_help(FILE *fp);

#endif
