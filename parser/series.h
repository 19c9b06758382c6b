/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One device's I/O over time (--time-series): its I/Os in slots of a
 * fixed interval by submission time (io_rec.time, from the trace's first
 * event), per operation group (io_stats.h): count, errors, I/Os without
 * completion, sectors, queue depth at submission, and the latency of the
 * completed ones (average, max, p50 and p99 by count, as dist.h).
 *
 * The join hands I/Os out in submission order, so a slot is done once a
 * later one begins: only the last two keep the distributions percentiles
 * need (two, as events of neighbouring CPUs may come a little out of
 * order), and every slot before them is a few numbers. Memory grows with
 * the trace's duration over the interval, not with its I/Os. A record
 * for a slot already done (one never completed, handed out at the end)
 * counts in all but the percentiles.
 */
#ifndef IOTRACE_SERIES_H
#define IOTRACE_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "io_stats.h"
#include "join.h"

struct slot_group {
	uint64_t count, errors, not_completed, sectors, qd_sum;
	uint64_t lat_count, lat_sum, lat_max, lat_p50, lat_p99;	/* completed I/Os, ns */
};

struct slot {
	struct slot_group g[GRP_COUNT];
};

struct series {
	uint64_t interval;	/* ns, > 0 */
	bool any;
	uint64_t first;		/* the slot number of slots[0]: time / interval */
	struct slot *slots;	/* [0, n): every slot from first on, empty ones too */
	size_t n, cap;
	uint64_t cur;		/* the latest slot begun; it and the one before are open */
	struct dist open[2][GRP_COUNT];	/* latencies of slot k in open[k % 2] */
};

void series__init(struct series *s, uint64_t interval_ns);
/*
 * Counts an I/O record (others are ignored). *budget: slots the caller
 * still allows, all devices together; a record that needs more is not
 * counted and -E2BIG returned. 0 or -ENOMEM.
 */
int series__add(struct series *s, const struct io_rec *r, size_t *budget);
/* Closes the open slots: call once, after the last record. */
void series__finish(struct series *s);
void series__free(struct series *s);

#endif
