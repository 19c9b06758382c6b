/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the running kernel offers, asked before the BPF object is loaded:
 * a program for a tracepoint it lacks, or with the wrong prototype, makes
 * the whole load fail, so each optional or version-dependent program is
 * switched on or off from these answers.
 */
#ifndef IOTRACE_KERNEL_PROBE_H
#define IOTRACE_KERNEL_PROBE_H

#include <stdbool.h>

struct btf;

/*
 * Whether the environment variable name is "1", exactly: a test asks for
 * an older kernel's way, or for IOTRACE_DEBUG's logs.
 */
bool probe__asked(const char *name);

/*
 * Arguments of the tp_btf tracepoint tp in the kernel's BTF (its
 * btf_trace_<tp> prototype, without the private data pointer), or -1 if
 * the kernel has no such tracepoint.
 */
int probe__tp_btf_args(const struct btf *vmlinux, const char *tp);

/*
 * Whether the tp_btf tracepoint tp takes nargs arguments, the first a
 * pointer to struct first: a program written for that prototype loads.
 */
bool probe__tp_btf_takes(const struct btf *vmlinux, const char *tp, int nargs, const char *first);

/*
 * The BTF of module (ext4, xfs) where the kernel was built with it as a
 * module and it is loaded, split on vmlinux's (btf__free() it); NULL if
 * there is none. probe__tp_btf_args() finds its tracepoints there.
 */
struct btf *probe__module_btf(const struct btf *vmlinux, const char *module);

#define TRACEFS_MOUNT "/sys/kernel/tracing"

/* A classic tracepoint category:name in tracefs (either mount point). */
bool probe__tracepoint_exists(const char *category, const char *name);

enum probe_uring_complete {
	PROBE_URING_COMPLETE_NONE,
	/* tp_btf, io_uring_complete(ctx, req, cqe): v6.13 and later */
	PROBE_URING_COMPLETE_BTF,
	/* the classic tracepoint, whose record names ctx, req, user_data, res: v5.19 and later */
	PROBE_URING_COMPLETE_TRACEPOINT,
};

/*
 * Which program io_uring's completion can have: the tp_btf one where the
 * kernel's prototype is the one it is written for, else the classic
 * tracepoint (slower: the kernel fills its record first), the only one
 * with IOTRACE_URING_TRACEPOINT=1, which tests it on a newer kernel.
 * IOTRACE_NO_URING=1 answers NONE, as a kernel before v6.1 does: io_uring
 * is then not followed (tests).
 */
enum probe_uring_complete probe__uring_complete(const struct btf *vmlinux);

/* The same, given whether tracefs has io_uring:io_uring_complete (tests). */
enum probe_uring_complete probe__uring_complete_of(const struct btf *vmlinux, bool tracepoint);

/*
 * Classic tracepoints (system calls, rename exits) are found and attached
 * through tracefs, which a node booted without systemd may not have
 * mounted. Mounts it on TRACEFS_MOUNT if neither mount point shows it, as
 * perf does. Returns 1 if it mounted it, 0 if it was there, or -errno
 * (not root in the initial user namespace, a kernel without tracefs).
 */
int probe__tracefs_mount(void);

/* Unmounts what probe__tracefs_mount() mounted (its result), unless busy. */
void probe__tracefs_unmount(int mounted);

/* Whether the kernel's BTF has the bpf_rdonly_cast() kfunc (v6.2). */
bool probe__rdonly_cast(const struct btf *vmlinux);

/*
 * Whether to load the *_cast programs, which read kernel memory with
 * bpf_rdonly_cast() loads (core_fixes.bpf.h): the kernel has the kfunc,
 * and IOTRACE_PROBE_READS=1 does not ask for the probe-read ones.
 */
bool probe__cast_loads(const struct btf *vmlinux);

/*
 * Whether the file events' path walk can load (fs_events.bpf.h): the
 * kernel has bpf_rdonly_cast() and bpf_loop(), and IOTRACE_NO_PATH_WALK=1
 * does not ask to trace as a kernel without them does (for the tests of
 * that case).
 */
bool probe__path_walk(const struct btf *vmlinux);

/*
 * Whether tracing programs may call bpf_get_current_ancestor_cgroup_id()
 * (added for cgroup socket programs in 5.7, allowed in tracing ones
 * later), which --cgroup's test of the cgroups above a task's uses;
 * IOTRACE_NO_CGROUP_HELPER=1 says no (the tests of the other way).
 */
bool probe__ancestor_cgroup_helper(void);

#endif
