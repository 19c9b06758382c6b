/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector's record of the cgroups its records name: the first time
 * it sees a cgroup id it looks the cgroup's path up (a cgroup2 file handle
 * is the id, so open_by_handle_at finds the directory) and appends a line
 * to the trace's iotrace.cgroups (parser/cgroup_names.h), and one for
 * each cgroup above it not named yet (a job's cgroup holds no task, its
 * steps do). A job's cgroups are gone by the time anyone reads its trace;
 * the ids alone say nothing.
 *
 * Without CAP_DAC_READ_SEARCH (a tracer with CAP_BPF and CAP_PERFMON
 * alone) the directory is found by walking the tree. A cgroup removed
 * before its first record is read (a short batch step: within a round,
 * 100 ms) is found where the kernel kept its path at removal
 * (bpf/cgroup_gone.bpf.h). The file is not counted against --size: a
 * node has hundreds of cgroups, a few KiB of lines. A failed write is
 * reported once at the end and costs the trace nothing else.
 */
#ifndef IOTRACE_CGROUP_PATHS_H
#define IOTRACE_CGROUP_PATHS_H

#include <stdbool.h>
#include <stdint.h>

#include "u64map.h"

struct cgroup_paths {
	uint64_t last;		/* the id just seen: records come in runs of one task */
	struct u64map seen;	/* ids looked up, found or not */
	int root_fd;		/* the cgroup2 mount, -1: none (nothing is looked up) */
	int gone_fd;		/* the kernel's removed cgroups, -1: none */
	bool whole;		/* the mount shows the whole hierarchy, as the kernel's paths do */
	char *root;		/* its path, cut from the paths the links give */
	char *file;		/* the trace's iotrace.cgroups */
	int fd;			/* -1 until the first line */
	int err;		/* the first failure to write, -errno */
};

/*
 * For the trace in dir, with the cgroup2 mount at root (NULL or not
 * openable: ids are kept, no paths). 0 or -ENOMEM.
 */
int cgroup_paths__init(struct cgroup_paths *cp, const char *dir, const char *root);

/*
 * Where the kernel keeps the paths of the cgroups just removed: the fd of
 * a map of struct iotrace_cgroup_gone by id (bpf/cgroup_gone.bpf.h).
 * Used only when the mount shows the whole hierarchy: the kernel's paths
 * are the hierarchy's, a cgroup namespace's mount shows a subtree.
 */
void cgroup_paths__watch_removals(struct cgroup_paths *cp, int map_fd);

void cgroup_paths__look_up(struct cgroup_paths *cp, uint64_t id);

/* Notes that a record names cgroup id (0: none); cp set up, or zeroed. */
static inline void cgroup_paths__note(struct cgroup_paths *cp, uint64_t id)
{
	if (id != cp->last)
		cgroup_paths__look_up(cp, id);
}

/* Closes the file: the first write error (-errno), or 0. A zeroed or closed cp is left as it is. */
int cgroup_paths__close(struct cgroup_paths *cp);

#endif
