/*
 * session.c: load, rewrite, link and run a graph; the worker thread and the
 * published snapshots (see session.h).
 */
#include "config.h"

#include "session/session.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "graph/hash.h"
#include "load/graph-json.h"
#include "capture/export.h"
#include "load/onnx-build.h"
#include "prof/memprof.h"
#include "prof/profile-hook.h"
#include "rewrite/rewrite.h"
#include "run/vm.h"

#define PUBLISH_NS 100000000ull

struct gp_session {
	struct gp_flags		 flags;
	struct gp_graph		*pristine;	/* as loaded */
	struct gp_graph		*g;		/* rewritten, running */
	struct gp_vm		*vm;
	struct gp_profile	*prof;		/* live: worker only */
	/* the worker's recorder of the current program's last timed calls
	 * (capture/export.h, hooked on prof while the worker runs) */
	struct gp_trace		*trace;
	double			 load_ns;
	/* bytes of the storages the session holds (its graphs' values,
	 * the VM's buffers), as the allocator counts them: kept from the
	 * change each step makes on the thread that runs it, because the
	 * allocator's counters are per thread (alloc.h) and the worker's
	 * do not see what the opening thread allocated */
	int64_t			 held_bytes;
	/* the program before the last recompile, kept compiled and run in
	 * alternation with the current one (A, the baseline, and B), or
	 * NULL: worker only */
	struct gp_graph		*base_g;
	struct gp_vm		*base_vm;
	struct gp_profile	*base_prof;
	bool			 base_profile;	/* its flags.profile */
	uint64_t		 ab_rounds;	/* rounds of both since */
	/* of held_bytes, what each program holds (its build's storages and
	 * what its calls kept), so that a program's measured peak leaves
	 * the other's out: cur (the running one) and base */
	int64_t			 cur_bytes, base_bytes;

	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	pthread_t		 th;
	bool			 running;
	atomic_int		 interrupted;	/* set by a signal's handler,
					 * on any thread */
	bool			 stale;	/* gp_session_run ran since the last
					 * publish (no worker: published on
					 * demand) */
	atomic_bool		 pending;	/* a request waits for the worker */
	/* under mu */
	struct gp_profile	*published;
	struct gp_profile	*baseline;
	bool			 paused, quit, reset_req, done;
	struct gp_flags		*recompile_req;
	int			 recompile_rc;
	uint64_t		 recompile_seq, recompile_done;
	char			 recompile_err[GP_ERR_MAX];
	uint64_t		 rounds, limit, recompiles;
	uint64_t		 rate_t0, rate_r0;
	double			 rate;
};

/* The calling thread's live bytes (the allocator's count). */
static int64_t
alloc_live(void)
{
	return (gp_alloc_tls.live);
}

static void
free_base(struct gp_session *s)
{
	gp_vm_free(s->base_vm);
	gp_graph_free(s->base_g);
	gp_profile_free(s->base_prof);
	s->base_vm = NULL;
	s->base_g = NULL;
	s->base_prof = NULL;
}

/* A shared variable of the rewritten g that no call reads or writes (no
 * live apply reads it, no function outputs or updates it: a weight
 * bn_fold replaced by its folded constant) shares the pristine graph's
 * storage of its initial value instead of holding a copy: nothing can
 * change either, and the process holds those bytes once instead of
 * twice.  Returns how many. */
