// SPDX-License-Identifier: BSD-3-Clause
#include "mount_gate.h"

bool mount_gate__due(const struct mount_gate *g, uint64_t now)
{
	return g->changed && now >= g->next_ns;
}

void mount_gate__looked(struct mount_gate *g, uint64_t start, uint64_t took)
{
	uint64_t gap = took < MOUNT_GATE_GAP_MAX_NS / MOUNT_GATE_SHARE ? took * MOUNT_GATE_SHARE :
									 MOUNT_GATE_GAP_MAX_NS;

	g->changed = false;
	g->next_ns = start + took + gap;
}

int mount_gate__timeout_ms(const struct mount_gate *g, uint64_t now, int timeout_ms)
{
	uint64_t ms;

	if (!g->changed)
		return timeout_ms;
	/* rounded up: a wait that ends early would find the look not due yet */
	ms = g->next_ns > now ? (g->next_ns - now + 999999) / 1000000 : 0;
	return ms < (uint64_t)timeout_ms ? (int)ms : timeout_ms;
}
