/* SPDX-License-Identifier: BSD-3-Clause */
/* A clock's time in ns, for the collector's timers and the writers' timing. */
#ifndef IOTRACE_CLOCK_NS_H
#define IOTRACE_CLOCK_NS_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
