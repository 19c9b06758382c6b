/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an I/O's place says about the access pattern, for
 * --access-pattern: whether it is sequential and whether it is aligned.
 *
 * Sequential: it starts at the sector where one of the last PATTERN_STREAMS
 * I/Os of its kind on its device ended. Several streams interleaved (files
 * written side by side, a database's log beside its tables) each stay
 * sequential, as a device's or a cache's stream detector sees them; one
 * I/O that another merely follows is not. The pieces of a split I/O
 * follow each other: the device sees them sequential, and so they count.
 *
 * Aligned: start and length whole 4 KiB units, the page and the physical
 * sector of most devices; anything else has a 512e drive, or a RAID or
 * parallel file system with larger units, read before it writes.
 */
#ifndef IOTRACE_PATTERN_H
#define IOTRACE_PATTERN_H

#include <stdbool.h>
#include <stdint.h>

#define PATTERN_STREAMS 32
/* 4 KiB in 512-byte sectors */
#define PATTERN_ALIGN_SECTORS 8

/*
 * The streams of one kind of I/O on one device, each by the sector after
 * its last I/O, all different. Zeroed: none yet.
 */
struct pattern_streams {
	uint64_t end[PATTERN_STREAMS];	/* 0 = a free slot */
	uint64_t used[PATTERN_STREAMS];	/* when it last went on, in I/Os seen; 0 = free */
	uint64_t clock;
};

/*
 * Whether an I/O of len sectors at lba continues one of s's streams; it
 * then extends that stream, else it begins one in place of the stream
 * least recently continued. One that ends where a stream already does
 * (the same range again) only makes that stream recent: the two go on
 * as one. An empty I/O continues nothing and is not kept.
 */
bool pattern__sequential(struct pattern_streams *s, uint64_t lba, uint32_t len);

/* Whether an I/O of len sectors at lba is in whole 4 KiB units. */
bool pattern__aligned(uint64_t lba, uint32_t len);

#endif