static int
share_idle(const struct gp_graph *pristine, struct gp_graph *g)
{
	bool *busy = gp_xcalloc(g->n_vars + 1, sizeof(bool));
	int n = 0;

	for (size_t i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i].dead)
			for (int k = 0; k < g->nodes[i].n_in; k++)
				busy[g->nodes[i].in[k]] = true;
	for (size_t f = 0; f < g->n_fns; f++) {
		for (int k = 0; k < g->fns[f].n_out; k++)
			busy[g->fns[f].out[k]] = true;
		for (int k = 0; k < g->fns[f].n_upd; k++)
			busy[g->fns[f].upd[k].dst] = busy[g->fns[f].upd[k].src] =
			    true;
	}
	for (size_t v = 0; v < g->n_vars; v++) {
		struct gp_var *var = &g->vars[v];
		int p;

		if (busy[v] || var->kind != GP_VAR_SHARED ||
		    var->value.storage == NULL)
			continue;
		p = gp_graph_find_var(pristine, var->name);
		if (p < 0 || pristine->vars[p].kind != GP_VAR_SHARED ||
		    pristine->vars[p].value.storage == NULL ||
		    !gp_type_equal(&pristine->vars[p].type, &var->type))
			continue;
		gp_tensor_release(&var->value);
		gp_tensor_view(&var->value, &pristine->vars[p].value);
		n++;
	}
	free(busy);
	return (n);
}

/* Rewrite and link g into s (g, vm, prof replaced on success).  keep:
 * the program replaced becomes the baseline program (A), its counters
 * zeroed so that A and B count from the same moment on; else it is
 * freed. */
static int
build(struct gp_session *s, const struct gp_flags *f, bool keep,
    struct gp_err *err)
{
	int64_t live0 = alloc_live(), built;
	struct gp_graph *g = gp_graph_clone(s->pristine);
	struct gp_profile *prof;
	struct gp_vm *vm;
	struct gp_vm_opts vo = {.allow_gc = f->allow_gc};
	struct gp_vm_hook hook;
	struct gp_rewrite_stats rws;
	uint64_t t0, t1, t2;
	int rc;

	prof = gp_profile_new(g);
	t0 = gp_clock_ns();
	rc = gp_rewrite_run(g, f, &rws, err);
	gp_profile_take_rewrites(prof, &rws);
	if (rc < 0) {
		gp_profile_free(prof);
		gp_graph_free(g);
		s->held_bytes += alloc_live() - live0;
		return (-1);
	}
	(void)share_idle(s->pristine, g);
	t1 = gp_clock_ns();
	hook = gp_profile_hook(prof);
	vm = gp_vm_new(g, &vo, &hook, err);
	t2 = gp_clock_ns();
	if (vm == NULL) {
		gp_profile_free(prof);
		gp_graph_free(g);
		s->held_bytes += alloc_live() - live0;
		return (-1);
	}
	{
		struct gp_memprof_opts mo = {
			.min_peak = f->min_peak_memory,
			.budget_ms = f->min_peak_budget_ms,
			.max_states = f->min_peak_max_states,
		};

		/* the pristine graph's values the running one does not
		 * share (its shared variables' initial values) are live
		 * too: the allocator counts them */
		uint64_t ext = gp_memprof_graph_values_apart(s->pristine, g);

		for (int fi = 0; fi < prof->n_fn; fi++) {
			prof->fn[fi].mem = gp_memprof_compute(g, vm, fi, &mo);
			if (prof->fn[fi].mem != NULL)
				prof->fn[fi].mem->external = ext;
		}
	}
	prof->graph_hash = gp_graph_hash(s->pristine);
	prof->load_ns = s->load_ns;
	/* JIT compilation inside the rewrites counts as link time */
	prof->rewrite_ns = (double)(t1 - t0) - prof->link_ns;
	prof->link_ns += (double)(t2 - t1);
	prof->ignore_first = f->ignore_first_call;
	prof->sample = f->sample;
	free(prof->flags);
	prof->flags = gp_flags_string(f);
	built = alloc_live() - live0;
	if (keep) {
		free_base(s);
		s->base_g = s->g;
		s->base_vm = s->vm;
		s->base_prof = s->prof;
		s->base_profile = s->flags.profile;
		s->base_bytes = s->cur_bytes;
		gp_profile_reset(s->base_prof);
		s->ab_rounds = 0;
	} else {
		gp_vm_free(s->vm);
		gp_graph_free(s->g);
		gp_profile_free(s->prof);
	}
	s->g = g;
	s->vm = vm;
	s->prof = prof;
	s->cur_bytes = built;
	s->held_bytes += alloc_live() - live0;
	return (0);
}

