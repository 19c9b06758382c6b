/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Taking the programs off their tracepoints all at once. Closing one
 * tracepoint's link returns only after an RCU grace period (about 70 ms
 * on the kernels measured), so closing the links one after the other
 * made a stop take a second, and five with --vfs. Closes made at the
 * same time share their grace periods.
 */
#ifndef IOTRACE_DETACH_H
#define IOTRACE_DETACH_H

#include <stddef.h>

struct bpf_link;

/*
 * Destroys *slots[0..n) (NULL entries are skipped) concurrently, one
 * thread per link, and sets each slot to NULL. Returns when all are
 * gone; where a thread cannot be started, the caller's thread destroys
 * that thread's link itself.
 */
void detach__links(struct bpf_link **const *slots, size_t n);

#endif
