// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup_tree.h"
#include "mount_escape.h"
#include "trace_filters.h"

/* Calls fn on each element of a comma-separated list; stops at the first error. */
static int each_element(const char *list, char *bad, size_t badlen,
			int (*fn)(const char *elem, void *arg), void *arg)
{
	char elem[PATH_MAX];
	const char *p = list, *end;
	size_t len;
	int err;

	do {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		snprintf(bad, badlen, "%.*s", (int)len, p);
		if (!len || len >= sizeof(elem))
			return len ? -ENAMETOOLONG : -EINVAL;
		memcpy(elem, p, len);
		elem[len] = '\0';
		err = fn(elem, arg);
		if (err)
			return err;
		p = end + 1;
	} while (end);
	return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	return errno ? -ERANGE : 0;
}

static int add_pid(const char *elem, void *arg)
{
	struct trace_filters *f = arg;
	uint64_t v;
	int err = parse_u64(elem, &v);

	if (err)
		return err;
	/* pid_max is at most 2^22 (PID_MAX_LIMIT) */
	if (!v || v > (1u << 22))
		return -ERANGE;
	if (f->npids >= TRACE_FILTER_MAX)
		return -E2BIG;
	f->pids[f->npids++] = (uint32_t)v;
	return 0;
}

int trace_filters__parse_pids(struct trace_filters *f, const char *list, char *bad, size_t badlen)
{
	return each_element(list, bad, badlen, add_pid, f);
}

static int add_comm(const char *elem, void *arg)
{
	struct trace_filters *f = arg;

	/* the kernel keeps 15 bytes of a task's name */
	if (strlen(elem) >= IOTRACE_COMM_LEN)
		return -ENAMETOOLONG;
	if (f->ncomms >= TRACE_FILTER_MAX)
		return -E2BIG;
	memset(f->comms[f->ncomms], 0, IOTRACE_COMM_LEN);
	memcpy(f->comms[f->ncomms++], elem, strlen(elem));
	return 0;
}

int trace_filters__parse_comms(struct trace_filters *f, const char *list, char *bad, size_t badlen)
{
	return each_element(list, bad, badlen, add_comm, f);
}

struct cgroup_arg {
	struct trace_filters *f;
	const char *root;
};

static int add_cgroup(const char *elem, void *arg)
{
	struct cgroup_arg *a = arg;
	char path[PATH_MAX];
	uint64_t id;

	if (a->f->ncgroups >= TRACE_FILTER_MAX)
		return -E2BIG;
	if (!parse_u64(elem, &id)) {
		/*
		 * a mistyped id would give a trace without a call; without a
		 * cgroup2 mount nothing tells, and the kernel's ids are taken
		 * on trust
		 */
		if (a->root && !cgroup_tree__find(a->root, id, NULL, 0))
			return -ENOENT;
		a->f->cgroups[a->f->ncgroups++] = id;
		return 0;
	}
	if (elem[0] == '/' && (!a->root || strncmp(elem, a->root, strlen(a->root))))
		snprintf(path, sizeof(path), "%s%s", a->root ? a->root : "", elem);
	else if (elem[0] == '/')
		snprintf(path, sizeof(path), "%s", elem);
	else
		snprintf(path, sizeof(path), "%s/%s", a->root ? a->root : "", elem);
	if (!cgroup_tree__dir(path, a->root, &id))
		return -ENOENT;
	a->f->cgroups[a->f->ncgroups++] = id;
	return 0;
}

int trace_filters__parse_cgroups(struct trace_filters *f, const char *list,
				 const char *cgroup2_root, char *bad, size_t badlen)
{
	struct cgroup_arg a = { f, cgroup2_root };

	return each_element(list, bad, badlen, add_cgroup, &a);
}

const char *trace_filters__cgroup2_root(const char *mounts, char *root, size_t len)
{
	char *line = NULL, dir[PATH_MAX], type[64];
	bool found = false;
	struct stat st;
	size_t cap = 0;
	FILE *f = fopen(mounts, "r");

	snprintf(root, len, "/sys/fs/cgroup");
	if (!f)
		return root;
	/* whole lines: a piece of a long one (an overlay's options) is no mount */
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%*s %4095s %63s", dir, type) != 2 || strcmp(type, "cgroup2") ||
		    strlen(dir) >= sizeof(dir) - 1)
			continue;
		mount_unescape(dir);
		if (!found)
			snprintf(root, len, "%s", dir);
		found = true;
		/*
		 * the hierarchy's root (kernfs node 1), as a tracer in a
		 * container of its own cgroup namespace sees the host's tree
		 * mounted beside its own: the jobs' cgroups are there, and
		 * the kernel names removed cgroups by it
		 */
		if (!stat(dir, &st) && st.st_ino == 1) {
			snprintf(root, len, "%s", dir);
			break;
		}
	}
	free(line);
	fclose(f);
	return root;
}
