// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kernel_probe.h"

/* The prototype of the tp_btf tracepoint tp's programs, or NULL. */
static const struct btf_type *tp_proto(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[128];
	int id;

	if (!btf)
		return NULL;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return NULL;
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;	/* pointer */
	if (t && btf_is_ptr(t))
		t = btf__type_by_id(btf, t->type);	/* function prototype */
	return t && btf_is_func_proto(t) ? t : NULL;
}

int probe__tp_btf_args(const struct btf *btf, const char *tp)
{
	const struct btf_type *t = tp_proto(btf, tp);

	/* the first argument is the tracepoint's private data pointer */
	return t ? btf_vlen(t) - 1 : -1;
}

bool probe__tp_btf_takes(const struct btf *btf, const char *tp, int nargs, const char *first)
{
	const struct btf_type *t = tp_proto(btf, tp);
	int id;

	if (!t || btf_vlen(t) - 1 != nargs || nargs < 1)
		return false;
	t = btf__type_by_id(btf, btf_params(t)[1].type);
	if (!t || !btf_is_ptr(t))
		return false;
	id = btf__resolve_type(btf, t->type);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	return t && btf_is_struct(t) && strcmp(btf__name_by_offset(btf, t->name_off), first) == 0;
}

struct btf *probe__module_btf(const struct btf *vmlinux, const char *module)
{
	char path[128];

	if (!vmlinux)
		return NULL;
	/* a module's BTF is split on the kernel's; it is there while the module is loaded */
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module);
	/* libbpf 1.x: NULL and errno on failure */
	return btf__parse_split(path, (struct btf *)vmlinux);
}

/* where libbpf looks too; the second is debugfs's automount of tracefs */
static const char *const tracefs_roots[] = { TRACEFS_MOUNT, "/sys/kernel/debug/tracing" };

bool probe__tracepoint_exists(const char *category, const char *name)
{
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(tracefs_roots) / sizeof(tracefs_roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs_roots[i], category, name);
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
}

int probe__tracefs_mount(void)
{
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(tracefs_roots) / sizeof(tracefs_roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", tracefs_roots[i]);
		if (access(path, F_OK) == 0)
			return 0;
	}
	if (mount("tracefs", TRACEFS_MOUNT, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return -errno;
	return 1;
}

void probe__tracefs_unmount(int mounted)
{
	/* not lazily: a tool that started using it meanwhile keeps it */
	if (mounted == 1)
		umount2(TRACEFS_MOUNT, 0);
}

bool probe__rdonly_cast(const struct btf *btf)
{
	return btf && btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
}

bool probe__asked(const char *name)
{
	const char *env = getenv(name);

	return env && strcmp(env, "1") == 0;
}

/* Whether struct name in btf has each of the members, NULL-ended. */
static bool has_members(const struct btf *btf, const char *name, const char *const *members)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i, found;

	id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t)
		return false;
	for (; *members; members++) {
		m = btf_members(t);
		for (i = 0, found = 0; i < btf_vlen(t) && !found; i++, m++)
			found = strcmp(btf__name_by_offset(btf, m->name_off), *members) == 0;
		if (!found)
			return false;
	}
	return true;
}

enum probe_uring_complete probe__uring_complete_of(const struct btf *btf, bool tracepoint)
{
	static const char *const fields[] = { "ctx", "req", "user_data", "res", NULL };

	if (!btf || probe__asked("IOTRACE_NO_URING"))
		return PROBE_URING_COMPLETE_NONE;
	if (!probe__asked("IOTRACE_URING_TRACEPOINT") && probe__tp_btf_args(btf, "io_uring_complete") == 3)
		return PROBE_URING_COMPLETE_BTF;
	if (tracepoint && has_members(btf, "trace_event_raw_io_uring_complete", fields))
		return PROBE_URING_COMPLETE_TRACEPOINT;
	return PROBE_URING_COMPLETE_NONE;
}

enum probe_uring_complete probe__uring_complete(const struct btf *btf)
{
	return probe__uring_complete_of(btf, probe__tracepoint_exists("io_uring", "io_uring_complete"));
}

bool probe__cast_loads(const struct btf *btf)
{
	return !probe__asked("IOTRACE_PROBE_READS") && probe__rdonly_cast(btf);
}

bool probe__ancestor_cgroup_helper(void)
{
	/* tracepoint, raw_tp and tp_btf programs share the tracing helpers */
	return !probe__asked("IOTRACE_NO_CGROUP_HELPER") &&
	       libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT,
				       BPF_FUNC_get_current_ancestor_cgroup_id, NULL) == 1;
}

bool probe__path_walk(const struct btf *btf)
{
	return !probe__asked("IOTRACE_NO_PATH_WALK") &&
	       libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_loop, NULL) == 1 &&
	       probe__rdonly_cast(btf);
}
