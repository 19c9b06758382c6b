/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The values of the parser's filters that need more than a number:
 * --cgroup (an id or a cgroup's path), --device (a name
 * the trace must have) and --min-latency/--max-latency (a duration with
 * its unit). Each prints one error line and returns EXIT_USAGE on a bad
 * value, EXIT_OK otherwise.
 */
#ifndef IOTRACE_PARSER_FILTERS_H
#define IOTRACE_PARSER_FILTERS_H

#include <stdint.h>

struct cgroup_names;
struct filter;
struct join;
struct u64map;

/* --cgroup's value, before the trace is read: an id or a cgroup's path, one. */
int parser_filters__cgroup(const char *val);

/*
 * The ids --cgroup val stands for, added to ids: the cgroup and every one
 * below it (a Slurm job's tasks run in job_N/step_M/..., never in job_N).
 * - An id is taken as given (the trace may come from another node, the
 *   cgroup be gone), with those below it if the trace names it.
 * - A path ("system.slice/slurmd.service", "/system.slice/...", as
 *   /proc/PID/cgroup gives it, or under the cgroup2 mount that mounts
 *   lists) is looked up in names, the trace's iotrace.cgroups, if it has
 *   one; else in this node's cgroup v2 tree. None there: EXIT_USAGE.
 */
int parser_filters__cgroup_ids(const char *val, const struct cgroup_names *names,
			       const char *mounts, struct u64map *ids);

/* A device's kernel name, "/dev/" allowed in front: *name points into val. */
int parser_filters__device(const char *val, const char **name);

/* opt's duration ("500us", "10ms") into ns. */
int parser_filters__latency(const char *opt, const char *val, uint64_t *ns);

/*
 * After the trace is read: EXIT_USAGE with the names the trace has, if
 * none of its devices is f's --device or a partition of it (a typo
 * leaves every view empty).
 */
int parser_filters__check_device(const struct filter *f, const struct join *j);

#endif
