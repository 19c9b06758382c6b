/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every joined view (io, statistics, histograms, fs-statistics,
 * devices, vfs, file-statistics, process-statistics, time-series,
 * access-pattern) offers the CLI: it
 * is created on an output FILE, gets each record the join hands out, and
 * writes what it summarizes at the end.
 * Views format only; they never print errors (the caller checks
 * view_ops.finish's result and ferror()).
 */
#ifndef IOTRACE_VIEW_H
#define IOTRACE_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "join.h"

enum view_format { VIEW_JSON, VIEW_CSV, VIEW_TABLE };

struct cgroup_names;
struct u64map;

struct view_opts {
	enum view_format format;
	/* --lba-histogram */
	uint64_t bucket_size;		/* sectors, > 0 */
	uint64_t subrange_start;	/* first LBA counted */
	uint64_t subrange_end;		/* last LBA counted (inclusive) */
	/* --time-series: ns per interval, > 0; I/Os by completion time, not submission */
	uint64_t interval_ns;
	bool by_completion;
	/* --hit-ratio-curve: sectors a cache line (0: 8, 4 KiB) */
	uint64_t line_sectors;
	/* records were filtered (--file, --pid, ...): "none" means none matched */
	bool filtered;
	/*
	 * --wall-clock (--io, --vfs): when header.timestamp 0 was, ns since
	 * the epoch (the summary's timestampOrigin); 0 = not asked
	 */
	int64_t wall_origin_ns;
	/* the trace's cgroup paths (cgroup_names.h); NULL: none */
	const struct cgroup_names *cgroups;
	/*
	 * --cgroup-depth (--process-statistics, --access-pattern): a cgroup
	 * id -> the id it counts for (cgroup_names__rollup()); NULL: itself
	 */
	const struct u64map *cgroup_rollup;
};

/* The cgroup a record of cgroup id counts for, by rollup (NULL: id). */
uint64_t view__cgroup_of(const struct u64map *rollup, uint64_t id);

/* --time-series: intervals kept, all devices together (-E2BIG past it): a day of 1 s ones */
#define SERIES_INTERVALS_MAX (1u << 17)

struct view_ops {
	const char *name;
	unsigned int join_flags;	/* JOIN_FILES, JOIN_PATHS, JOIN_VFS */
	bool cgroup_paths;		/* prints view_opts.cgroups' paths */
	/* judges an I/O by those submitted before it: join_sink.in_order */
	bool in_order;
	/* NULL with errno set on failure */
	void *(*create)(FILE *out, const struct view_opts *o);
	void (*record)(void *v, const struct io_rec *r);
	/* VFS calls, for views with JOIN_VFS in join_flags; else NULL */
	void (*vfs)(void *v, const struct vfs_rec *r);
	/*
	 * writes what is left; 0 or -errno: -ENOMEM, a write error, -E2BIG
	 * (--lba-histogram: too many buckets)
	 */
	int (*finish)(void *v, const struct join *j);
	/*
	 * Split runs (split.h): takes in what src, a view of the same kind
	 * fed the records of a later sid range, gathered; dev_map[i] is this
	 * view's device index for src's device i (ndev of them). 0 or
	 * -ENOMEM. NULL for views that need one pass: those that write
	 * records in order, or use queue depths or files.
	 */
	int (*merge)(void *v, void *src, const unsigned int *dev_map, size_t ndev);
	/*
	 * Split runs: the half's records are in (a few more may come); does
	 * now, on the half's CPU, what merge and finish would do after both
	 * halves (sorting). NULL if nothing.
	 */
	void (*settle)(void *v);
	void (*destroy)(void *v);
};

extern const struct view_ops io_view_ops;
extern const struct view_ops stats_view_ops;
extern const struct view_ops latency_hist_ops;
extern const struct view_ops size_hist_ops;
extern const struct view_ops qd_hist_ops;
extern const struct view_ops lba_hist_ops;
extern const struct view_ops fs_view_ops;
extern const struct view_ops devices_view_ops;
extern const struct view_ops vfs_view_ops;
extern const struct view_ops file_stats_view_ops;
extern const struct view_ops process_view_ops;
extern const struct view_ops pattern_view_ops;
extern const struct view_ops series_view_ops;
extern const struct view_ops hit_ratio_view_ops;

/*
 * Shared by the views' tables by device index: arr, of *n entries of
 * size bytes, grown to hold entry idx (to twice its size at least), the
 * new entries zeroed. Returns the array, or NULL with arr and *n as they
 * were. Inline where nothing is to grow: the views ask for every record.
 */
void *view__grow_to(void *arr, size_t *n, size_t size, size_t idx);

static inline void *view__grow(void *arr, size_t *n, size_t size, size_t idx)
{
	return idx < *n ? arr : view__grow_to(arr, n, size, idx);
}

/* Shared by the views: a stream's first write error as -errno, after a flush. */
int view__flush(FILE *out);

/* A table view with nothing to show: "no WHAT in this trace", and why if filtered. */
void view__none(FILE *out, const char *what, bool filtered);

struct table;
/*
 * A table's device column: the disk's name (its major:minor while the
 * trace names it not), and the partition where the file system is on
 * one, so that one name on two devices or partitions reads as two; d
 * NULL: the partition's major:minor alone.
 */
void view__device_cell(struct table *t, const struct device *d, uint64_t part);
/* A table's process columns: its pid and comm, "-" for what the trace does not give. */
void view__process_cells(struct table *t, uint32_t pid, const char *comm);
/*
 * A table's cgroup column: its path where names has it (people know a
 * job by its cgroup's name), else its id; "-" where the trace does not
 * give one (0).
 */
void view__cgroup_cell(struct table *t, const struct cgroup_names *names, uint64_t cgroup);

/* Whether names names any cgroup: a cgroup column is then paths, aligned left. */
bool view__cgroups_named(const struct cgroup_names *names);

struct json_writer;
/* The JSON "cgroup" (id) and, where names has it, "cgroupPath". */
void view__cgroup_json(struct json_writer *jw, const struct cgroup_names *names, uint64_t cgroup);

struct csv_writer;
/*
 * The CSV columns process.cgroup and process.cgroupPath: the id and,
 * where names has it, the path; both empty where the row has no cgroup
 * (has false).
 */
void view__cgroup_csv(struct csv_writer *cw, const struct cgroup_names *names, uint64_t cgroup,
		      bool has);

#endif
