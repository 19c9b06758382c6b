/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where records of a sid begin in a raw stream file held in memory, found
 * without reading the file from its start: a split run's upper half
 * (split.h) starts each stream there instead of passing over the lower
 * half's records one by one (a sixth of its work on the upstream sample).
 *
 * Records are framed (framing.h) and nearly sorted by sid, so a bisection
 * on sids finds the place, given a way into the middle of a file: from a
 * guessed byte on, the first place where SEEK_SYNC_RECORDS records in a row
 * parse as records laid out as encoders write them (decode__peek_sid()) is
 * taken for a record start. Random bytes seldom chain so, but that is a
 * guess, not a proof: the caller must check the offset against the chain
 * of records read from the start (reader__set_range() does: the lower
 * half's reader must meet a record exactly there).
 */
#ifndef IOTRACE_SID_SEEK_H
#define IOTRACE_SID_SEEK_H

#include <stddef.h>
#include <stdint.h>

#define SEEK_SYNC_RECORDS 8

/*
 * The offset in buf[0..len) of the record the bisection took for the
 * first with a sid of sid or more, all records it saw before it having
 * smaller sids (or none at hand: records of other layouts are passed
 * over); of damage it met first; len if it saw no sid so large; 0 if it
 * found no way in (a first record already that large, or of another
 * layout or damaged).
 */
uint64_t sid_seek__offset(const uint8_t *buf, size_t len, uint64_t sid);

#endif
