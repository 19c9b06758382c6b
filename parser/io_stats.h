/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Statistics of a set of I/O records, per operation group as OCTF
 * reports them: read, write, discard, flush and total.
 *
 * - flush: empty flushes, i.e. I/Os with the flush flag and no data (what
 *   fsync sends; also requestOnly flush requests the kernel makes
 *   itself). They are kept out of write so that write counts and bytes
 *   are data written. A write with data and the flush (preflush) flag is
 *   a write.
 * - total: every I/O, flushes and operations OCTF does not know included.
 * - latency, queueTime and deviceTime are over completed I/Os only; an
 *   I/O without a completion counts in count, size and notCompleted.
 */
#ifndef IOTRACE_IO_STATS_H
#define IOTRACE_IO_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "dist.h"
#include "join.h"
#include "workset.h"

enum op_group { GRP_READ, GRP_WRITE, GRP_DISCARD, GRP_FLUSH, GRP_TOTAL, GRP_COUNT };

extern const char *const op_group_name[GRP_COUNT];

struct op_stats {
	uint64_t count, errors, not_completed;
	struct dist size;		/* sectors */
	struct dist latency;		/* ns */
	struct dist queue_time;		/* ns, dispatched I/Os */
	struct dist device_time;	/* ns, dispatched and completed I/Os */
	struct workset workset;
};

struct io_stats {
	struct op_stats op[GRP_COUNT];	/* op[GRP_TOTAL]: see io_stats__total() */
	struct op_stats other;		/* operations OCTF does not know */
	uint64_t first_ts, last_ts;	/* first submission, last submission or completion */
	bool any;
};

/* percentiles: keep histograms (see dist.h); workset: count distinct sectors. */
void io_stats__init(struct io_stats *s, bool percentiles);
/* The group of an I/O (GRP_TOTAL alone for an operation OCTF does not know). */
enum op_group io_stats__group(const struct io_rec *r);
void io_stats__add(struct io_stats *s, const struct io_rec *r, bool workset);
/*
 * Fills op[GRP_TOTAL] from the other groups: adding each I/O to its group
 * only and merging once costs half of adding it twice. Call once, after
 * the last io_stats__add().
 */
void io_stats__total(struct io_stats *s);
/* Adds src (not yet totalled) to dst. */
void io_stats__merge(struct io_stats *dst, const struct io_stats *src);
/* Sorts what the worksets hold (workset__settle()). */
void io_stats__settle(struct io_stats *s);
/* ns from the first submission to the last completion; 0 if none */
uint64_t io_stats__duration(const struct io_stats *s);
void io_stats__free(struct io_stats *s);

#endif
