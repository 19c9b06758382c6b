/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How big each CPU's ring is. --buffer is MiB for all CPUs together, as
 * Open-CAS iotrace reads it, shared among the CPUs online when tracing
 * starts. The programs look a ring up by CPU number, so every possible
 * CPU gets one: a CPU offline at the start gets the smallest ring, in
 * case it comes online. Were it given a share, a VM with many hot-plug
 * slots (possible CPUs far more than online) would lock that many times
 * --buffer.
 */
#ifndef IOTRACE_RING_PLAN_H
#define IOTRACE_RING_PLAN_H

#include <stdbool.h>
#include <stdint.h>

/* the smallest ring: room for a few of the programs' 4 KiB batches */
#define RING_MIN_BYTES (64ull << 10)

#define RING_PLAN_ONLINE_PATH "/sys/devices/system/cpu/online"

struct ring_plan {
	int nonline;	/* CPUs given a share */
	uint64_t share;	/* an online CPU's ring, bytes */
	bool *online;	/* by CPU number */
};

/*
 * Marks the CPUs of a kernel CPU list ("0-3,8,10-11\n") in online[0..ncpus),
 * ignoring any at or past ncpus. The number marked, or -EINVAL for a list
 * that is not one.
 */
int ring_plan__parse_cpus(const char *list, bool *online, int ncpus);

/*
 * Plans the rings of ncpus possible CPUs for buffer_mib, with the online
 * CPUs read from online_path. Should the list not be readable, every CPU
 * is taken as online, each with its share of ncpus: never more memory
 * than asked. 0, or -ENOMEM.
 */
int ring_plan__init(struct ring_plan *p, uint64_t buffer_mib, int ncpus, const char *online_path);

/* CPU cpu's ring: a power of two of at least RING_MIN_BYTES and a page */
uint64_t ring_plan__bytes(const struct ring_plan *p, int cpu);

void ring_plan__free(struct ring_plan *p);

#endif
