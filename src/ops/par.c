/*
 * ops/par.c: the kernels' threads (see ops/par.h): their count, and
 * libgomp's and OpenBLAS's wait policies, which an executable sets by
 * calling gp_par_init(argv) first thing in main().
 *
 * By default a libgomp thread that finishes its share of a loop spins for
 * about 3 ms (GOMP_SPINCOUNT 300000) before it sleeps.  On a busy machine
 * that spinning takes a core from the threads that have work: measured on
 * this project's 2-core machine under load, mobilenet_v2, squeezenet1_0
 * and resnet18 ran 2 to 8 times slower with 2 OpenMP threads than with 1,
 * and as fast as 1 thread or faster with OMP_WAIT_POLICY=passive (a
 * thread sleeps at once).  On an idle machine sleeping costs instead: a
 * sleeping thread's core is woken for the next loop, which took 75-120 us
 * per parallel region on this project's virtual machine against 1-2 us
 * for a spinning one (an empty region, both measured), so mobilenet_v2's
 * 50 or so loops a call lost about a quarter of its time.  So the policy
 * follows the machine at start: when the other tasks running (the
 * kernel's count in /proc/loadavg, less this process's threads, in any of
 * a few readings: cores_free) leave a core for each thread, the threads
 * spin briefly (GOMP_SPINCOUNT=1000:
 * 20 to 40 us here, measured as the gap between two regions below which
 * the second one found its thread awake), else they sleep at once
 * (OMP_WAIT_POLICY=passive).  Briefly: the gaps between a CNN's
 * convolutions are a few microseconds, but a BLAS call after a loop needs
 * the core the spinning thread holds for OpenBLAS's own thread, and
 * libgomp's default spin (300000, about 3 ms) made data/graphs/mlp.json's
 * gemms 2.5 times slower (23.9 ms a call against 7.8 ms sleeping; 7.8 ms
 * with 1000 spins; medians of 5 runs, quiet machine).  mobilenet_v2 took
 * 9.0 ms a call with 1000 spins, 8.8 ms with 300000 and 11.9 ms sleeping;
 * squeezenet1_0 16.6, 17.0 and 18.1 ms.  With a competing busy process on
 * the 2 cores spinning threads were no faster than sleeping ones, and
 * some spin counts far slower (30000: mobilenet_v2 112 ms, against 18 ms
 * sleeping), hence sleeping on a busy machine.
 * libgomp reads its environment once, in its initializer, before main()
 * and after libc has taken the environment the process started with (a
 * setenv() from the executable's .preinit_array is lost), so the only way
 * to choose the policy for the user is the environment at exec time:
 * gp_par_init sets the chosen variable and executes the same program again
 * (/proc/self/exe, same arguments), unless the user set OMP_WAIT_POLICY or
 * GOMP_SPINCOUNT (then theirs stands), under valgrind (its preload library
 * in LD_PRELOAD: the new image would run outside it), or when the exec
 * fails (then the run goes on with libgomp's defaults).  torch's peer in
 * bench/onnx runs passive.
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

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#ifdef GP_HAVE_OPENMP
/* This process's threads in state R (running or runnable): OpenBLAS's
 * start with the process and may be running when counted. */
static long
own_running(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	long n = 0;

	if (d == NULL)
		return (1);
	while ((e = readdir(d)) != NULL) {
		char path[320], line[512], *paren;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		(void)snprintf(path, sizeof(path), "/proc/self/task/%s/stat",
		    e->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(line, sizeof(line), f) != NULL &&
		    (paren = strrchr(line, ')')) != NULL && paren[1] == ' ' &&
		    paren[2] == 'R')
			n++;
		(void)fclose(f);
	}
	(void)closedir(d);
	return (n > 0 ? n : 1);
}

/* Whether the cores are free for the threads now: the tasks the kernel
 * counts as running (/proc/loadavg's fourth field, R/T), this process's
 * aside, and one per thread fit in the online cores.  False when it
 * cannot tell. */
static bool
cores_free_now(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	long running = -1, cores = sysconf(_SC_NPROCESSORS_ONLN);
	double l1, l5, l15;
	int ok;

	if (f == NULL)
		return (false);
	ok = fscanf(f, "%lf %lf %lf %ld/", &l1, &l5, &l15, &running) == 4;
	(void)fclose(f);
	if (!ok || running < 1 || cores < 1)
		return (false);
	return (running - own_running() + omp_get_max_threads() <= cores);
}

/* Whether the cores are free: cores_free_now in any of 5 readings 1 ms
 * apart (a busy machine costs the start 4 ms).  One reading alone saw a
 * task come and go: on this project's idle 2-core machine 9 readings of
 * 2000 counted one task besides the reader's, and the bench's MLP once
 * ran with sleeping threads, 1.10 ms a call against 1.00. */
static bool
cores_free(void)
{
	for (int i = 0; i < 5; i++) {
		const struct timespec ms = {0, 1000000};

		if (cores_free_now())
			return (true);
		if (i < 4)
			(void)nanosleep(&ms, NULL);
	}
	return (false);
}
#endif

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
	if (cores_free() ? setenv("GOMP_SPINCOUNT", "1000", 1) != 0 :
	    setenv("OMP_WAIT_POLICY", "passive", 1) != 0)
		return;
	if (getenv("OPENBLAS_THREAD_TIMEOUT") == NULL &&
	    getenv("GOTO_THREAD_TIMEOUT") == NULL)
		(void)setenv("OPENBLAS_THREAD_TIMEOUT", "22", 1);
	(void)execv("/proc/self/exe", argv);
#else
	(void)argv;
#endif
}

void
gp_par_idle(char *buf, size_t n)
{
#ifdef GP_HAVE_OPENMP
	const char *pol = getenv("OMP_WAIT_POLICY");
	const char *cnt = getenv("GOMP_SPINCOUNT");

	if (pol != NULL && strcasecmp(pol, "passive") == 0)
		(void)snprintf(buf, n, "passive");
	else if (pol != NULL && strcasecmp(pol, "active") == 0)
		(void)snprintf(buf, n, "active");
	else if (cnt != NULL)
		(void)snprintf(buf, n, "spin %.40s", cnt);
	else
		(void)snprintf(buf, n, "default");
#else
	(void)snprintf(buf, n, "serial");
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
