// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>

#include "framing.h"

size_t framing__put_varint(uint8_t *buf, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	return n;
}

int framing__get_varint(const uint8_t *buf, size_t avail, uint64_t *v, size_t *used)
{
	uint64_t r = 0;
	size_t i;

	for (i = 0; i < FRAMING_VARINT_MAX; i++) {
		uint8_t b;

		if (i == avail)
			return 0;
		b = buf[i];
		/* the 10th byte holds bit 63 only: anything more overflows */
		if (i == FRAMING_VARINT_MAX - 1 && b > 1)
			return -EBADMSG;
		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = r;
			*used = i + 1;
			return 1;
		}
	}
	return -EBADMSG;
}
