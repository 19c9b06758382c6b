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
 * Arguments of the tp_btf tracepoint tp in the kernel's BTF (its
 * btf_trace_<tp> prototype, without the private data pointer), or -1 if
 * the kernel has no such tracepoint.
 */
int probe__tp_btf_args(const struct btf *vmlinux, const char *tp);

/* A classic tracepoint category:name in tracefs (either mount point). */
bool probe__tracepoint_exists(const char *category, const char *name);

/*
 * Whether to load the *_cast programs, which read kernel memory with
 * bpf_rdonly_cast() loads (core_fixes.bpf.h): the kernel's BTF has the
 * kfunc, and IOTRACE_PROBE_READS=1 does not ask for the probe-read ones.
 */
bool probe__cast_loads(const struct btf *vmlinux);

#endif
