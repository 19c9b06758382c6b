/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One device's I/O over time (--time-series): its I/Os in slots of a
 * fixed interval by submission time (io_rec.time, from the trace's first
 * event), or by completion time (time + latency, as iostat counts a live
 * system; an I/O never completed is then in no slot), per operation
 * group (io_stats.h): count, errors, I/Os without completion, sectors,
 * queue depth at submission, and the latency of the completed ones
 * (average, max, p50 and p99 by count, as dist.h).
 *
 * The join hands I/Os out in submission order, and nothing completes
 * before it is submitted, so a slot is done once an I/O is submitted two
 * slots later (one allows for neighbouring CPUs being a little out of
 * step): only slots not done yet keep the distributions percentiles
 * need, allocated as values come, and every slot before them is a few
 * numbers. By submission that is two slots; by completion, as many as
 * the longest latency in flight spans. Memory grows with the trace's
 * duration over the interval, not with its I/Os. A record for a slot
 * already done (one never completed, handed out at the end) counts in
 * all but the percentiles.
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
	struct dist *lat;	/* [GRP_COUNT], while the slot is not done and has latencies */
};

struct series {
	uint64_t interval;	/* ns, > 0 */
	bool by_completion;
	bool any;
	/*
	 * the slot number of slots[0]: the first I/O's submission; after
	 * series__finish(), by completion, the first completion's
	 */
	uint64_t first;
	struct slot *slots;	/* [0, n): every slot from first on, empty ones too */
	size_t n, cap;
	uint64_t done;		/* slots before this number are done */
};

void series__init(struct series *s, uint64_t interval_ns, bool by_completion);
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
