/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A distribution of uint64 values (latencies in ns, sizes in sectors):
 * count, sum, min, max and, if asked for, percentiles.
 *
 * Percentiles are by count (nearest rank: the smallest value with at
 * least p% of the values at or below it), from a log-linear histogram:
 * values below 128 are counted exactly, larger ones in 128 buckets per
 * power of two, each bucket with the count and the sum of its values.
 * The reported value is the average of the bucket the rank falls in:
 * exact when every value in that bucket is the same (sizes, a latency
 * repeated alone), otherwise within the bucket, which is under 1/128 of
 * its lower bound wide: within 0.8% of the exact value. Buckets are allocated
 * per power of two as values reach it, so a distribution costs 2 KiB
 * per octave its values span (a few dozen KiB at most), whatever the
 * number of values. The first DIST_FEW values are kept as they are
 * instead, their percentiles exact, and go into the histogram with the
 * next one: the per-file reports keep a distribution per file and
 * operation, mostly of a value or two, and at 2 KiB an octave a trace of
 * a few million files took tens of GB.
 *
 * (OCTF weighs its percentiles by value, so its p99 latency is not the
 * latency 99% of I/Os stay under; that is not copied.)
 */
#ifndef IOTRACE_DIST_H
#define IOTRACE_DIST_H

#include <stdbool.h>
#include <stdint.h>

#define DIST_SUB 128
#define DIST_OCTAVES 58		/* [0, 128) and one per power of two from 2^7 to 2^63 */

struct dist_octave {
	uint64_t count[DIST_SUB];
	uint64_t sum[DIST_SUB];
};

#define DIST_FEW 6

struct dist {
	uint64_t count, sum, min, max;
	bool percentiles;	/* keep the histogram */
	bool oom;		/* a bucket could not be allocated: percentiles are off */
	uint64_t few[DIST_FEW];	/* the values, while there are at most DIST_FEW and no oct */
	struct dist_octave **oct;	/* DIST_OCTAVES of them, once past DIST_FEW values */
};

/* A zeroed struct dist with percentiles set (or not) is empty. */
void dist__add(struct dist *d, uint64_t v);
double dist__avg(const struct dist *d);
/* p in (0, 100]. 0 if empty. */
uint64_t dist__percentile(const struct dist *d, double p);
/* Adds every value of src to dst (which keeps its own percentiles setting). */
void dist__merge(struct dist *dst, const struct dist *src);
/* Whether percentiles can be reported (asked for, no allocation failed, not empty). */
bool dist__has_percentiles(const struct dist *d);
void dist__free(struct dist *d);

#endif
