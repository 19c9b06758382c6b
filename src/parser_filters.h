/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The values of the parser's filters that need more than a number:
 * --cgroup (an id or a cgroup directory of this host), --device (a name
 * the trace must have) and --min-latency/--max-latency (a duration with
 * its unit). Each prints one error line and returns EXIT_USAGE on a bad
 * value, EXIT_OK otherwise.
 */
#ifndef IOTRACE_PARSER_FILTERS_H
#define IOTRACE_PARSER_FILTERS_H

#include <stdint.h>

struct filter;
struct join;

/*
 * A cgroup id as --process-statistics prints it, taken as given (the
 * trace may come from another node), or a cgroup v2 directory of this
 * one (absolute, or relative to the cgroup2 mount that mounts lists:
 * "system.slice/slurmd.service"), whose id is its inode number.
 */
int parser_filters__cgroup(const char *val, const char *mounts, uint64_t *id);

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
