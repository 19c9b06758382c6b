/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which tasks' system calls a trace records (--pids, --comm, --cgroup):
 * parsed from the command line here, evaluated in the kernel
 * (bpf/vfs.bpf.h). A call is traced when it matches every list given.
 */
#ifndef IOTRACE_TRACE_FILTERS_H
#define IOTRACE_TRACE_FILTERS_H

#include <stddef.h>
#include <stdint.h>

#include "iotrace_event.h"

/* as IOTRACE_MAX_FILTER in bpf/vfs.bpf.h */
#define TRACE_FILTER_MAX 16

struct trace_filters {
	uint32_t pids[TRACE_FILTER_MAX];
	size_t npids;
	char comms[TRACE_FILTER_MAX][IOTRACE_COMM_LEN];
	size_t ncomms;
	uint64_t cgroups[TRACE_FILTER_MAX];
	size_t ncgroups;
};

/*
 * Parsers of one comma-separated list each. On error they return
 * negative errno and leave the offending element in bad (size badlen):
 * -EINVAL (not a number / empty), -ERANGE (pid 0 or too large),
 * -ENAMETOOLONG (comm of 16 bytes or more), -E2BIG (more than
 * TRACE_FILTER_MAX), -ENOENT (no such cgroup directory).
 */
int trace_filters__parse_pids(struct trace_filters *f, const char *list, char *bad, size_t badlen);
int trace_filters__parse_comms(struct trace_filters *f, const char *list, char *bad, size_t badlen);

/*
 * A cgroup is a cgroup v2 directory: a path (absolute, or relative to
 * cgroup2_root, e.g. "system.slice/slurmstepd.scope/job_42") or its id
 * (the directory's inode number, as bpf_get_current_cgroup_id() returns).
 */
int trace_filters__parse_cgroups(struct trace_filters *f, const char *list,
				 const char *cgroup2_root, char *bad, size_t badlen);

/*
 * The cgroup2 mount point of mounts ("/proc/self/mounts") that shows the
 * whole hierarchy, or else the first it lists, or "/sys/fs/cgroup" when
 * it lists none, in root (size len); returns root. A cgroup namespace's
 * own mount shows only its subtree.
 */
const char *trace_filters__cgroup2_root(const char *mounts, char *root, size_t len);

#endif
