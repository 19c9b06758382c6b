// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_names.h"
#include "cgroup_tree.h"
#include "cli.h"
#include "filter.h"
#include "join.h"
#include "parser_filters.h"
#include "trace_filters.h"

#define CGROUP_EXPECTED                                                                       \
	"a cgroup id, as --process-statistics prints it, or a cgroup's path, such as "        \
	"system.slice/slurmd.service"

int parser_filters__cgroup(const char *val)
{
	unsigned long long v;

	if (!cli_parse_u64(val, 1, ULLONG_MAX, &v))
		return EXIT_OK;
	/*
	 * A list is no cgroup here (the tracer's --cgroup takes one), nor is
	 * id 0 or one past 64 bits; "42x" is a path
	 */
	if (!*val || strchr(val, ',') || strspn(val, "0123456789") == strlen(val))
		return cli_bad_value("--cgroup", val, CGROUP_EXPECTED);
	return EXIT_OK;
}

/*
 * val as a cgroup path, as /proc/PID/cgroup gives it, into out: "/" plus a
 * relative one, an absolute one under the cgroup2 mount root without it,
 * any other absolute one as it is. Trailing '/'s go.
 */
static void cgroup_path(const char *val, const char *root, char *out, size_t size)
{
	size_t n = strlen(root), len;

	if (cgroup_names__within(val, root, n))
		val += n;
	snprintf(out, size, "%s%s", *val == '/' ? "" : "/", val);
	len = strlen(out);
	while (len > 1 && out[len - 1] == '/')
		out[--len] = '\0';
}

static int out_of_memory(void)
{
	cli_err("out of memory");
	return EXIT_ERROR;
}

/*
 * The cgroup at path (a cgroup path) on this node, and those below it,
 * into ids: how many, 0 if there is no such cgroup, or -errno.
 */
static long node_subtree(const char *root, const char *path, struct u64map *ids)
{
	char dir[PATH_MAX];
	size_t before = u64map__count(ids);

	if (snprintf(dir, sizeof(dir), "%s%s", root, path) >= (int)sizeof(dir) ||
	    !cgroup_tree__dir(dir, root, NULL))
		return 0;
	if (cgroup_tree__subtree(dir, ids))
		return -ENOMEM;
	return (long)(u64map__count(ids) - before);
}

int parser_filters__cgroup_ids(const char *val, const struct cgroup_names *names,
			       const char *mounts, struct u64map *ids)
{
	char root[PATH_MAX], path[PATH_MAX];
	unsigned long long id;
	const char *known;
	long found;

	if (!cli_parse_u64(val, 1, ULLONG_MAX, &id)) {
		/* taken as given: the trace may come from another node, or the cgroup be gone */
		if (u64map__put(ids, id, 1))
			return out_of_memory();
		known = cgroup_names__path(names, id);
		if (known && cgroup_names__subtree(names, known, ids) < 0)
			return out_of_memory();
		return EXIT_OK;
	}
	trace_filters__cgroup2_root(mounts, root, sizeof(root));
	cgroup_path(val, root, path, sizeof(path));
	/*
	 * A trace that names its cgroups is judged by its names alone: this
	 * node's ids are its own, and a trace from another node would match
	 * its cgroups by chance (ids are small numbers).
	 */
	if (names->present) {
		found = cgroup_names__subtree(names, path, ids);
		if (found < 0)
			return out_of_memory();
		if (!found && names->damaged) {
			/* the path may be in the part of the file that could not be read */
			cli_err("--cgroup %s: the trace names no cgroup %s or below it, in the "
				"part of %s that could be read", val, path, CGROUP_NAMES_FILE);
			return EXIT_USAGE;
		}
		if (!found) {
			cli_err("--cgroup %s: the trace has no task in cgroup %s or below it", val,
				path);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	}
	found = node_subtree(root, path, ids);
	if (found < 0)
		return out_of_memory();
	if (!found) {
		cli_err("--cgroup %s: this node has no such cgroup, and the trace does not name "
			"its cgroups (an id is taken as given)", val);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int parser_filters__device(const char *val, const char **name)
{
	const char *n = strncmp(val, "/dev/", 5) ? val : val + 5;

	if (!*n || strchr(n, '/') || strchr(n, ','))
		return cli_bad_value("--device", val, "a device's name, such as nvme0n1");
	*name = n;
	return EXIT_OK;
}

int parser_filters__latency(const char *opt, const char *val, uint64_t *ns)
{
	unsigned long long v;
	const char *why;

	if (cli_parse_duration(val, &v, &why))
		return cli_bad_value(opt, val, why);
	*ns = v;
	return EXIT_OK;
}

int parser_filters__check_device(const struct filter *f, const struct join *j)
{
	char names[512] = "";
	size_t i, n = join__device_count(j), at = 0;
	const struct device *d;

	if (!f->device)
		return EXIT_OK;
	for (i = 0; i < n; i++) {
		d = join__device(j, i);
		if (filter__names(f, d))
			return EXIT_OK;
		if (*d->name && at < sizeof(names))
			at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s", at ? ", " : "",
					       d->name);
	}
	if (at)
		cli_err("--device %s: the trace has no such device (it has %s)", f->device, names);
	else
		cli_err("--device %s: the trace names no device", f->device);
	return EXIT_USAGE;
}
