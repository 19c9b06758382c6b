/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * When the collector looks at the mount table again. A change of the
 * table has it read in full, in up to three passes (collector.c,
 * follow_mounts()): 2.7 ms of the collector's time with 2,000 mounts here,
 * so a storm of mounts (a node starting its containers) would keep it
 * from its rings (bench/mount-churn). After a look the next waits twenty
 * times as long as that one took, a second at most: a lone mount is
 * followed at once, a storm costs about a twentieth of the collector's
 * time, and the last change is always looked at.
 */
#ifndef IOTRACE_MOUNT_GATE_H
#define IOTRACE_MOUNT_GATE_H

#include <stdbool.h>
#include <stdint.h>

#define MOUNT_GATE_SHARE 20
#define MOUNT_GATE_GAP_MAX_NS 1000000000ull

struct mount_gate {
	bool changed;		/* a change not looked at yet */
	uint64_t next_ns;	/* CLOCK_MONOTONIC: no look before */
};

/* Whether a look is due at now: a change waits, and its gap has passed. */
bool mount_gate__due(const struct mount_gate *g, uint64_t now);

/* A look began at start and took took ns: the change is seen, the next gap set. */
void mount_gate__looked(struct mount_gate *g, uint64_t start, uint64_t took);

/* timeout_ms, shortened so that a wait returns when a waiting look is due. */
int mount_gate__timeout_ms(const struct mount_gate *g, uint64_t now, int timeout_ms);

#endif
