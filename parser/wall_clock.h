/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wall-clock times for a trace's events. Events are stamped with the
 * monotonic clock; iotrace's summary says when, in UTC, header.timestamp
 * 0 was (tags.timestampOrigin), so that an event's wall-clock time is
 * that plus its header.timestamp, and a time a user has from a log can be
 * turned into a place in the trace (--from, --to).
 */
#ifndef IOTRACE_WALL_CLOCK_H
#define IOTRACE_WALL_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Reads a time, into ns since the epoch: "YYYY-MM-DDTHH:MM[:SS[.fraction]]"
 * (a blank for the T too), or "HH:MM[:SS[.fraction]]" on the date that
 * ref_ns (ns since the epoch) has; in local time (TZ), or UTC with a
 * final Z. A fraction has 1 to 9 digits. 0, or -EINVAL (not such a time,
 * or no such date or time of day: February 30, a local time a DST change
 * skips), -ERANGE (before 1970 or after 2262).
 */
int wall_clock__parse(const char *text, int64_t ref_ns, int64_t *ns);

/* Whether text is meant as a time of day or date rather than a number of seconds. */
bool wall_clock__looks_like(const char *text);

/* Whether text begins with a date ("YYYY-MM-DD" and more), not with a time of day. */
bool wall_clock__dated(const char *text);

/*
 * Formats times, keeping the text of the last second: records come in
 * time order, thousands a second. UTC for machines, with all nine digits
 * so that the texts sort ("2026-11-30T06:53:11.106951358Z"); local time
 * of day for people, to the microsecond, as logs have it
 * ("07:53:11.106951").
 */
#define WALL_FMT_MAX 40

struct wall_fmt {
	bool local;
	bool valid;
	int64_t sec;
	size_t len;
	char text[WALL_FMT_MAX];
};

void wall_fmt__init(struct wall_fmt *f, bool local);

/*
 * The time rel ns (a header.timestamp, or a call's start, which may be
 * before it) after origin; wraps rather than overflows on a trace's
 * nonsense
 */
static inline int64_t wall_clock__at(int64_t origin, uint64_t rel)
{
	return (int64_t)((uint64_t)origin + rel);
}

/* ns since the epoch as text (valid until the next call); "" outside years 1..9999 */
const char *wall_fmt(struct wall_fmt *f, int64_t ns);

#endif
