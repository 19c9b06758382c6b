/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Record filters of the parser views (--file, --pid, --comm, --cgroup,
 * --device, --min-latency/--max-latency, --from/--to): a join sink
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
 * - cgroups: a set of cgroup v2 ids (values 1), one of which the I/O or
 *   call must have recorded: a cgroup and those below it
 *   (cgroup_names.h).
 * - device: the name of the device the record is on, as the trace's
 *   deviceDescription gives it: an I/O's disk or partition, a call's
 *   file system's device. A disk's name takes its partitions' records
 *   too: a partition named as the kernel names them (sda1 of sda,
 *   nvme0n1p1 of nvme0n1), or one the join saw I/O of on that disk.
 *   Partitions are looked up in the join given (NULL: none).
 * - latency [min, max], both included: an I/O's latency, a call's
 *   duration. An I/O that never completed has none and does not match,
 *   nor does a file event.
 *
 * All given must match. Records without a process (file events,
 * Open-CAS traces) match no --pid, --comm or --cgroup.
 */
#ifndef IOTRACE_FILTER_H
#define IOTRACE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "join.h"
#include "u64map.h"

struct filter {
	const char *file;		/* NULL = any; the caller keeps it alive */
	uint32_t pid;			/* 0 = any */
	char comm[EVENT_COMM_MAX];	/* "" = any */
	uint64_t from_ns, to_ns;	/* the window; 0 and UINT64_MAX = all */
	const struct u64map *cgroups;	/* NULL = any; the caller keeps it alive */
	const char *device;		/* NULL = any; the caller keeps it alive */
	uint64_t min_latency, max_latency;	/* ns, both included */
	bool by_latency;	/* set: records without a latency are left out */
};

/* Sets up f from the options (any of them NULL / 0 for "any"). */
void filter__init(struct filter *f, const char *file, uint32_t pid, const char *comm);
/* Sets f's time window: records at from_ns <= time < to_ns. */
void filter__set_window(struct filter *f, uint64_t from_ns, uint64_t to_ns);
/* Sets f's cgroup ids (NULL: any). */
void filter__set_cgroups(struct filter *f, const struct u64map *ids);
/* Sets f's device name (NULL or "": any). */
void filter__set_device(struct filter *f, const char *device);
/*
 * Sets f's latency range: records with min_ns <= latency <= max_ns; then
 * those without one (never completed, file events) are left out, even
 * for a range of every latency (--min-latency 0).
 */
void filter__set_latency(struct filter *f, uint64_t min_ns, uint64_t max_ns);
/* Whether d is the device f names (--device), or a partition of it. */
bool filter__names(const struct filter *f, const struct device *d);
/* Whether f lets anything out. */
bool filter__active(const struct filter *f);
/* The join flags f needs on top of a view's (paths for a glob). */
unsigned int filter__join_flags(const struct filter *f);

bool filter__io(const struct filter *f, const struct join *j, const struct io_rec *r);
bool filter__vfs(const struct filter *f, const struct join *j, const struct vfs_rec *r);

/* A sink passing to next what f lets through; fs holds both, and must outlive the join. */
struct filter_sink {
	const struct filter *f;
	struct join_sink next;
	const struct join *join;	/* for --device's partitions; NULL until set */
};

struct join_sink filter__sink(struct filter_sink *fs, const struct filter *f,
			      const struct join_sink *next);
/* The join feeding fs (made after the sink it is given). */
void filter__sink_join(struct filter_sink *fs, const struct join *j);

#endif
