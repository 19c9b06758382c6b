/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Trace streams the unit tests build in memory: records framed as the
 * tracer writes them (a varint length, then the bytes), in a buffer that
 * doubles as it grows. Grown to fit each record instead, every append
 * copied the stream so far: under ASan test_reader took 92 s and
 * test_split 59 s.
 *
 * The includer includes cmocka.h first (assert_non_null()).
 */
#ifndef IOTRACE_TEST_FRAMED_BUF_H
#define IOTRACE_TEST_FRAMED_BUF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "framing.h"

/* msg (n bytes) framed at the end of *b (*len bytes, *cap allocated); where its frame starts */
static inline size_t framed_add(uint8_t **b, size_t *len, size_t *cap, const void *msg, size_t n)
{
	size_t at = *len;

	if (at + FRAMING_VARINT_MAX + n > *cap) {
		*cap = 2 * (at + FRAMING_VARINT_MAX + n);
		*b = realloc(*b, *cap);
		assert_non_null(*b);
	}
	*len += framing__put_varint(*b + at, n);
	if (n)
		memcpy(*b + *len, msg, n);
	*len += n;
	return at;
}

#endif
