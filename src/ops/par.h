/*
 * ops/par.h: the kernels' parallel loops: OpenMP `parallel for` from the
 * compiler's libgomp (configure's AC_OPENMP), over as many threads as
 * libgomp chooses (OMP_NUM_THREADS, else one per core: the same count as
 * OpenBLAS's own threads, OPENBLAS_NUM_THREADS else one per core).  A loop
 * runs in parallel only when its work is at least GP_PAR_MIN elements, so
 * small applies stay serial (a parallel region costs a few microseconds).
 * The region begins and ends inside the kernel, on the calling thread, so
 * the profile's wall time of the apply covers every thread's share.  No
 * BLAS call is made inside a region (OpenBLAS would start its own threads
 * from each of ours), except the pointwise conv's (ops/conv-pw.c) and a
 * large gemv's slices (ops/blas.c), which set OpenBLAS's thread count to
 * 1 around their region.  Idle threads
 * spin briefly, or sleep at once on a busy machine (gp_par_init,
 * ops/par.c).
 * Without OpenMP (--disable-openmp, TSan builds) the loops are serial and
 * GP_PAR_FOR expands to nothing.
 */
#ifndef GPTOP_SRC_OPS_PAR_H
#define GPTOP_SRC_OPS_PAR_H

#include <stddef.h>
#include <stdint.h>

/* Work (elements touched) below which a loop stays serial. */
#define GP_PAR_MIN	((int64_t)32768)

#define GP_PAR_PRAGMA(x)	_Pragma(#x)

#ifdef GP_HAVE_OPENMP
#include <omp.h>
/* Before a `for` whose iterations are independent: run it over the
 * threads when work (an int64_t expression) reaches GP_PAR_MIN. */
#define GP_PAR_FOR(work)						\
	GP_PAR_PRAGMA(omp parallel for schedule(static)			\
	    if ((work) >= GP_PAR_MIN))

/* The same, the iterations handed out one at a time to the thread that
 * is free (uneven iterations, or a thread held up by another process). */
#define GP_PAR_FOR_DYNAMIC(work)					\
	GP_PAR_PRAGMA(omp parallel for schedule(dynamic, 1)		\
	    if ((work) >= GP_PAR_MIN))

#else
#define GP_PAR_FOR(work)
#define GP_PAR_FOR_DYNAMIC(work)
#endif

/* The number of threads a parallel loop uses (1 without OpenMP). */
int	gp_par_max_threads(void);

/* What libgomp's idle threads do, as this process's environment set it
 * (gp_par_init chose it, or the user): "passive" (sleep at once),
 * "active" (spin), "spin N" (GOMP_SPINCOUNT N spins, then sleep),
 * "default" (libgomp's: about 3 ms of spinning), "serial" (no OpenMP).
 * Written into buf (n bytes).  Captures record it: a profile taken with
 * spinning threads runs its parallel loops tens of microseconds faster
 * each than one taken with sleeping threads (ops/par.c). */
void	gp_par_idle(char *buf, size_t n);

/* The calling thread's number in its loop, 0 to gp_par_max_threads() - 1
 * (0 outside a loop, and without OpenMP): which part of a scratch request
 * made before the loop is its own (ops/scratch.h). */
static inline int
gp_par_thread(void)
{
#ifdef GP_HAVE_OPENMP
	return (omp_get_thread_num());
#else
	return (0);
#endif
}

/* First thing in main(): libgomp's idle threads spin 20 to 40 us when
 * the machine's cores are free at start, else sleep at once (by executing
 * the program again with GOMP_SPINCOUNT or OMP_WAIT_POLICY set; see
 * ops/par.c), unless the user chose a policy. */
void	gp_par_init(char **argv);

/* [*lo, *hi): part k of n of the range [0, total), in blocks of `align`
 * (the last part takes the rest). */
static inline void
gp_par_split(int64_t total, int64_t align, int k, int n, int64_t *lo,
    int64_t *hi)
{
	int64_t blocks = (total + align - 1) / align;
	int64_t b0 = blocks * k / n, b1 = blocks * (k + 1) / n;

	*lo = b0 * align < total ? b0 * align : total;
	*hi = b1 * align < total ? b1 * align : total;
}

#endif
