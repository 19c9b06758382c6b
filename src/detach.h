/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Taking the programs off their tracepoints all at once. Closing the link
 * of a classic (perf) tracepoint, as the system calls' are, waits for RCU
 * grace periods under a kernel-wide mutex: some 70 ms each when closed
 * one after the other on the 6.18 VM measured, which made a stop take
 * 1.1 s, 4.5 s with --vfs. Closed at once, the tp_btf links cost nothing
 * and the classic ones still queue on the mutex but take half as long
 * each: 0.57 s and 2.35 s (bench/start-stop).
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
