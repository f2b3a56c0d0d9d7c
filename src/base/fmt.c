/*
 * fmt.c: times and sizes as text (see fmt.h).
 */
#include "config.h"

#include "base/fmt.h"

#include <stdio.h>

void
gp_fmt_time(char *buf, size_t n, double ns)
{
	if (ns < 1e3)
		snprintf(buf, n, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, n, "%.2fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, n, "%.2fms", ns / 1e6);
	else
		snprintf(buf, n, "%.2fs", ns / 1e9);
}

void
gp_fmt_bytes(char *buf, size_t n, double b)
{
	if (b < 1024)
		snprintf(buf, n, "%.0fB", b);
	else if (b < 1024.0 * 1024)
		snprintf(buf, n, "%.1fKiB", b / 1024);
	else if (b < 1024.0 * 1024 * 1024)
		snprintf(buf, n, "%.1fMiB", b / 1024 / 1024);
	else
		snprintf(buf, n, "%.2fGiB", b / 1024 / 1024 / 1024);
}
