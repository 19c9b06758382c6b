// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_names.h"
#include "csv_writer.h"
#include "json_writer.h"
#include "table_writer.h"
#include "u64map.h"
#include "view.h"

int view__flush(FILE *out)
{
	errno = 0;
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

void view__none(FILE *out, const char *what, bool filtered)
{
	fprintf(out, filtered ? "no %s in this trace matches the filters\n" : "no %s in this trace\n",
		what);
}

void *view__grow_to(void *arr, size_t *n, size_t size, size_t idx)
{
	size_t nn = idx + 1 > *n * 2 ? idx + 1 : *n * 2;
	char *na;

	if (idx < *n)
		return arr;
	na = realloc(arr, nn * size);
	if (!na)
		return NULL;
	memset(na + *n * size, 0, (nn - *n) * size);
	*n = nn;
	return na;
}

void view__device_cell(struct table *t, const struct device *d, uint64_t part)
{
	char dev[64];

	if (!d) {
		table__cell(t, DEVT_FMT, DEVT_ARGS(part));
		return;
	}
	if (d->name[0])
		snprintf(dev, sizeof(dev), "%s", d->name);
	else
		snprintf(dev, sizeof(dev), DEVT_FMT, DEVT_ARGS(d->id));
	if (part == d->id)
		table__cell(t, "%s", dev);
	else
		table__cell(t, "%s part " DEVT_FMT, dev, DEVT_ARGS(part));
}

void view__process_cells(struct table *t, uint32_t pid, const char *comm)
{
	/* pid 0 with a name is the idle task, in interrupt context; without, no process */
	if (pid || comm[0])
		table__cell(t, "%u", pid);
	else
		table__cell(t, "-");
	table__cell(t, "%s", comm[0] ? comm : "-");
}

void view__cgroup_cell(struct table *t, const struct cgroup_names *names, uint64_t cgroup)
{
	const char *path = cgroup_names__path(names, cgroup);

	if (path)
		table__cell(t, "%s", path);
	else if (cgroup)
		table__cell(t, "%llu", (unsigned long long)cgroup);
	else
		table__cell(t, "-");
}

uint64_t view__cgroup_of(const struct u64map *rollup, uint64_t id)
{
	uint64_t top;

	return rollup && u64map__get(rollup, id, &top) ? top : id;
}

bool view__cgroups_named(const struct cgroup_names *names)
{
	return names && names->count;
}

void view__cgroup_csv(struct csv_writer *cw, const struct cgroup_names *names, uint64_t cgroup,
		      bool has)
{
	const char *path = has ? cgroup_names__path(names, cgroup) : NULL;

	if (has)
		csv__uint(cw, cgroup);
	else
		csv__empty(cw);
	if (path)
		csv__string(cw, path);
	else
		csv__empty(cw);
}

void view__cgroup_json(struct json_writer *jw, const struct cgroup_names *names, uint64_t cgroup)
{
	const char *path = cgroup_names__path(names, cgroup);

	jw__key(jw, "cgroup");
	jw__uint_str(jw, cgroup);
	if (path) {
		jw__key(jw, "cgroupPath");
		jw__string(jw, path);
	}
}
