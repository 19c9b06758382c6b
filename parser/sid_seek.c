// SPDX-License-Identifier: BSD-3-Clause
#include <stdbool.h>

#include "decode.h"
#include "framing.h"
#include "sid_seek.h"

/* the bisection stops at this span, the rest is walked record by record */
#define WALK_SPAN 4096
/* no record start this far after a guessed byte: look before it */
#define SCAN_MAX 4096
/* the tag of the header, which encoders write first */
#define HEADER_TAG 0x0a

/* A record framed at buf[p..]: where it ends, and if it has one at hand, its sid. */
static bool frame_at(const uint8_t *buf, size_t len, size_t p, size_t *next, bool *has_sid,
		     uint64_t *sid)
{
	uint64_t rlen;
	size_t used;

	if (framing__get_varint(buf + p, len - p, &rlen, &used) != 1 || rlen > len - p - used)
		return false;
	*has_sid = decode__peek_sid(buf + p + used, (size_t)rlen, sid);
	*next = p + used + (size_t)rlen;
	return true;
}

/* A record with its sid at hand framed at buf[p..]: its sid and where the next one starts. */
static bool record_at(const uint8_t *buf, size_t len, size_t p, uint64_t *sid, size_t *next)
{
	bool has_sid;

	return frame_at(buf, len, p, next, &has_sid, sid) && has_sid;
}

/* Whether SEEK_SYNC_RECORDS records in a row (or up to the end) start at p; the first's sid. */
static bool chains(const uint8_t *buf, size_t len, size_t p, uint64_t *sid)
{
	size_t k, next;
	uint64_t s;

	for (k = 0; k < SEEK_SYNC_RECORDS && p < len; k++) {
		if (!record_at(buf, len, p, &s, &next))
			return false;
		if (!k)
			*sid = s;
		p = next;
	}
	return true;
}

/* The first record start in [from, to) (SCAN_MAX bytes at most), with its sid. */
static bool sync_from(const uint8_t *buf, size_t len, size_t from, size_t to, size_t *at,
		      uint64_t *sid)
{
	size_t p, end = to - from > SCAN_MAX ? from + SCAN_MAX : to;

	for (p = from; p < end; p++) {
		/* the header tag after a length of one or two bytes: a cheap first test */
		if (((p + 1 < len && buf[p + 1] == HEADER_TAG) ||
		     (p + 2 < len && buf[p + 2] == HEADER_TAG)) &&
		    chains(buf, len, p, sid)) {
			*at = p;
			return true;
		}
	}
	return false;
}

uint64_t sid_seek__offset(const uint8_t *buf, size_t len, uint64_t sid)
{
	size_t lo = 0, hi = len, at, next;
	uint64_t s;

	if (!len || !record_at(buf, len, 0, &s, &next) || s >= sid)
		return 0;
	/* lo: a record start below sid; hi: one at sid or past it, or where none was found */
	while (hi - lo > WALK_SPAN) {
		size_t m = lo + (hi - lo) / 2;

		if (!sync_from(buf, len, m, hi, &at, &s))
			hi = m;
		else if (s < sid)
			lo = at;
		else
			hi = at;
	}
	for (at = lo; at < len; at = next) {
		bool has_sid;

		/* damage: the readers meet it there too */
		if (!frame_at(buf, len, at, &next, &has_sid, &s))
			return at;
		/*
		 * a record without its sid at hand is passed over: of the upper
		 * range, the lower range's reader finds it before the cut
		 */
		if (has_sid && s >= sid)
			return at;
	}
	return len;
}
