/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Split runs: a summary view (one with view_ops.merge: no record order,
 * queue depths or files in its result) over a long trace on two CPUs, each
 * reading, joining and counting its own half of the sids.
 *
 * One pass hands events from a reading thread to a joining one, which
 * moves every decoded event between the CPUs' caches and keeps one of
 * them waiting for the other. Here nothing crosses until the end: the
 * upper half's reader starts each stream where the upper half's sids
 * begin (found by a bisection, sid_seek.h) and drops the few lower
 * records after that undecoded, its join keeps what concerns I/Os it
 * has not seen (JOIN_DEFER), and at the end the lower half's join takes
 * those, both finish, and the views merge. Both halves read the files
 * through one mapping (shared_maps.h), which the lower half makes while
 * the upper one's thread starts; the lower half finds the sid where they
 * meet, the upper one where each stream crosses it, and the lower half's
 * reader checks those places against the records it reads.
 * The result is that of one pass; where it could differ, the split gives
 * up and the caller runs one pass: a stream with a record of the lower
 * half far into the upper one, or one of the upper half before where its
 * reader started it (reader.h), damage, or a request with bios on both
 * sides of the cut (join.h).
 * Traces with dispatch events nearly always have a request in flight at
 * any sid, so the split serves the traces without them, such as
 * Open-CAS's.
 */
#ifndef IOTRACE_SPLIT_H
#define IOTRACE_SPLIT_H

#include <stdint.h>
#include <stdio.h>

#include "view.h"

/* below this many events one pass is as fast: the split costs a second opening */
#define SPLIT_MIN_EVENTS 65536

/*
 * Lowers (or restores) that least count, for the fuzz target and tests:
 * the split's edge cases are in traces of a few records, and its result
 * must be one pass's there too.
 */
void split__set_min_events(uint64_t events);

/*
 * Where the upper half starts: the lowest first sid of the streams, plus
 * this share of the events. A little past the middle: the upper half
 * starts later (its thread, its own opening, finding where each stream
 * crosses).
 */
#define SPLIT_SHARE_NUM 52
#define SPLIT_SHARE_DEN 100

struct split;

/*
 * Runs ops (created on out with opts) over the trace in dir, which holds
 * about events events (its summary's count), with a join of join_flags
 * (0 or JOIN_DEFER-compatible: no files, paths, VFS). Returns the done
 * split, or NULL: with *err = 0 when the trace does not lend itself (too
 * short, compressed, ranges that overlap, no second thread) and nothing
 * was written - run one pass - else *err = -errno.
 */
struct split *split__run(const char *dir, uint64_t events, const struct view_ops *ops, FILE *out,
			 const struct view_opts *opts, unsigned int join_flags, int *err);

/* The finished join and the merged view: for view_ops.finish. */
struct join *split__join(const struct split *s);
void *split__view(const struct split *s);

/* The records both halves read (reader__records()); a done split found no damage. */
uint64_t split__records(const struct split *s);

/* Accepts NULL. */
void split__free(struct split *s);

#endif
