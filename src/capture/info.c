/*
 * info.c: where and when a capture is taken: this machine (CPU, cores,
 * OS), this build (gptop's version, the compiler, the BLAS), the kernels'
 * threads and their idle policy, and the UTC time (see struct
 * gp_capture_info in capture.h).
 */
#include "config.h"

#include "capture/capture.h"
#include "ops/par.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static char *
cpu_model(void)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[512];
	char *model = NULL;

	if (fp == NULL)
		return (gp_xstrdup("unknown"));
	while (model == NULL && fgets(line, sizeof(line), fp) != NULL) {
		char *colon;
		size_t n;

		if (strncmp(line, "model name", 10) != 0 &&
		    strncmp(line, "Processor", 9) != 0)
			continue;
		colon = strchr(line, ':');
		if (colon == NULL)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		n = strcspn(colon, "\n");
		colon[n] = '\0';
		model = gp_xstrdup(colon);
	}
	fclose(fp);
	return (model != NULL ? model : gp_xstrdup("unknown"));
}

/* UTC, ISO-8601 with milliseconds: "2024-05-01T12:00:00.123Z". */
static char *
utc_now(void)
{
	struct timespec ts;
	struct tm tm;
	char buf[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	return (gp_xasprintf("%s.%03dZ", buf, (int)(ts.tv_nsec / 1000000)));
}

void
gp_capture_info_this(struct gp_capture_info *ci)
{
	struct utsname u;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	const char *blas = openblas_get_config();
	char idle[64];

	memset(ci, 0, sizeof(*ci));
	ci->version = GP_CAPTURE_VERSION;
	ci->created = utc_now();
	ci->gptop = gp_xstrdup(PACKAGE_VERSION);
	ci->cpu = cpu_model();
	ci->cores = n > 0 ? (int)n : 0;
	if (uname(&u) == 0)
		ci->os = gp_xasprintf("%s %s %s", u.sysname, u.release,
		    u.machine);
	else
		ci->os = gp_xstrdup("unknown");
	ci->cc = gp_xstrdup(GP_BUILD_CC);
#ifdef __VERSION__
	ci->cc_version = gp_xstrdup(__VERSION__);
#else
	ci->cc_version = gp_xstrdup("unknown");
#endif
	ci->blas = gp_xstrdup(blas != NULL ? blas : "unknown");
	ci->threads = gp_par_max_threads();
	gp_par_idle(idle, sizeof(idle));
	ci->idle = gp_xstrdup(idle);
}

void
gp_capture_info_done(struct gp_capture_info *ci)
{
	if (ci == NULL)
		return;
	free(ci->created);
	free(ci->gptop);
	free(ci->cpu);
	free(ci->os);
	free(ci->cc);
	free(ci->cc_version);
	free(ci->blas);
	free(ci->idle);
	for (int i = 0; i < ci->n_src; i++) {
		free(ci->src[i].path);
		free(ci->src[i].created);
	}
	free(ci->src);
	memset(ci, 0, sizeof(*ci));
}
