/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the C benchmarks under bench/ share: their clock, their allocation
 * and opening the trace they read.
 */
#ifndef IOTRACE_BENCH_UTIL_H
#define IOTRACE_BENCH_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace.h"

/* CPU seconds of the process, user and system: the host's noise barely moves it */
static inline double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* realloc() that exits on out of memory: a benchmark has nothing to save (so do the others) */
static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

static inline void *xmalloc(size_t n)
{
	return xrealloc(NULL, n);
}

/* n zeroed elements of size bytes */
static inline void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

/* The trace at path, or exit with one line naming prog and the reason */
static inline struct trace *xtrace_open(const char *prog, const char *path)
{
	struct trace *t = trace__open(path);

	if (!t) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		exit(1);
	}
	return t;
}

#endif
