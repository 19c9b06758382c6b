/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * Who a removed cgroup was. The collector names the cgroups of the
 * records it reads by their directories (src/cgroup_paths.c), but a
 * cgroup may be gone by then: a short batch step, removed as its last
 * task exits, tens of milliseconds before the collector's next round.
 * Its path at removal stays here for the collector to find.
 *
 * At removal, not creation: what is kept is then only the cgroups gone
 * in the last moments, not every one made since tracing started, and
 * those made before it are covered too. Removals are rare (a job's
 * end), so the program costs nothing that matters; while it is attached
 * the kernel writes each removed cgroup's path for the tracepoint. Part
 * of iotrace.bpf.c, included after vfs.bpf.h (cgroup_parent()).
 */
#ifndef IOTRACE_CGROUP_GONE_BPF_H
#define IOTRACE_CGROUP_GONE_BPF_H

/*
 * Removals the collector may have to look back over: those of one round
 * (100 ms) and the ring buffers' backlog, a few on any real node
 */
#ifndef IOTRACE_CGROUPS_GONE
#define IOTRACE_CGROUPS_GONE 1024
#endif

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, IOTRACE_CGROUPS_GONE);
	__type(key, __u64);
	__type(value, struct iotrace_cgroup_gone);
} cgroups_gone SEC(".maps");

/* the value is too big for the stack beside the call's own needs */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iotrace_cgroup_gone);
} cgroup_gone_scratch SEC(".maps");

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(handle_cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	struct iotrace_cgroup_gone *g;
	struct cgroup *parent;
	__u32 zero = 0;
	__u64 id;
	long n;

	/* cgroup v2's hierarchy is number 0 ("0::" in /proc/PID/cgroup); v1's are not traced */
	if (BPF_CORE_READ(cgrp, root, hierarchy_id) != 0)
		return 0;
	g = bpf_map_lookup_elem(&cgroup_gone_scratch, &zero);
	if (!g)
		return 0;
	n = bpf_probe_read_kernel_str(g->path, sizeof(g->path), path);
	/* a path cut short would name another cgroup: none is better */
	if (n <= 0 || n >= (long)sizeof(g->path))
		return 0;
	parent = cgroup_parent(cgrp);
	g->parent = parent ? BPF_CORE_READ(parent, kn, id) : 0;
	id = BPF_CORE_READ(cgrp, kn, id);
	bpf_map_update_elem(&cgroups_gone, &id, g, BPF_ANY);
	return 0;
}

#endif
