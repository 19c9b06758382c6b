/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reads a trace as one sequence of decoded events (struct event) in
 * header.sid order: the input of the join and of every view but --raw.
 *
 * The streams are merged through a window of READER_WINDOW sids, in four
 * quarters. Every stream is read ahead until its next record lies beyond
 * the window, each record goes to the slot of its sid, and the first
 * quarter is handed out in order by scanning an occupancy bitmap; then
 * the window moves on by a quarter. That costs O(1) per event where a
 * heap over all streams costs O(log streams), and absorbs any inversion
 * within a stream of up to half the window (a BPF program interrupted by
 * another on the same CPU writes a later sid first).
 *
 * Reading and decoding the next quarter runs while the current one is
 * handed out: on a helper thread if allowed (threads = 2) and some stream
 * is compressed (raw records decode faster than a decoded event moves to
 * another CPU), the caller's thread helping once it is through the
 * quarter; otherwise all on the caller's thread. The sequence is the same
 * either way.
 *
 * What the window cannot place comes out anyway: a record whose sid has
 * been handed out, or is being handed out (an inversion beyond the
 * window), as soon as possible; records with the same sid one after the
 * other, by stream index, then stream order; sids near UINT64_MAX at the
 * end. Sids need not be dense: gaps cost bitmap words, an empty window
 * jumps ahead.
 *
 * Memory is the window (two of them with a helper thread, 2 MiB each)
 * plus the streams' buffers, never more with a longer trace.
 *
 * Damage is recorded as by merge.h (reader__error), and a damaged stream
 * stops at it; the others are read to their ends, as when a stream file
 * is missing (the join keeps a completion from completing an I/O of
 * another range: join.h). Records of types the caller did not ask for
 * are not decoded, only their top-level fields checked: damage inside
 * one of them is found by the views that read that type (--io reads
 * them all), not by the others: file metadata is a third of the
 * records, and a statistic never uses it.
 */
#ifndef IOTRACE_READER_H
#define IOTRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "merge.h"

#define READER_QUARTER 4096
#define READER_WINDOW (4 * READER_QUARTER)
/* a ranged reader's: reader__set_range() */
#define READER_RANGE_QUARTER 512

struct trace;
struct reader;

/*
 * types: EV_BIT() mask of the event types to return (EV_ALL for all).
 * threads: 1, or 2 to allow a helper thread. Returns NULL with errno set. The
 * trace must outlive the reader.
 */
struct reader *reader__new(struct trace *t, unsigned int types, unsigned int threads);

/*
 * A stream's sids only go back by the few a nested program overtook
 * (none in the upstream sample); a larger slack has the lower reader read
 * on for nothing (4 windows were a third of the sample's records), and
 * both halves pass over its records undecoded (4,096 sids, the slack
 * before, were 2% of the sample's records). A record further out of
 * order is most likely later than a ranged reader's window takes in
 * already (reader__late()).
 */
#define READER_RANGE_SLACK ((uint64_t)2 * READER_RANGE_QUARTER)

/*
 * Split runs (split.h): only the events with lo <= sid < hi (no end for
 * hi = UINT64_MAX), on a reader
 * without a helper thread, set before the first reader__next(). Its
 * window is of READER_RANGE_QUARTER quarters, which fits in a CPU's
 * cache and is not a huge page to zero (the upstream sample's split run
 * took a tenth less CPU time), and absorbs inversions an eighth as long:
 * one it does not (reader__late()) may come out in another order than
 * one pass gives, and the split gives up for one pass. Records
 * outside are dropped before they are decoded (with lo > 0, those a
 * stream starts with are passed over in one call, unless
 * reader__set_cut() starts it further on), and a stream ends at the
 * first record READER_RANGE_SLACK or more past hi: what follows belongs to
 * the next range. That is exact as long as no stream holds a record below
 * a range's start after one READER_RANGE_SLACK past it; the reader of
 * the upper range counts such records (reader__stragglers()), and with
 * any, the lower range was incomplete.
 */
void reader__set_range(struct reader *r, uint64_t lo, uint64_t hi);
uint64_t reader__stragglers(const struct reader *r);
/*
 * Records read so far that came after their quarter of the window went
 * out: they were handed out as soon as possible, out of sid order.
 */
uint64_t reader__late(const struct reader *r);

/* The sid the cuts below are sought for, a slack before the ranges meet at hi */
#define READER_CUT_SID(hi) ((hi) > READER_RANGE_SLACK ? (hi) - READER_RANGE_SLACK : 0)

/*
 * Where the streams cross from one range into the next: for stream i, a
 * record start (a sid_seek.h guess) in the map cut[i].map lent to it
 * (stream__use_map()), before which no record is of the upper range; off
 * 0 for none. After reader__set_range() with the same cut sid. The upper
 * range's reader starts each stream there instead of passing over the
 * records before it; the lower range's checks that the guess holds: a
 * record starts there and none before it is of the upper range, else
 * each miss is a straggler (the ranges would not hold every record
 * once). Streams not lent that map are read as without a cut. The upper
 * range's reader takes it before its first reader__next(); the lower
 * one's may take it later, between two calls, until its streams are read
 * past a cut (a cut it has passed already is a straggler): before the
 * events it hands out come within 2 * READER_WINDOW of the cut's sids.
 */
struct reader_cut {
	const uint8_t *map;
	uint64_t off;
};
void reader__set_cut(struct reader *r, const struct reader_cut *cut, size_t n);

/*
 * Returns 1 and the next event in *ev (owned by the reader, valid until
 * the next call), 0 at the end, or -ENOMEM (the reader stops).
 */
int reader__next(struct reader *r, const struct event **ev);
/*
 * Hands out no event from sid on: the summary of a trace that its size
 * limit or a write error stopped says where its streams stop holding
 * every event. Before the first reader__next().
 */
void reader__keep_below(struct reader *r, uint64_t sid);
/* Whether reader__keep_below() kept events from going out: those after sid *last */
bool reader__cut(const struct reader *r, uint64_t *last);

/*
 * Records read so far, of every type (in the range, for a reader of
 * one): with the whole trace read, what its summary's tracedEvents counts.
 */
uint64_t reader__records(const struct reader *r);

/*
 * Records read so far whose sid another record of a type asked for had:
 * each sid of a trace is given once, so these are damaged records (a bit
 * flipped in a sid) or a stream file there twice. Records of one sid
 * that the window cannot place together (one beyond it) are not counted.
 */
uint64_t reader__same_sid(const struct reader *r);

/* Damage met so far, one entry per damaged stream (see merge.h), by stream. */
size_t reader__error_count(const struct reader *r);
const struct merge_error *reader__error(const struct reader *r, size_t i);
/*
 * For a caller that stops short of the end after the event of this sid:
 * forgets the damage that reading ahead found in a stream past a record
 * of a later sid. The records it lost follow that one in the file, as
 * far out of sid order as records are (window_end.h).
 */
void reader__forget_damage_past(struct reader *r, uint64_t sid);

/* Accepts NULL. */
void reader__free(struct reader *r);

#endif
