/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a view with a time window (--to) may stop reading: once the
 * events read have gone WINDOW_END_GRACE_NS past the window's end and
 * the join holds no I/O submitted in the window that still waits for its
 * completion (join__settled_before()). What comes after could change no
 * record of the window, so the output is what reading the whole trace
 * gives; `--statistics --to 10` of an hour's trace reads its first 20 s.
 *
 * The grace covers events read in sid order that are older than the one
 * before them. A record is stamped, then takes its sid, in one run of a
 * program (microseconds), and waits in its CPU's stage at most two of
 * the collector's rounds (200 ms, trace_dir.c) before its stream file has
 * it; the reader hands out a record that far out of place where its
 * stream holds it. Ten seconds is fifty times that.
 *
 * What reading stops short of is not seen: damage and name events after
 * it, and device descriptions first given there (both tracers describe
 * their devices when they start). Damage the reader met ahead, in a
 * stream past a record read after the stop, is no damage to the window
 * (reader__forget_damage_past()). The join's counts are those of the
 * events read (window_end.stopped_at says up to where).
 */
#ifndef IOTRACE_WINDOW_END_H
#define IOTRACE_WINDOW_END_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "join.h"

#define WINDOW_END_GRACE_NS 10000000000ull

struct window_end {
	/* the window's end, ns from the first event; UINT64_MAX: none */
	uint64_t to;
	uint64_t until;		/* to + WINDOW_END_GRACE_NS */
	size_t countdown;	/* events until the next look at the join */
	bool stopped;
	uint64_t stopped_at;	/* the time of the event read last, if stopped */
	uint64_t stopped_sid;	/* and its sid */
};

/* w for a window ending at to (UINT64_MAX: no end, never stops). */
void window_end__init(struct window_end *w, uint64_t to);

/* window_end__reached() for a window with an end */
bool window_end__look(struct window_end *w, const struct join *j, const struct event *ev);

/*
 * After join__event(j, ev): whether reading may stop (and w->stopped is
 * set). Inline: a view without --to pays one branch an event.
 */
static inline bool window_end__reached(struct window_end *w, const struct join *j,
				       const struct event *ev)
{
	return w->until != UINT64_MAX && window_end__look(w, j, ev);
}

#endif