static void
copy_flags(struct gp_flags *dst, const struct gp_flags *src)
{
	*dst = *src;
	for (size_t i = 0; i < gp_flag_count; i++)
		if (gp_flag_table[i].type == GP_FLAG_STRING) {
			char **p = (char **)((char *)dst +
			    gp_flag_table[i].offset);

			if (*p != NULL)
				*p = gp_xstrdup(*p);
		}
}

struct gp_session *
gp_session_open(const char *path, const struct gp_flags *flags,
    struct gp_err *err)
{
	struct gp_session *s = gp_xcalloc(1, sizeof(*s));
	struct gp_load_opts lo = {0};
	uint64_t t0 = gp_clock_ns();
	int64_t live0 = alloc_live();

	copy_flags(&s->flags, flags);
	lo.limit_bytes = (uint64_t)flags->memory_limit;
	lo.allow_extern = flags->allow_extern;
	if (gp_onnx_is_model_path(path)) {
		struct gp_onnx_load_opts oo = {
			.limit_bytes = lo.limit_bytes,
			.allow_extern = lo.allow_extern,
			.dims = flags->onnx_dims,
			.inputs = flags->onnx_inputs,
		};

		s->pristine = gp_onnx_load(path, &oo, err);
	} else
		s->pristine = gp_graph_load(path, &lo, err);
	if (s->pristine == NULL) {
		gp_flags_done(&s->flags);
		free(s);
		return (NULL);
	}
	s->load_ns = (double)(gp_clock_ns() - t0);
	s->held_bytes = alloc_live() - live0;
	if (build(s, &s->flags, false, err) < 0) {
		gp_graph_free(s->pristine);
		gp_flags_done(&s->flags);
		free(s);
		return (NULL);
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->published = gp_profile_clone(s->prof);
	return (s);
}

void
gp_session_free(struct gp_session *s)
{
	if (s == NULL)
		return;
	gp_session_stop(s);
	gp_vm_free(s->vm);
	gp_graph_free(s->g);
	gp_graph_free(s->pristine);
	gp_profile_free(s->prof);
	free_base(s);
	gp_profile_free(s->published);
	gp_profile_free(s->baseline);
	gp_flags_done(&s->flags);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

/* Each function of a program once (fn >= 0: that one only); own: the
 * bytes the program holds, other: the other program's (0 when alone),
 * left out of its measured peak. */
static void
run_program(struct gp_session *s, const struct gp_graph *g,
    struct gp_vm *vm, struct gp_profile *prof, bool profile, int fn,
    int64_t *own, int64_t other)
{
	struct gp_vm_hook hook = gp_profile_hook(prof);

	for (int f = 0; f < (int)g->n_fns; f++) {
		int64_t live0, peak;

		if (fn >= 0 && f != fn)
			continue;
		/* the call's high-water mark above its start, on this
		 * thread's counters, over what the session held then: the
		 * same on the worker as on the thread that opened it */
		gp_alloc_reset_peak();
		live0 = alloc_live();
		gp_vm_call(vm, f, profile ? &hook : NULL);
		peak = s->held_bytes - other + (gp_alloc_tls.peak - live0);
		s->held_bytes += alloc_live() - live0;
		*own += alloc_live() - live0;
		if (peak > 0 && (uint64_t)peak > prof->fn[f].mem_peak_measured)
			prof->fn[f].mem_peak_measured = (uint64_t)peak;
	}
}

/* A round: the program's functions once each; with a baseline program
 * kept, its round too, interleaved A B, B A, A B, ... so that both run
 * under the same load and neither always runs in the other's wake. */
static void
one_round(struct gp_session *s, int fn)
{
	bool two = s->base_vm != NULL;
	bool a_first = two && s->ab_rounds % 2 == 0;

	if (a_first)
		run_program(s, s->base_g, s->base_vm, s->base_prof,
		    s->base_profile, fn, &s->base_bytes, s->cur_bytes);
	run_program(s, s->g, s->vm, s->prof, s->flags.profile, fn,
	    &s->cur_bytes, two ? s->base_bytes : 0);
	if (two && !a_first)
		run_program(s, s->base_g, s->base_vm, s->base_prof,
		    s->base_profile, fn, &s->base_bytes, s->cur_bytes);
	if (two)
		s->ab_rounds++;
}

void
gp_session_run(struct gp_session *s, int fn, uint64_t rounds)
{
	for (uint64_t r = 0; r < rounds &&
	    !atomic_load_explicit(&s->interrupted, memory_order_relaxed); r++) {
		one_round(s, fn);
		s->rounds++;
	}
	/* the untimed calls are attributed (gp_prof_flush) and the copy
	 * published when somebody reads the profile, not after every run */
	s->stale = true;
}

void
gp_session_interrupt(struct gp_session *s)
{
	atomic_store_explicit(&s->interrupted, 1, memory_order_relaxed);
}

uint64_t
gp_session_rounds(struct gp_session *s)
{
	return (s->rounds);
}

/* Copy live's counters into *dst (a new copy when the shape changed). */
static void
publish_one(struct gp_profile **dst, struct gp_profile *live)
{
	gp_prof_flush(live);
	if (*dst == NULL || (*dst)->generation != live->generation ||
	    (*dst)->n_fn != live->n_fn) {
		gp_profile_free(*dst);
		*dst = gp_profile_clone(live);
	} else
		gp_profile_copy_counters(*dst, live);
}

/* Under mu (or with no worker): copy the live counters out, the
 * baseline program's too. */
static void
publish(struct gp_session *s)
{
	s->stale = false;
	publish_one(&s->published, s->prof);
	if (s->base_prof != NULL)
		publish_one(&s->baseline, s->base_prof);
	/* the current program's last and median timed calls, which the
	 * snapshots carry (the Timeline draws them, a capture stores them) */
	if (s->trace != NULL)
		gp_export_trace_keep(s->trace, s->published);
}

/* Worker: record the current program's timed calls, sampling kept. */
static void
trace_start(struct gp_session *s)
{
	s->trace = gp_export_trace_new(s->prof, NULL, GP_TRACE_CALLS_DRAWN);
	s->prof->tracer_sampled = true;
}

static void
trace_end(struct gp_session *s)
{
	gp_export_trace_free(s->trace);
	s->trace = NULL;
}

static void *
worker_loop(void *arg)
{
	struct gp_session *s = arg;
	uint64_t last_pub = gp_clock_ns(), pub_every = PUBLISH_NS;

	pthread_mutex_lock(&s->mu);
	trace_start(s);
	for (;;) {
		uint64_t now;

		atomic_store_explicit(&s->pending, false,
		    memory_order_relaxed);
		if (s->quit)
			break;
		if (s->recompile_req != NULL) {
			struct gp_flags *nf = s->recompile_req;
			struct gp_err err;
			uint64_t gen = s->prof->generation;

			s->recompile_req = NULL;
			/* the recorder follows the program that runs */
			trace_end(s);
			pthread_mutex_unlock(&s->mu);
			s->recompile_rc = build(s, nf, true, &err);
			pthread_mutex_lock(&s->mu);
			trace_start(s);
			if (s->recompile_rc == 0) {
				gp_flags_done(&s->flags);
				s->flags = *nf;
				/* the old program, kept: the baseline, from
				 * now on run in turn with the new one */
				gp_profile_free(s->baseline);
				s->baseline = NULL;
				s->prof->generation = gen + 1;
				s->recompiles++;
				s->rounds = 0;
				s->done = false;
				s->recompile_err[0] = '\0';
				publish(s);
			} else {
				gp_flags_done(nf);
				memcpy(s->recompile_err, err.msg,
				    sizeof(err.msg));
			}
			free(nf);
			s->recompile_done = s->recompile_seq;
			pthread_cond_broadcast(&s->cv);
			continue;
		}
		if (s->reset_req) {
			s->reset_req = false;
			gp_profile_reset(s->prof);
			if (s->base_prof != NULL)
				gp_profile_reset(s->base_prof);
			s->ab_rounds = 0;
			s->rounds = 0;
			s->done = false;
			publish(s);
		}
		if (s->paused || (s->limit && s->rounds >= s->limit)) {
			if (s->limit && s->rounds >= s->limit)
				s->done = true;
			publish(s);
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		/* run rounds without the lock until a request comes, the
		 * limit is reached, or it is time to publish */
		{
			uint64_t done = 0, every = 1, want = s->limit ?
			    s->limit - s->rounds : UINT64_MAX;

			pthread_mutex_unlock(&s->mu);
			for (;;) {
				uint64_t t0 = gp_clock_ns();

				for (uint64_t k = 0; k < every && done < want;
				    k++) {
					one_round(s, -1);
					done++;
				}
				now = gp_clock_ns();
				if (done >= want || atomic_load_explicit(
				    &s->pending, memory_order_acquire) ||
				    now - last_pub >= pub_every)
					break;
				/* look at the clock about every ms */
				if (now - t0 < 1000000 && every < 4096)
					every *= 2;
			}
			pthread_mutex_lock(&s->mu);
			s->rounds += done;
		}
		/* the rate over about a second; a reset or recompile that
		 * restarted the rounds restarts the window */
		if (s->rounds < s->rate_r0)
			s->rate_t0 = 0;
		if (now - s->rate_t0 >= 1000000000ull) {
			if (s->rate_t0 != 0)
				s->rate = (double)(s->rounds - s->rate_r0) *
				    1e9 / (double)(now - s->rate_t0);
			s->rate_t0 = now;
			s->rate_r0 = s->rounds;
		}
		if (now - last_pub >= pub_every) {
			uint64_t c0 = gp_clock_ns(), cost;

			publish(s);
			last_pub = gp_clock_ns();
			/* publishing costs the worker: keep it under 5% */
			cost = last_pub - c0;
			pub_every = cost * 20 > PUBLISH_NS ? cost * 20 :
			    PUBLISH_NS;
		}
	}
	publish(s);
	trace_end(s);
	pthread_mutex_unlock(&s->mu);
	/* this thread's allocator cache dies with it */
	gp_alloc_trim();
	return (NULL);
}

/* The worker, on an alternate signal stack of its own when it has none
 * (a sanitizer's may be there): a crash handler then runs even after a
 * stack overflow in a call (a runaway extern function). */
static void *
worker(void *arg)
{
	stack_t ss = {.ss_size = 65536}, cur;
	bool own = false;
	void *rv;

	if (sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
		ss.ss_sp = gp_xmalloc(ss.ss_size);
		own = sigaltstack(&ss, NULL) == 0;
		if (!own)
			free(ss.ss_sp);
	}
	rv = worker_loop(arg);
	if (own) {
		ss.ss_flags = SS_DISABLE;
		sigaltstack(&ss, NULL);
		free(ss.ss_sp);
	}
	return (rv);
}

int
gp_session_start(struct gp_session *s, uint64_t limit, struct gp_err *err)
{
	s->limit = limit;
	s->quit = false;
	if (s->stale)
		publish(s);
	if (pthread_create(&s->th, NULL, worker, s) != 0)
		return (gp_err_set(err, "cannot start the runtime thread"));
	s->running = true;
	return (0);
}

void
gp_session_pause(struct gp_session *s, bool paused)
{
	pthread_mutex_lock(&s->mu);
	s->paused = paused;
	s->rate = 0;
	s->rate_t0 = 0;
	atomic_store_explicit(&s->pending, true,
	    memory_order_release);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

bool
gp_session_paused(struct gp_session *s)
{
	bool p;

	pthread_mutex_lock(&s->mu);
	p = s->paused;
	pthread_mutex_unlock(&s->mu);
	return (p);
}

void
gp_session_reset(struct gp_session *s)
{
	pthread_mutex_lock(&s->mu);
	s->reset_req = true;
	atomic_store_explicit(&s->pending, true,
	    memory_order_release);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	if (!s->running) {
		gp_profile_reset(s->prof);
		if (s->base_prof != NULL)
			gp_profile_reset(s->base_prof);
		s->ab_rounds = 0;
		s->reset_req = false;
		s->rounds = 0;
		publish(s);
	}
}

void
gp_session_stop(struct gp_session *s)
{
	if (!s->running)
		return;
	pthread_mutex_lock(&s->mu);
	s->quit = true;
	atomic_store_explicit(&s->pending, true,
	    memory_order_release);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
	s->running = false;
}

int
gp_session_recompile(struct gp_session *s, const struct gp_flags *f,
    struct gp_err *err)
{
	struct gp_flags *nf = gp_xmalloc(sizeof(*nf));
	int rc;

	copy_flags(nf, f);
	if (!s->running) {
		uint64_t gen = s->prof->generation;

		rc = build(s, nf, true, err);
		if (rc == 0) {
			gp_flags_done(&s->flags);
			s->flags = *nf;
			gp_profile_free(s->baseline);
			s->baseline = NULL;
			s->prof->generation = gen + 1;
			s->rounds = 0;
			publish(s);
		} else
			gp_flags_done(nf);
		free(nf);
		return (rc);
	}
	pthread_mutex_lock(&s->mu);
	if (s->recompile_req != NULL) {
		gp_flags_done(s->recompile_req);
		free(s->recompile_req);
	}
	s->recompile_req = nf;
	s->recompile_seq++;
	atomic_store_explicit(&s->pending, true,
	    memory_order_release);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return (0);
}

uint64_t
gp_session_snapshot(struct gp_session *s, struct gp_profile **dst)
{
	uint64_t r;

	pthread_mutex_lock(&s->mu);
	if (s->stale && !s->running)
		publish(s);
	if (*dst == NULL || (*dst)->generation != s->published->generation ||
	    (*dst)->n_fn != s->published->n_fn) {
		gp_profile_free(*dst);
		*dst = gp_profile_clone(s->published);
	} else
		gp_profile_copy_counters(*dst, s->published);
	r = s->rounds;
	pthread_mutex_unlock(&s->mu);
	return (r);
}

struct gp_profile *
gp_session_baseline(struct gp_session *s)
{
	struct gp_profile *b = NULL;

	pthread_mutex_lock(&s->mu);
	if (s->stale && !s->running)
		publish(s);
	if (s->baseline != NULL)
		b = gp_profile_clone(s->baseline);
	pthread_mutex_unlock(&s->mu);
	return (b);
}

void
gp_session_status(struct gp_session *s, struct gp_session_status *st)
{
	pthread_mutex_lock(&s->mu);
	st->rounds = s->rounds;
	st->rounds_per_s = s->rate;
	st->paused = s->paused;
	st->done = s->done;
	st->running = s->running;
	st->recompiles = s->recompiles;
	st->interleaved = s->baseline != NULL;
	st->recompile_seq = s->recompile_seq;
	st->recompile_done = s->recompile_done;
	memcpy(st->error, s->recompile_err, sizeof(st->error));
	pthread_mutex_unlock(&s->mu);
}

struct gp_profile *
gp_session_profile(struct gp_session *s)
{
	gp_prof_flush(s->prof);
	return (s->prof);
}

struct gp_profile *
gp_session_base_profile(struct gp_session *s)
{
	if (s->base_prof != NULL)
		gp_prof_flush(s->base_prof);
	return (s->base_prof);
}

struct gp_graph *
gp_session_graph(struct gp_session *s)
{
	return (s->g);
}

struct gp_vm *
gp_session_vm(struct gp_session *s)
{
	return (s->vm);
}

const struct gp_flags *
gp_session_flags(struct gp_session *s)
{
	return (&s->flags);
}
