/*
 * gen-graph.c: write a synthetic gptop graph of N apply nodes to stdout,
 * for benchmarks and scale tests.
 *
 *   gen-graph [-k chain|dag] [-s ELEMENTS] [-t DTYPE] N
 *
 * chain: N elementwise ops in a row, each reading the previous result and
 *        the input x (add, mul, sub, maximum in turn), so every apply is
 *        live and the VM's dispatch cost dominates on 1-element tensors.
 * dag:   N elementwise ops, each reading two earlier results chosen by a
 *        fixed pseudo-random sequence, all summed up at the end by the
 *        last nodes (a wide graph with many live intermediates).
 * Nodes are encoded one at a time with jansson, so memory stays flat even
 * for N = 1,000,000.
 */
#include "config.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
usage(void)
{
	fprintf(stderr, "usage: gen-graph [-k chain|dag] [-s ELEMENTS] "
	    "[-t DTYPE] N\n");
	exit(2);
}

static void
dump(json_t *j)
{
	if (json_dumpf(j, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER) != 0) {
		fprintf(stderr, "gen-graph: write failed\n");
		exit(1);
	}
	json_decref(j);
}

int
main(int argc, char **argv)
{
	const char *kind = "chain", *dtype = "float64";
	static const char *const ops[] = {"add", "mul", "sub", "maximum"};
	long long n, size = 1;
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	json_t *vars;
	int c;

	while ((c = getopt(argc, argv, "k:s:t:")) != -1) {
		switch (c) {
		case 'k':
			kind = optarg;
			break;
		case 's':
			size = atoll(optarg);
			break;
		case 't':
			dtype = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind + 1 != argc || size < 1)
		usage();
	n = atoll(argv[optind]);
	if (n < 1 || (strcmp(kind, "chain") != 0 && strcmp(kind, "dag") != 0))
		usage();
	vars = json_pack("{s:{s:s,s:s,s:[I],s:{s:[f,f],s:i}}}", "x", "kind",
	    "input", "dtype", dtype, "shape", size, "init", "uniform", 0.5,
	    1.0, "seed", 1);
	printf("{\"format\": \"gptop-graph/1\", \"name\": \"synthetic-%s-%lld\","
	    " \"variables\": ", kind, n);
	dump(vars);
	printf(", \"nodes\": [\n");
	for (long long i = 0; i < n; i++) {
		char out[32], a[32], b[32];
		json_t *node;

		snprintf(out, sizeof(out), "t%lld", i);
		if (i == 0) {
			snprintf(a, sizeof(a), "x");
			snprintf(b, sizeof(b), "x");
		} else if (strcmp(kind, "chain") == 0) {
			snprintf(a, sizeof(a), "t%lld", i - 1);
			snprintf(b, sizeof(b), "x");
		} else {
			/* xorshift: two earlier results */
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			snprintf(a, sizeof(a), "t%lld", i - 1);
			snprintf(b, sizeof(b), "t%llu",
			    (unsigned long long)(rng % (uint64_t)i));
		}
		node = json_pack("{s:s,s:[s,s],s:[s]}", "op", ops[i % 4],
		    "inputs", a, b, "outputs", out);
		dump(node);
		printf("%s\n", i + 1 < n ? "," : "");
	}
	printf("], \"functions\": {\"f\": {\"outputs\": [\"t%lld\"]}}}\n",
	    n - 1);
	return (ferror(stdout) ? 1 : 0);
}
