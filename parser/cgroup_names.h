/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The paths of the cgroups a trace's tasks ran in: the file
 * iotrace.cgroups in the trace directory, which the collector appends to
 * as it first sees a cgroup id (src/cgroup_paths.c). A trace names a
 * batch job's cgroups after the job and its cgroups are gone, and
 * --cgroup can take a job's whole subtree (Slurm puts a job's tasks in
 * job_N/step_M/user/task_K, never in job_N itself).
 *
 * One line a cgroup: its id (the inode number of its directory, as the
 * records carry it), a tab, its path as /proc/PID/cgroup gives it ("/"
 * is the root), tab, newline and backslash written \011, \012 and \134.
 * A line starting with '#' is a comment. Open-CAS traces and ours from
 * before have no such file: their cgroups are ids only.
 */
#ifndef IOTRACE_CGROUP_NAMES_H
#define IOTRACE_CGROUP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

#define CGROUP_NAMES_FILE "iotrace.cgroups"
#define CGROUP_NAMES_HEAD "# iotrace cgroups: id, tab, path as /proc/PID/cgroup gives it\n"

struct cgroup_names {
	struct u64map by_id;	/* id -> index in paths */
	char **paths;
	size_t count, cap;
	/* the trace has the file (which may hold no line) */
	bool present;
	/* ... but not all of it could be read: some cgroups lack their paths */
	bool damaged;
};

/*
 * One line for id and path into out (size bytes, NUL-ended): its length
 * without the NUL, or 0 if it does not fit.
 */
size_t cgroup_names__line(char *out, size_t size, uint64_t id, const char *path);

/*
 * dir's iotrace.cgroups, added to cn (zeroed, or loaded before). No file
 * is 0 and adds nothing. A line that is not an id, a tab and a path
 * starting with '/' ends the reading: -EINVAL, its number in *bad_line,
 * the lines before it kept. Other failures: -errno (-ENOSTR: not a
 * regular file). Any failure but -ENOMEM and -ENAMETOOLONG marks cn
 * damaged.
 */
int cgroup_names__load(struct cgroup_names *cn, const char *dir, size_t *bad_line);

/* Adds or replaces id's path: 0 or -ENOMEM. */
int cgroup_names__add(struct cgroup_names *cn, uint64_t id, const char *path);

/*
 * Whether path is the directory top (its first len bytes, without a
 * trailing '/', but for "/" itself) or below it: "/a/b" is below "/a",
 * "/ab" is not.
 */
bool cgroup_names__within(const char *path, const char *top, size_t len);

/* id's path, NULL if not known. */
const char *cgroup_names__path(const struct cgroup_names *cn, uint64_t id);

/*
 * Adds to ids (a set: values 1) every id whose path is path or lies below
 * it; path is a cgroup path ("/a/b", a trailing '/' allowed). Returns how
 * many it found, or -ENOMEM.
 */
long cgroup_names__subtree(const struct cgroup_names *cn, const char *path, struct u64map *ids);

/*
 * --cgroup-depth: into rollup, each cgroup cn names deeper than depth
 * levels below the root ("/" is level 0) mapped to its ancestor at that
 * level ("/a/b/c" at depth 2 to "/a/b"), where cn names it too (the
 * collector names a cgroup's ancestors with it). 0 or -ENOMEM.
 */
int cgroup_names__rollup(const struct cgroup_names *cn, unsigned int depth,
			 struct u64map *rollup);

void cgroup_names__free(struct cgroup_names *cn);

#endif
