/*
 * fmt.h: human-readable figures for reports and screens: a time in ns as
 * "850ns", "1.23ms", a size in bytes as "512B", "4.5MiB".  Nothing else:
 * every frontend (the batch report, the memory profile's text, the
 * interface, diff) prints times and sizes through these two, so they read
 * the same everywhere.
 */
#ifndef GPTOP_SRC_FMT_H
#define GPTOP_SRC_FMT_H

#include <stddef.h>

/* Human-readable figures: "1.23ms", "4.5 MiB". */
void	gp_fmt_time(char *buf, size_t n, double ns);
void	gp_fmt_bytes(char *buf, size_t n, double bytes);

#endif
