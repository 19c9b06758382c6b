/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The I/Os of the trace whose completion the collector has not seen yet,
 * by id, with their submission time (each id's latest event, inflight.c):
 * what a stopping tracer waits for
 * (collector.c, finish_inflight()), so that the I/Os of a trace's last
 * moments end with their completions. An io or a split child enters,
 * its completion takes it out, in whichever order the collector reads
 * the two.
 */
#ifndef IOTRACE_INFLIGHT_H
#define IOTRACE_INFLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "iotrace_event.h"
#include "u64map.h"

/*
 * A pairing of a submission with a completion longer than any confirmed
 * yet: it may be a reused id's completion read before its own submission
 * and paired with a submission that lost its completion (inflight.c).
 */
struct inflight_candidate {
	uint64_t id;
	uint64_t submitted;	/* ns */
	uint64_t completed;	/* ns */
};

#define INFLIGHT_CANDIDATES 8

struct inflight {
	struct u64map ids;	/* id -> its latest event (see inflight.c) */
	uint64_t newest;	/* ns, the latest event seen */
	uint64_t max_latency;	/* ns, the longest completion confirmed */
	uint64_t pruned_at;	/* ns, newest at the last prune */
	struct inflight_candidate cand[INFLIGHT_CANDIDATES];
	unsigned int n_cand;
};

/* Takes the record's part in it; every other record is ignored. */
void inflight__note(struct inflight *f, const struct iotrace_event *e);

/* ns, the longest completion seen: confirmed, or a candidate not yet disproved */
uint64_t inflight__longest(const struct inflight *f);

/*
 * How long an I/O may take before the wait for it is given up: four times
 * inflight__longest(), at least 100 ms, at most max_ns. A
 * completion that never comes (lost, or a kernel path no program sees)
 * then costs the stop that long, not max_ns.
 */
uint64_t inflight__patience(const struct inflight *f, uint64_t max_ns);

/* The I/Os in flight submitted after now - patience (CLOCK_MONOTONIC ns). */
size_t inflight__waiting(const struct inflight *f, uint64_t now, uint64_t patience);

void inflight__free(struct inflight *f);

#endif
