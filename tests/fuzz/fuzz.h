/*
 * fuzz.h: what the fuzz targets share.  Each target (fuzz-*.c) defines
 * LLVMFuzzerTestOneInput; it is linked either with libFuzzer
 * (--enable-fuzzing, `make fuzz`) or with replay.c, which feeds it every
 * file of its corpus in `make check`.  Beyond "no crash, no sanitizer
 * report", the targets check the error convention: a refused input gives
 * one non-empty line naming the input.  A broken property aborts.
 */
#ifndef GPTOP_TESTS_FUZZ_FUZZ_H
#define GPTOP_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The largest tensor a fuzzed graph may ask for (the loader's memory
 * limit): small, so an input cannot make a run slow by allocating. */
#define FZ_LIMIT_BYTES (16u << 20)

/* Abort with why and the message. */
static inline void
fz_fail(const char *why, const char *msg)
{
	fprintf(stderr, "fuzz: %s: [%s]\n", why, msg);
	abort();
}

/* An error message: one line, not empty, starting with prefix (NULL:
 * any).  With pos, "LINE:COL: " must follow the prefix. */
static inline void
fz_check_msg(const char *msg, const char *prefix, int pos)
{
	size_t n = prefix != NULL ? strlen(prefix) : 0;
	const char *p;

	if (msg[0] == '\0')
		fz_fail("empty error message", msg);
	if (strchr(msg, '\n') != NULL)
		fz_fail("error message of several lines", msg);
	if (prefix != NULL && strncmp(msg, prefix, n) != 0)
		fz_fail("error message does not name the input", msg);
	if (!pos)
		return;
	p = msg + n;
	for (int k = 0; k < 2; k++) {
		if (*p < '1' || *p > '9')
			fz_fail("error message without LINE:COL", msg);
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ != ':')
			fz_fail("error message without LINE:COL", msg);
	}
	if (*p != ' ')
		fz_fail("error message without LINE:COL", msg);
}

#endif
