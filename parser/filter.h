/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Record filters of the parser views (--file, --pid, --comm): a join sink
 * that hands on only the records that match, so every view counts,
 * aggregates and prints only those.
 *
 * - file: an fnmatch(3) glob on the record's path, without FNM_PATHNAME
 *   ('*' matches '/' too: a directory and '*' take the whole tree below
 *   it, as HPC tracers' path filters do). Records without a known path
 *   (no file, a file the trace never names) do not match. A copy
 *   (copy_file_range, sendfile, splice) matches if either of its files
 *   does; the side that does not is marked (vfs_rec.unmatched) so that
 *   per-file and per-process totals count only the matching file.
 * - pid: the process (thread group) id or a thread id.
 * - comm: the task name, compared as the kernel keeps it (cut to 15
 *   bytes).
 * - a time window [from, to), ns from the trace's first event: on the
 *   time a record is printed with (header.timestamp): an I/O's
 *   submission, a call's return, a file event's. An I/O submitted in the
 *   window keeps the latency and queue depth the whole trace gives it.
 *
 * All given must match. Records without a process (file events,
 * Open-CAS traces) match no --pid or --comm.
 */
#ifndef IOTRACE_FILTER_H
#define IOTRACE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "join.h"

struct filter {
	const char *file;		/* NULL = any; the caller keeps it alive */
	uint32_t pid;			/* 0 = any */
	char comm[EVENT_COMM_MAX];	/* "" = any */
	uint64_t from_ns, to_ns;	/* the window; 0 and UINT64_MAX = all */
};

/* Sets up f from the options (any of them NULL / 0 for "any"). */
void filter__init(struct filter *f, const char *file, uint32_t pid, const char *comm);
/* Sets f's time window: records at from_ns <= time < to_ns. */
void filter__set_window(struct filter *f, uint64_t from_ns, uint64_t to_ns);
/* Whether f lets anything out. */
bool filter__active(const struct filter *f);
/* The join flags f needs on top of a view's (paths for a glob). */
unsigned int filter__join_flags(const struct filter *f);

bool filter__io(const struct filter *f, const struct io_rec *r);
bool filter__vfs(const struct filter *f, const struct vfs_rec *r);

/* A sink passing to next what f lets through; fs holds both, and must outlive the join. */
struct filter_sink {
	const struct filter *f;
	struct join_sink next;
};

struct join_sink filter__sink(struct filter_sink *fs, const struct filter *f,
			      const struct join_sink *next);

#endif
