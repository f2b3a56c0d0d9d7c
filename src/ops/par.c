/*
 * ops/par.c: the kernels' threads (see ops/par.h): their count, and
 * libgomp's and OpenBLAS's wait policies, which an executable sets by
 * calling gp_par_init(argv) first thing in main().
 *
 * By default a libgomp thread that finishes its share of a loop spins for
 * about 3 ms (GOMP_SPINCOUNT 300000) before it sleeps.  Between two
 * parallel loops gptop mostly calls OpenBLAS, whose threads then find the
 * spinning one on their core: measured on this project's 2-core machine
 * under load, mobilenet_v2, squeezenet1_0 and resnet18 ran 2 to 8 times
 * slower with 2 OpenMP threads than with 1, and as fast as 1 thread or
 * faster with OMP_WAIT_POLICY=passive (a thread sleeps at once).  libgomp
 * reads its environment once, in its initializer, before main() and
 * after libc has taken the environment the process started with (a
 * setenv() from the executable's .preinit_array is lost), so the only way
 * to choose the policy for the user is the environment at exec time:
 * gp_par_init sets OMP_WAIT_POLICY=passive and executes the same program
 * again (/proc/self/exe, same arguments), unless the user set
 * OMP_WAIT_POLICY or GOMP_SPINCOUNT (then theirs stands), under valgrind
 * (its preload library in LD_PRELOAD: the new image would run outside
 * it), or when the exec fails (then the run goes on with libgomp's
 * defaults).  torch's peer in bench/onnx runs with the same policy.
 *
 * OpenBLAS's threads (the pthread build) do the same after a BLAS call:
 * they spin, yielding, for 2^28 cycles (about 0.1 s here) before they
 * sleep.  The fc Gemm at the end of a CNN's call left one spinning on a
 * core through the next call's convolutions, which run on the OpenMP
 * threads (ops/conv-gemm.c): resnet18's 3x3 convs took 3.9 ms instead of
 * 2.6 ms (2 threads, this machine under load; the same 2.6 ms with
 * OPENBLAS_NUM_THREADS=1).  So the same exec also sets
 * OPENBLAS_THREAD_TIMEOUT=22 (2^22 cycles, about 1.7 ms: the threads
 * still spin between the back-to-back gemms of an MLP or a transformer)
 * unless the user set it or GOTO_THREAD_TIMEOUT.
 */
#include "config.h"

#include "ops/par.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
gp_par_init(char **argv)
{
#ifdef GP_HAVE_OPENMP
	const char *pre = getenv("LD_PRELOAD");

	if (getenv("OMP_WAIT_POLICY") != NULL ||
	    getenv("GOMP_SPINCOUNT") != NULL)
		return;
	if (pre != NULL && strstr(pre, "vgpreload") != NULL)
		return;
	if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0)
		return;
	if (getenv("OPENBLAS_THREAD_TIMEOUT") == NULL &&
	    getenv("GOTO_THREAD_TIMEOUT") == NULL)
		(void)setenv("OPENBLAS_THREAD_TIMEOUT", "22", 1);
	(void)execv("/proc/self/exe", argv);
#else
	(void)argv;
#endif
}

int
gp_par_max_threads(void)
{
#ifdef GP_HAVE_OPENMP
	return (omp_get_max_threads());
#else
	return (1);
#endif
}
