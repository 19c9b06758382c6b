// SPDX-License-Identifier: BSD-3-Clause
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "filter.h"
#include "join.h"
#include "parser_filters.h"
#include "trace_filters.h"

#define CGROUP_EXPECTED                                                                       \
	"a cgroup id, as --process-statistics prints it, or a cgroup v2 directory of this "   \
	"node, such as system.slice/slurmd.service"
#define LATENCY_EXPECTED "a time with its unit, such as 500us, 10ms or 1.5s"

int parser_filters__cgroup(const char *val, const char *mounts, uint64_t *id)
{
	struct trace_filters one = { .ncgroups = 0 };
	unsigned long long v;
	char root[PATH_MAX], bad[PATH_MAX];

	if (!cli_parse_u64(val, 1, ULLONG_MAX, &v)) {
		*id = v;
		return EXIT_OK;
	}
	/* a list is no cgroup here: the tracer's --cgroup parser would take one */
	if (!*val || strchr(val, ','))
		return cli_bad_value("--cgroup", val, CGROUP_EXPECTED);
	trace_filters__cgroup2_root(mounts, root, sizeof(root));
	if (trace_filters__parse_cgroups(&one, val, root, bad, sizeof(bad)) || one.ncgroups != 1)
		return cli_bad_value("--cgroup", val, CGROUP_EXPECTED);
	*id = one.cgroups[0];
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

	if (cli_parse_duration(val, &v))
		return cli_bad_value(opt, val, LATENCY_EXPECTED);
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
