/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Marsaglia's xorshift64: the tests' pseudo-random values, the same on
 * every run from the same state.
 */
#ifndef IOTRACE_TEST_XORSHIFT_H
#define IOTRACE_TEST_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif
