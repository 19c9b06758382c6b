/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The BPF programs of a trace, before they run: which of each pair to
 * load on this kernel, the order they are attached in, and what a load
 * or attach failure means for the user.
 */
#ifndef IOTRACE_PROGRAMS_H
#define IOTRACE_PROGRAMS_H

#include <stdbool.h>

#include <bpf/btf.h>

struct iotrace;

/* Sends libbpf's multi-line logs to stderr only with IOTRACE_DEBUG=1. */
void programs__quiet_libbpf(void);

/*
 * Sets which programs load (before iotrace__load()): the variant of each
 * block program that matches the kernel's tracepoint prototype (btf: the
 * kernel's, NULL if it has none), the cast-load queue program where the
 * kernel takes it. The syscall programs are vfs__configure()'s.
 */
void programs__pick(struct iotrace *skel, const struct btf *btf);

/*
 * Leaves to programs__attach_block() the programs it attaches first, and
 * flush_stage and whoami (run, never attached) out of iotrace__attach().
 */
void programs__defer_attach(struct iotrace *skel);

/*
 * Attaches the block programs: those that end or follow an I/O before the
 * queue program, so that no I/O of the trace lacks its completion for
 * being queued mid-attach. 0 or -errno.
 */
int programs__attach_block(struct iotrace *skel);

/*
 * Takes the block programs off their tracepoints, the queue program
 * first, and puts them back in programs__attach_block()'s order; for
 * bench_toggle.h only. The reattach returns 0 or -errno.
 */
void programs__detach_block(struct iotrace *skel);
int programs__reattach_block(struct iotrace *skel);

/* " -- what to check" for a load or attach error -err ("" if nothing useful). */
const char *programs__load_hint(int err);

#endif
